/**
 * [order, r] = scc(G): strongly connected components of a directed graph given by adjacency lists
 * (node j → Gi[Gp[j] .. Gp[j+1]-1]), in reverse topological order: every edge runs from a node to
 * a node of the same or an earlier component.
 * Source: R. E. Tarjan, "Depth-first search and linear graph algorithms", SIAM J. Comput. 1 (1972),
 * made iterative with an explicit call stack (recursion overflows on long chains).
 */

export interface Components {
  /** nodes grouped by component: component c is order[r[c] .. r[c+1]-1] */
  readonly order: Int32Array;
  /** component boundaries, length count+1 */
  readonly r: Int32Array;
  /** number of components */
  readonly count: number;
}

/**
 * [order, r] = scc(G): strongly connected components of a directed graph, in reverse topological
 * order (Tarjan).
 */
export function scc(n: number, Gp: Int32Array, Gi: Int32Array): Components {
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const ptr = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const tarjanStack = new Int32Array(n);
  const callStack = new Int32Array(n);
  const order = new Int32Array(n);
  const rTmp = new Int32Array(n + 1);
  let nextIndex = 0;
  let sTop = 0;
  let nOut = 0;
  let count = 0;
  for (let v0 = 0; v0 < n; v0++) {
    if (index[v0] !== -1) continue;
    let cTop = 0;
    callStack[0] = v0;
    index[v0] = low[v0] = nextIndex++;
    ptr[v0] = Gp[v0];
    tarjanStack[sTop++] = v0;
    onStack[v0] = 1;
    while (cTop >= 0) {
      const v = callStack[cTop];
      const end = Gp[v + 1];
      let p = ptr[v];
      let descended = false;
      for (; p < end; p++) {
        const w = Gi[p];
        if (index[w] === -1) {
          ptr[v] = p + 1;
          index[w] = low[w] = nextIndex++;
          ptr[w] = Gp[w];
          tarjanStack[sTop++] = w;
          onStack[w] = 1;
          callStack[++cTop] = w;
          descended = true;
          break;
        } else if (onStack[w] && index[w] < low[v]) {
          low[v] = index[w];
        }
      }
      if (descended) continue;
      ptr[v] = end;
      if (low[v] === index[v]) {
        rTmp[count++] = nOut;
        let w: number;
        do {
          w = tarjanStack[--sTop];
          onStack[w] = 0;
          order[nOut++] = w;
        } while (w !== v);
      }
      cTop--;
      if (cTop >= 0) {
        const u = callStack[cTop];
        if (low[v] < low[u]) low[u] = low[v];
      }
    }
  }
  rTmp[count] = n;
  return { order, r: rTmp.slice(0, count + 1), count };
}
