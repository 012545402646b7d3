/*
 * Side-by-side peer for scripts/bench-sparse.ts: KLU (SuiteSparse, Debian's libsuitesparse-dev) on
 * one matrix in the 1-based triplet format of ../shared/sparse-bench. Prints one JSON line with
 * KLU's blocks, L+U, factor flops and the median µs of klu_refactor and klu_solve (b_i = 1 + i mod 7).
 * Build: cc -O2 scripts/peers/klu-peer.c -I/usr/include/suitesparse -lklu -o /tmp/klu-peer
 * This calls the library; none of its code is in sparsedyn.
 */
#include <klu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: klu-peer FILE.tri [runs]\n"); return 2; }
  int runs = argc > 2 ? atoi(argv[2]) : 501;
  FILE *f = fopen(argv[1], "r");
  if (!f) { perror(argv[1]); return 2; }
  int cap = 1 << 20, nz = 0, n = 0;
  int *Ti = malloc(cap * sizeof(int)), *Tj = malloc(cap * sizeof(int));
  double *Tx = malloc(cap * sizeof(double));
  int i, j; double x;
  while (fscanf(f, "%d %d %lf", &i, &j, &x) == 3) {
    if (nz == cap) { cap *= 2; Ti = realloc(Ti, cap * sizeof(int)); Tj = realloc(Tj, cap * sizeof(int)); Tx = realloc(Tx, cap * sizeof(double)); }
    Ti[nz] = i - 1; Tj[nz] = j - 1; Tx[nz] = x; nz++;
    if (i > n) n = i;
    if (j > n) n = j;
  }
  fclose(f);
  int *Ap = calloc(n + 1, sizeof(int)), *Ai = malloc(nz * sizeof(int)), *next = malloc(n * sizeof(int));
  double *Ax = malloc(nz * sizeof(double));
  for (int t = 0; t < nz; t++) Ap[Tj[t] + 1]++;
  for (int k = 0; k < n; k++) Ap[k + 1] += Ap[k];
  for (int k = 0; k < n; k++) next[k] = Ap[k];
  for (int t = 0; t < nz; t++) { int p = next[Tj[t]]++; Ai[p] = Ti[t]; Ax[p] = Tx[t]; }
  klu_common c;
  klu_defaults(&c);
  double t0 = now_us();
  klu_symbolic *S = klu_analyze(n, Ap, Ai, &c);
  double analyze_ms = (now_us() - t0) / 1000;
  klu_numeric *N = klu_factor(Ap, Ai, Ax, S, &c);
  if (!S || !N) { fprintf(stderr, "KLU failed (status %d)\n", c.status); return 1; }
  klu_flops(S, N, &c);
  double *b = malloc(n * sizeof(double)), *w = malloc(n * sizeof(double));
  for (int k = 0; k < n; k++) b[k] = 1 + k % 7;
  double *tr = malloc(runs * sizeof(double)), *ts = malloc(runs * sizeof(double)), *tc = malloc(runs * sizeof(double));
  for (int r = 0; r < 50; r++) { klu_refactor(Ap, Ai, Ax, S, N, &c); memcpy(w, b, n * sizeof(double)); klu_solve(S, N, n, 1, w, &c); }
  for (int r = 0; r < runs; r++) {
    double a = now_us();
    klu_refactor(Ap, Ai, Ax, S, N, &c);
    double m = now_us();
    memcpy(w, b, n * sizeof(double));
    klu_solve(S, N, n, 1, w, &c);
    double e = now_us();
    memcpy(w, b, n * sizeof(double));
    double g = now_us();
    tr[r] = m - a; ts[r] = e - m; tc[r] = g - e;
  }
  qsort(tr, runs, sizeof(double), cmp); qsort(ts, runs, sizeof(double), cmp); qsort(tc, runs, sizeof(double), cmp);
  printf("{\"n\":%d,\"nnz\":%d,\"blocks\":%d,\"max_block\":%d,\"lu_nnz\":%.0f,\"off_nnz\":%d,\"factor_flops\":%.0f,\"analyze_ms\":%.3f,\"refactor_us\":%.2f,\"solve_us\":%.2f}\n",
         n, nz, S->nblocks, S->maxblock, (double)N->lnz + N->unz - n, S->nzoff, c.flops, analyze_ms, tr[runs / 2], ts[runs / 2] - tc[runs / 2]);
  return 0;
}
