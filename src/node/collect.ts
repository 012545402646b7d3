/** Garbage collection on demand for one-shot commands (Node only). */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | null | undefined;

/**
 * A full garbage collection on demand, for work that builds large structures one after another
 * (`flopsReport`'s `collect`: each path's arrays are garbage once it is done, and V8 would collect
 * them only after the next path has grown the heap; `sparsedyn flops` on a 5,000-body chain peaked
 * about 50 MiB higher). Node gives `gc` only under its --expose-gc flag: the flag is set at run time
 * and the function taken from a new context, as Jest does for its --logHeapUsage. Undefined when
 * the engine refuses (collections are then left to the engine).
 */
export function fullCollection(): (() => void) | undefined {
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      const f: unknown = runInNewContext('gc');
      // the flag back as it was: V8's code cache (bin/sparsedyn.mjs) is keyed by the flags
      setFlagsFromString('--no-expose-gc');
      gc = typeof f === 'function' ? (f as () => void) : null;
    } catch {
      gc = null;
    }
  }
  return gc ?? undefined;
}
