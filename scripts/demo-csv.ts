/**
 * The demo humanoid's NDJSON rows as a CSV log under the problem's log header (t, q.<joint>,
 * v.<joint>, base.px … base.wz, <sensor>.<component>; truth left out): the benchmarks and the tests
 * that compare the two formats. A row that is not JSON becomes a malformed CSV row ("x,y"), a blank
 * one a blank line; `cell` writes each number.
 */
import { LogSchema } from '../src/io/log.ts';
import { loadEstimationSystem } from '../src/node/problem-file.ts';

const BASE = ['px', 'py', 'pz', 'qx', 'qy', 'qz', 'qw', 'vx', 'vy', 'vz', 'wx', 'wy', 'wz'];

export function demoCsv(lines: string[], cell: (x: number) => string = String, problem = 'data/problems/humanoid-demo.json'): string {
  const { es } = loadEstimationSystem(problem);
  const schema = new LogSchema(es);
  const header = schema.csvHeader();
  const out = [header.join(',')];
  for (const l of lines) {
    let o;
    try { o = JSON.parse(l); } catch { out.push(l === '' ? '' : 'x,y'); continue; }
    const value = (h: string): number => {
      if (h === 't') return o.t;
      const [kind, ...rest] = h.split('.');
      const name = rest.join('.');
      if (kind === 'q') return o.q[name];
      if (kind === 'v') return o.v[name];
      if (kind === 'base') {
        const k = BASE.indexOf(name);
        return k < 3 ? o.base.position[k] : k < 7 ? o.base.quaternion[k - 3] : k < 10 ? o.base.linear_velocity[k - 7] : o.sensors.imu_gyro[k - 10];
      }
      return o.sensors[kind][schema.sensors.get(kind)!.indexOf(name)];
    };
    out.push(header.map((h) => cell(value(h))).join(','));
  }
  return out.join('\n') + '\n';
}
