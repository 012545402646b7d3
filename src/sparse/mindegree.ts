/**
 * perm = minimumDegree(G, E): approximate minimum degree ordering on a quotient graph whose
 * variables start with symmetric adjacency lists G (for A+Aᵀ) and/or initial elements E (each a
 * clique of variables: the rows of A when ordering the columns for AᵀA).
 * Source: P. R. Amestoy, T. A. Davis, I. S. Duff, "An approximate minimum degree ordering
 * algorithm", SIAM J. Matrix Anal. Appl. 17 (1996): quotient graph with element absorption,
 * approximate external degrees d̄_i = min(n−k, d_i + |L_p∖i|, |A_i∖i| + |L_p∖i| + Σ_e |L_e∖L_p|),
 * |L_e∖L_p| found for all elements at once with the w(e) counter, aggressive absorption,
 * indistinguishable-node detection by hashing (supervariables), mass elimination, and dense rows
 * set aside; and S. I. Larimore / Davis et al., ACM TOMS 30 (2004) (COLAMD) for the column form,
 * where the rows of A are the initial elements. Written from those descriptions.
 *
 * Storage: one integer workspace `iw`; node x (variable 0..n-1 or initial element n..n+m-1) owns
 * iw[pe[x] .. pe[x]+len[x]-1]. A variable's list is its elements (elen of them) then its variables;
 * an element's list is its variables L_e. New elements are appended; the workspace is compacted
 * when full.
 */

export interface MinimumDegreeOptions {
  /** absorb every element e with L_e ⊆ L_p when p is eliminated (default true) */
  readonly aggressive?: boolean;
  /** variables with more initial neighbours than this are ordered last (default max(16, 10√n)) */
  readonly dense?: number;
  /**
   * what the next pivot minimises: 'degree' (approximate external degree, AMD) or 'fill'
   * (approximate local fill d(d−1)/2 − c(c−1)/2 with c = |L_p∖i|, the clique i already lies in;
   * Ng & Raghavan 1999, Rothberg & Eisenstat 1998). Default 'degree'.
   */
  readonly metric?: 'degree' | 'fill';
  /** among equal scores take the last inserted ('lifo', default) or the first ('fifo') */
  readonly tie?: 'lifo' | 'fifo';
}

const VARIABLE = 0;
const ELEMENT = 1;
const DEAD = 2;

/**
 * order = minimumDegree(G, E): approximate minimum degree order of a quotient graph given by
 * symmetric variable adjacency G and/or initial elements E (the engine behind amd and colamd).
 * @param n    number of variables
 * @param Gp   symmetric variable adjacency without the diagonal: pointers (length n+1), or undefined
 * @param Gi   its variables (Gi[Gp[j] .. Gp[j+1]-1] are the neighbours of j), or undefined
 * @param m    number of initial elements
 * @param Ep   variable lists of the initial elements: pointers (length m+1), or undefined
 * @param Ei   their variables, or undefined
 * @returns order: order[k] = variable eliminated k-th
 */
export function minimumDegree(
  n: number,
  Gp: Int32Array | undefined,
  Gi: Int32Array | undefined,
  m: number,
  Ep: Int32Array | undefined,
  Ei: Int32Array | undefined,
  options: MinimumDegreeOptions = {},
): Int32Array {
  const order = new Int32Array(n);
  if (n === 0) return order;
  // Set-up and elimination are separate functions: each is compiled on its own (a long set-up
  // loop then does not get the elimination loop compiled before it has run).
  eliminate(initialize(n, Gp, Gi, m, Ep, Ei, options), order);
  return order;
}

/** The quotient graph and the workspaces of one ordering. */
interface QuotientGraph {
  readonly n: number;
  readonly N: number;
  readonly aggressive: boolean;
  iw: Int32Array<ArrayBuffer>;
  pfree: number;
  stamp: number;
  nel: number;
  readonly nDense: number;
  readonly denseList: Int32Array;
  readonly pe: Int32Array;
  readonly len: Int32Array;
  readonly elen: Int32Array;
  readonly nv: Int32Array;
  readonly status: Uint8Array;
  readonly degree: Int32Array;
  readonly w: Float64Array;
  readonly mnext: Int32Array;
  readonly mtail: Int32Array;
  readonly hhead: Int32Array;
  readonly hnext: Int32Array;
  readonly hash: Int32Array;
  readonly dtmp: Int32Array;
  readonly mk: Int32Array;
  readonly lp: Int32Array;
  readonly tmp: Int32Array;
  readonly first: Int32Array;
  readonly pq: Priority;
}

/** Lays out the quotient graph (variables' element and variable lists, initial elements) and the initial degrees. */
function initialize(
  n: number,
  Gp: Int32Array | undefined,
  Gi: Int32Array | undefined,
  m: number,
  Ep: Int32Array | undefined,
  Ei: Int32Array | undefined,
  options: MinimumDegreeOptions,
): QuotientGraph {
  const aggressive = options.aggressive ?? true;
  const denseLimit = options.dense ?? Math.max(16, Math.floor(10 * Math.sqrt(n)));
  const N = n + m;
  const gnz = Gp ? Gp[n] : 0;
  const enz = Ep ? Ep[m] : 0;
  // Variable → initial elements (transpose of E).
  const vEcount = new Int32Array(n + 1);
  if (Ep && Ei) for (let t = 0; t < enz; t++) vEcount[Ei[t] + 1]++;
  for (let i = 0; i < n; i++) vEcount[i + 1] += vEcount[i];
  let iw: Int32Array<ArrayBuffer> = new Int32Array(gnz + 2 * enz + 2 * n + 1024);
  const pe = new Int32Array(N);
  const len = new Int32Array(N);
  const elen = new Int32Array(n);
  const nv = new Int32Array(n);
  const status = new Uint8Array(N);
  const degree = new Int32Array(N);
  const w = new Float64Array(N);
  const mnext = new Int32Array(n).fill(-1); // member lists of supervariables
  const mtail = new Int32Array(n);
  const hhead = new Int32Array(n).fill(-1);
  const hnext = new Int32Array(n).fill(-1);
  const hash = new Int32Array(n);
  const dtmp = new Int32Array(n);
  const mk = new Int32Array(N);
  const lp = new Int32Array(n); // scratch copy of L_p
  const tmp = new Int32Array(N); // scratch for rewriting a list
  const first = new Int32Array(N); // garbage collection
  let stamp = 1;
  let pfree = 0;
  // Lay out variables: [elements..., variables...].
  for (let i = 0; i < n; i++) {
    pe[i] = pfree;
    status[i] = VARIABLE;
    nv[i] = 1;
    mtail[i] = i;
    pfree += vEcount[i + 1] - vEcount[i];
    elen[i] = vEcount[i + 1] - vEcount[i];
    len[i] = elen[i];
    if (Gp && Gi) {
      for (let t = Gp[i]; t < Gp[i + 1]; t++) {
        if (Gi[t] !== i) iw[pfree++] = Gi[t];
      }
      len[i] = pfree - pe[i];
    }
  }
  if (Ep && Ei) {
    const fill = new Int32Array(n);
    for (let e = 0; e < m; e++) {
      const x = n + e;
      pe[x] = pfree;
      status[x] = ELEMENT;
      for (let t = Ep[e]; t < Ep[e + 1]; t++) {
        const i = Ei[t];
        iw[pfree++] = i;
        iw[pe[i] + fill[i]++] = x;
      }
      len[x] = pfree - pe[x];
      degree[x] = len[x];
      if (len[x] > denseLimit) status[x] = DEAD; // dense row: ignored by the column ordering
    }
  }
  // Initial degrees: |A_i| + |∪ L_e ∖ i| (exact, by marking).
  let nel = 0;
  let nDense = 0;
  const denseList = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    stamp++;
    mk[i] = stamp;
    let d = 0;
    const p0 = pe[i];
    for (let t = p0; t < p0 + len[i]; t++) {
      const x = iw[t];
      if (t < p0 + elen[i]) {
        if (status[x] !== ELEMENT) continue;
        for (let s = pe[x]; s < pe[x] + len[x]; s++) {
          const j = iw[s];
          if (mk[j] !== stamp) {
            mk[j] = stamp;
            d++;
          }
        }
      } else if (mk[x] !== stamp) {
        mk[x] = stamp;
        d++;
      }
      if (d > denseLimit) break;
    }
    degree[i] = d;
  }
  for (let i = 0; i < n; i++) {
    if (degree[i] > denseLimit && n > 1) {
      status[i] = DEAD;
      nv[i] = 0;
      denseList[nDense++] = i;
      nel++;
    }
  }
  if (nDense > 0) {
    // Element weights count only the variables still in the graph.
    for (let x = n; x < N; x++) {
      if (status[x] !== ELEMENT) continue;
      let d = 0;
      for (let s = pe[x]; s < pe[x] + len[x]; s++) if (status[iw[s]] === VARIABLE) d++;
      degree[x] = d;
    }
  }
  const pq = new Priority(n, options.metric === 'fill', options.tie === 'fifo');
  for (let i = 0; i < n; i++) {
    if (status[i] !== VARIABLE) continue;
    if (degree[i] > n - nDense - 1) degree[i] = n - nDense - 1;
    pq.insert(i, degree[i], 0);
  }
  return { n, N, aggressive, iw, pfree, stamp, nel, nDense, denseList, pe, len, elen, nv, status, degree, w, mnext, mtail, hhead, hnext, hash, dtmp, mk, lp, tmp, first, pq };
}

/** Eliminates all variables in order of (approximate) minimum degree or fill; writes `order`. */
function eliminate(g: QuotientGraph, order: Int32Array): void {
  const { n, N, aggressive, nDense, denseList, pe, len, elen, nv, status, degree, w, mnext, mtail, hhead, hnext, hash, dtmp, mk, lp, tmp, first, pq } = g;
  let { iw, pfree, stamp, nel } = g;
  let wflg = 1;
  let k = 0; // number of entries of `order` written
  while (nel < n) {
    const p = pq.pop(status);
    pq.remove(p, degree[p]);
    let nvp = nv[p];
    nel += nvp;
    // --- L_p = (A_p ∪ ⋃_{e∈E_p} L_e) ∖ p, principal variables only; flag them with nv < 0.
    nv[p] = -nvp;
    let need = 0;
    for (let t = pe[p]; t < pe[p] + len[p]; t++) {
      need += t < pe[p] + elen[p] ? len[iw[t]] : 1;
    }
    if (pfree + need > iw.length) {
      pfree = compact(iw, pe, len, status, first, N, pfree);
      if (pfree + need + (iw.length >> 2) > iw.length) iw = grown(iw, pfree, need);
    }
    const start = pfree;
    let degme = 0;
    let nlp = 0;
    const pEnd = pe[p] + len[p];
    const pElemEnd = pe[p] + elen[p];
    for (let t = pe[p]; t < pEnd; t++) {
      const x = iw[t];
      if (t < pElemEnd) {
        if (status[x] !== ELEMENT) continue;
        for (let s = pe[x]; s < pe[x] + len[x]; s++) {
          const j = iw[s];
          const nvj = nv[j];
          if (nvj > 0 && status[j] === VARIABLE) {
            degme += nvj;
            nv[j] = -nvj;
            iw[pfree++] = j;
            lp[nlp++] = j;
            pq.remove(j, degree[j]);
          }
        }
        status[x] = DEAD; // e absorbed into p
      } else {
        const nvj = nv[x];
        if (nvj > 0 && status[x] === VARIABLE) {
          degme += nvj;
          nv[x] = -nvj;
          iw[pfree++] = x;
          lp[nlp++] = x;
          pq.remove(x, degree[x]);
        }
      }
    }
    status[p] = ELEMENT;
    pe[p] = start;
    len[p] = pfree - start;
    elen[p] = 0;
    degree[p] = degme;
    // --- w(e) − wflg = |L_e ∖ L_p| for every element adjacent to L_p.
    wflg += n + 1;
    for (let a = 0; a < nlp; a++) {
      const i = lp[a];
      const nvi = -nv[i];
      for (let t = pe[i]; t < pe[i] + elen[i]; t++) {
        const e = iw[t];
        if (status[e] !== ELEMENT) continue;
        if (w[e] >= wflg) w[e] -= nvi;
        else w[e] = degree[e] + wflg - nvi;
      }
    }
    // --- Rewrite each list of L_p: drop absorbed elements and covered variables, add p; degrees.
    for (let a = 0; a < nlp; a++) {
      const i = lp[a];
      const nvi = -nv[i];
      const p0 = pe[i];
      const pE = p0 + elen[i];
      const pA = p0 + len[i];
      let nt = 0;
      let deg = 0;
      let h = 0;
      for (let t = p0; t < pE; t++) {
        const e = iw[t];
        if (status[e] !== ELEMENT) continue;
        const dext = w[e] - wflg;
        if (dext > 0 || !aggressive) {
          deg += dext;
          tmp[nt++] = e;
          h += e;
        } else {
          status[e] = DEAD; // aggressive absorption: L_e ⊆ L_p
        }
      }
      tmp[nt++] = p;
      h += p;
      const ne = nt;
      for (let t = pE; t < pA; t++) {
        const j = iw[t];
        if (status[j] !== VARIABLE) continue;
        const nvj = nv[j];
        if (nvj > 0) {
          deg += nvj;
          tmp[nt++] = j;
          h += j;
        }
      }
      if (nt > len[i]) {
        if (pfree + nt > iw.length) {
          pfree = compact(iw, pe, len, status, first, N, pfree);
          if (pfree + nt + (iw.length >> 2) > iw.length) iw = grown(iw, pfree, nt);
        }
        pe[i] = pfree;
        pfree += nt;
      }
      const q0 = pe[i];
      for (let t = 0; t < nt; t++) iw[q0 + t] = tmp[t];
      len[i] = nt;
      elen[i] = ne;
      if (deg === 0 && nt === 1) {
        // Mass elimination: i is adjacent to p only, so it goes with p at no extra fill.
        nv[i] = 0;
        status[i] = DEAD;
        degme -= nvi;
        nvp += nvi;
        nel += nvi;
        absorb(mnext, mtail, p, i);
      } else if (deg === 0) {
        // Every element left in E_i lies inside L_p (no aggressive absorption): same argument.
        for (let t = q0; t < q0 + ne - 1; t++) degree[iw[t]] -= nvi;
        nv[i] = 0;
        status[i] = DEAD;
        degme -= nvi;
        nvp += nvi;
        nel += nvi;
        absorb(mnext, mtail, p, i);
      } else {
        dtmp[i] = deg;
        hash[i] = h % n;
      }
    }
    // --- Supervariables: variables of L_p with identical lists are merged.
    for (let a = 0; a < nlp; a++) {
      const i = lp[a];
      if (status[i] !== VARIABLE) continue;
      const hb = hash[i];
      hnext[i] = hhead[hb];
      hhead[hb] = i;
    }
    for (let a = 0; a < nlp; a++) {
      const i0 = lp[a];
      if (status[i0] !== VARIABLE) continue;
      const hb = hash[i0];
      let i = hhead[hb];
      if (i === -1) continue;
      hhead[hb] = -1;
      if (hnext[i] === -1) continue; // a single variable in this bucket
      for (; i !== -1; i = hnext[i]) {
        if (status[i] !== VARIABLE) continue;
        stamp++;
        if (stamp > 0x3fffffff) {
          mk.fill(0);
          stamp = 1;
        }
        const li = len[i];
        const ei = elen[i];
        for (let t = pe[i]; t < pe[i] + li; t++) mk[iw[t]] = stamp;
        for (let j = hnext[i]; j !== -1; j = hnext[j]) {
          if (status[j] !== VARIABLE || len[j] !== li || elen[j] !== ei) continue;
          let same = true;
          for (let t = pe[j]; t < pe[j] + li; t++) {
            if (mk[iw[t]] !== stamp) {
              same = false;
              break;
            }
          }
          if (same) {
            nv[i] += nv[j]; // both negative (flagged)
            nv[j] = 0;
            status[j] = DEAD;
            absorb(mnext, mtail, i, j);
          }
        }
      }
    }
    // --- Final approximate degrees; restore the flags; compact L_p.
    const nleft = n - nel;
    let q = pe[p];
    for (let a = 0; a < nlp; a++) {
      const i = lp[a];
      if (status[i] !== VARIABLE) continue;
      const nvi = -nv[i];
      nv[i] = nvi;
      let d = degree[i] + degme - nvi;
      const d2 = dtmp[i] + degme - nvi;
      if (d2 < d) d = d2;
      if (nleft - nvi < d) d = nleft - nvi;
      if (d < 0) d = 0;
      degree[i] = d;
      pq.insert(i, d, degme - nvi);
      iw[q++] = i;
    }
    len[p] = q - pe[p];
    degree[p] = degme;
    nv[p] = nvp;
    for (let v = p; v !== -1; v = mnext[v]) order[k++] = v;
    if (len[p] === 0) status[p] = DEAD;
  }
  for (let t = 0; t < nDense; t++) order[k++] = denseList[t];
}

/** Appends the member list of supervariable `from` to that of `into`. */
function absorb(mnext: Int32Array, mtail: Int32Array, into: number, from: number): void {
  mnext[mtail[into]] = from;
  mtail[into] = mtail[from];
}

/**
 * Garbage collection of the workspace: moves every live list (variables and elements not dead)
 * to the front, in place, and returns the new end. A live list's first entry is replaced by the
 * marker −(x+1) during the sweep (its value saved in `first`).
 */
function compact(iw: Int32Array, pe: Int32Array, len: Int32Array, status: Uint8Array, first: Int32Array, N: number, pfree: number): number {
  for (let x = 0; x < N; x++) {
    if (status[x] !== DEAD && len[x] > 0) {
      first[x] = iw[pe[x]];
      iw[pe[x]] = -(x + 1);
    }
  }
  let dst = 0;
  let src = 0;
  while (src < pfree) {
    const v = iw[src];
    if (v < 0) {
      const x = -v - 1;
      const l = len[x];
      pe[x] = dst;
      iw[dst++] = first[x];
      for (let t = 1; t < l; t++) iw[dst++] = iw[src + t];
      src += l;
    } else {
      src++;
    }
  }
  return dst;
}

/** A larger workspace holding iw[0 .. pfree-1], with room for `need` more and a quarter spare. */
function grown(iw: Int32Array, pfree: number, need: number): Int32Array<ArrayBuffer> {
  const g = new Int32Array(Math.max(pfree + need, Math.floor(iw.length * 1.5)) + 1024);
  g.set(iw.subarray(0, pfree));
  return g;
}

/**
 * The live principal variables by priority: degree buckets (doubly linked lists) for the
 * 'degree' metric, or a binary heap with lazy deletion for 'fill' (an entry is valid while
 * score[i] equals its key). Ties: last inserted first ('lifo') or first inserted first ('fifo').
 */
class Priority {
  private readonly head: Int32Array;
  private readonly tail: Int32Array;
  private readonly next: Int32Array;
  private readonly last: Int32Array;
  private readonly score: Float64Array;
  private hKey: Float64Array;
  private hNode: Int32Array;
  private hSize = 0;
  private tick = 0;
  private mindeg: number;

  constructor(
    n: number,
    private readonly fill: boolean,
    private readonly fifo: boolean,
  ) {
    this.head = new Int32Array(n + 1).fill(-1);
    this.tail = new Int32Array(n + 1).fill(-1);
    this.next = new Int32Array(n).fill(-1);
    this.last = new Int32Array(n).fill(-1);
    this.score = new Float64Array(n).fill(-1);
    this.hKey = new Float64Array(fill ? 2 * n + 16 : 0);
    this.hNode = new Int32Array(fill ? 2 * n + 16 : 0);
    this.mindeg = n;
  }

  /** Variable i with approximate external degree d, lying in a clique of c others (fill metric). */
  insert(i: number, d: number, c: number): void {
    if (this.fill) {
      if (c > d) c = d;
      const f = (d * (d - 1) - c * (c - 1)) / 2; // approximate local fill
      this.tick++;
      const key = f * 4294967296 + (this.fifo ? this.tick : 4294967295 - this.tick);
      this.score[i] = key;
      this.push(key, i);
      return;
    }
    const { head, tail, next, last } = this;
    if (this.fifo) {
      const t = tail[d];
      last[i] = t;
      next[i] = -1;
      if (t !== -1) next[t] = i;
      else head[d] = i;
      tail[d] = i;
    } else {
      const h = head[d];
      next[i] = h;
      last[i] = -1;
      if (h !== -1) last[h] = i;
      else tail[d] = i;
      head[d] = i;
    }
    if (d < this.mindeg) this.mindeg = d;
  }

  /** Removes variable i, inserted with degree d. */
  remove(i: number, d: number): void {
    if (this.fill) {
      this.score[i] = -1;
      return;
    }
    const { head, tail, next, last } = this;
    if (last[i] !== -1) next[last[i]] = next[i];
    else head[d] = next[i];
    if (next[i] !== -1) last[next[i]] = last[i];
    else tail[d] = last[i];
  }

  /** The next pivot; the caller then calls remove() (a no-op on the heap, already popped). */
  pop(status: Uint8Array): number {
    if (this.fill) {
      for (;;) {
        const key = this.hKey[0];
        const v = this.hNode[0];
        this.popTop();
        if (this.score[v] === key && status[v] === VARIABLE) return v;
      }
    }
    while (this.head[this.mindeg] === -1) this.mindeg++;
    return this.head[this.mindeg];
  }

  private push(key: number, v: number): void {
    if (this.hSize === this.hKey.length) {
      const k2 = new Float64Array(this.hSize * 2 + 16);
      k2.set(this.hKey);
      const v2 = new Int32Array(this.hSize * 2 + 16);
      v2.set(this.hNode);
      this.hKey = k2;
      this.hNode = v2;
    }
    const hKey = this.hKey;
    const hNode = this.hNode;
    let c = this.hSize++;
    while (c > 0) {
      const up = (c - 1) >> 1;
      if (hKey[up] <= key) break;
      hKey[c] = hKey[up];
      hNode[c] = hNode[up];
      c = up;
    }
    hKey[c] = key;
    hNode[c] = v;
  }

  private popTop(): void {
    const hKey = this.hKey;
    const hNode = this.hNode;
    const m = --this.hSize;
    const key = hKey[m];
    const v = hNode[m];
    let c = 0;
    for (;;) {
      let ch = 2 * c + 1;
      if (ch >= m) break;
      if (ch + 1 < m && hKey[ch + 1] < hKey[ch]) ch++;
      if (hKey[ch] >= key) break;
      hKey[c] = hKey[ch];
      hNode[c] = hNode[ch];
      c = ch;
    }
    hKey[c] = key;
    hNode[c] = v;
  }
}
