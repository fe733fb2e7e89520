/* exemplar.c — the exemplar sampler (exemplar.h).
 *
 * Buckets. Speedups are ratios, so "similar" is relative: 1.0x vs 1.1x is the same gap as 10x vs
 * 11x. A bucket is therefore a fixed-width bin on the log2(speedup) axis, floor(log2(s) / w),
 * which is deterministic (no clustering, no dependence on the other solutions) and anchored at
 * 1.0x (log2 = 0 is an edge), so a solution slower than the reference never shares a bucket
 * with a faster one. The default width w = 0.25 spans a factor 2^0.25 = 1.19: two runs of the
 * same kernel (timing noise of a few percent) almost always share a bucket, while a solution
 * ~20% faster lands in another one — the smallest difference worth showing the policy as a
 * contrast. Wider bins merge genuinely different solutions; narrower ones split noise.
 *
 * Choice. A bucket is drawn with P proportional to exp((mean_b - mean_all) / tau), mean_b the
 * mean speedup of its solutions and mean_all that of all n, without replacement (k distinct
 * buckets); then one of its solutions uniformly. The weights are computed as
 * exp((mean_b - mean_top) / tau), mean_top the largest remaining bucket mean: the same
 * distribution (the constant cancels in the normalisation), but the exponent is never positive,
 * so exp() cannot overflow for large speedups or a tiny tau, and the top bucket weighs exactly 1.
 * (mean_all therefore never needs computing.) */
#include "exemplar.h"
#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include "../base/rng.h"

double cl1_exemplar_rng_u01(void *rng_state) {
  cl1_exemplar_rng *r = rng_state;
  /* tensor id "exmp": a stream of its own, apart from the tensor generators' ids */
  cl1_philox_out w = cl1_rng_words(r->seed, 0x65786D70u, r->counter++);
  uint64_t bits = ((uint64_t)w.v[0] << 21) ^ (uint64_t)(w.v[1] >> 11); /* 53 random bits */
  return (double)(bits & ((1ull << 53) - 1)) * (1.0 / 9007199254740992.0);
}

long cl1_exemplar_bucket(double speedup, double width) {
  assert(speedup > 0 && isfinite(speedup) && width > 0);
  return (long)floor(log2(speedup) / width);
}

typedef struct {
  long bucket;
  int idx;
} item;

typedef struct {
  int start, count;
  double mean;
  bool taken;
} group;

static int item_cmp(const void *a, const void *b) {
  const item *x = a, *y = b;
  if (x->bucket != y->bucket) return x->bucket < y->bucket ? -1 : 1;
  return (x->idx > y->idx) - (x->idx < y->idx);
}

static int check_args(const double *speedups, int n, int k, double tau, double width,
                      cl1_rng_fn rng, const int *out_idx, cl1_err *err) {
  if (n < 0) return cl1_err_set(err, "exemplar sampler: n = %d solutions is negative", n);
  if (k < 0) return cl1_err_set(err, "exemplar sampler: k = %d exemplars is negative", k);
  if (!(tau > 0) || !isfinite(tau))
    return cl1_err_set(err, "exemplar sampler: temperature tau = %g must be positive and finite",
                       tau);
  if (!(width > 0) || !isfinite(width))
    return cl1_err_set(err, "exemplar sampler: bucket width %g must be positive and finite",
                       width);
  if (n == 0 || k == 0) return 0;
  if (!speedups) return cl1_err_set(err, "exemplar sampler: speedups is NULL for n = %d", n);
  if (!out_idx) return cl1_err_set(err, "exemplar sampler: out_idx is NULL for k = %d", k);
  if (!rng) return cl1_err_set(err, "exemplar sampler: no random generator given (rng is NULL)");
  for (int i = 0; i < n; i++) {
    double s = speedups[i];
    if (!(s > 0) || !isfinite(s))
      return cl1_err_set(err, "exemplar sampler: speedups[%d] = %g is not a positive finite "
                              "speedup", i, s);
    if (fabs(log2(s) / width) > 1e15)
      return cl1_err_set(err, "exemplar sampler: bucket width %g is too small for speedup %g",
                         width, s);
  }
  return 0;
}

/* One draw from rng, refused unless it is in [0, 1): a broken generator must not bias the pick
 * silently. */
static int draw(cl1_rng_fn rng, void *st, double *u, cl1_err *err) {
  *u = rng(st);
  if (!(*u >= 0 && *u < 1))
    return cl1_err_set(err, "exemplar sampler: the random generator returned %g, not a value "
                            "in [0, 1)", *u);
  return 0;
}

/* Draws one not-yet-taken group with P proportional to exp(mean / tau). */
static int pick_group(group *g, int ng, double tau, cl1_rng_fn rng, void *st, int *out,
                      cl1_err *err) {
  double top = -INFINITY, total = 0, u;
  int last = -1;
  for (int b = 0; b < ng; b++)
    if (!g[b].taken && g[b].mean > top) top = g[b].mean;
  for (int b = 0; b < ng; b++)
    if (!g[b].taken) total += exp((g[b].mean - top) / tau), last = b;
  assert(last >= 0 && total >= 1.0);
  if (draw(rng, st, &u, err)) return -1;
  double acc = 0, target = u * total;
  *out = last; /* rounding can leave target just above the final sum */
  for (int b = 0; b < ng; b++) {
    if (g[b].taken) continue;
    acc += exp((g[b].mean - top) / tau);
    if (target < acc) {
      *out = b;
      break;
    }
  }
  return 0;
}

int cl1_exemplar_pick_width(const double *speedups, int n, int k, double tau, double width,
                            cl1_rng_fn rng, void *rng_state, int *out_idx, cl1_err *err) {
  if (check_args(speedups, n, k, tau, width, rng, out_idx, err)) return -1;
  if (n == 0 || k == 0) return 0;
  item *it = malloc((size_t)n * sizeof *it);
  group *g = malloc((size_t)n * sizeof *g);
  if (!it || !g) {
    free(it), free(g);
    return cl1_err_set(err, "exemplar sampler: out of memory for %d solutions", n);
  }
  for (int i = 0; i < n; i++) {
    it[i].bucket = cl1_exemplar_bucket(speedups[i], width);
    it[i].idx = i;
  }
  qsort(it, (size_t)n, sizeof *it, item_cmp);
  int ng = 0;
  for (int i = 0; i < n;) {
    int j = i;
    double sum = 0;
    for (; j < n && it[j].bucket == it[i].bucket; j++) sum += speedups[it[j].idx];
    g[ng++] = (group){i, j - i, sum / (j - i), false};
    i = j;
  }
  int want = k < ng ? k : ng, got = 0, rc = 0;
  while (got < want) {
    int b;
    double u;
    if (pick_group(g, ng, tau, rng, rng_state, &b, err) || draw(rng, rng_state, &u, err)) {
      rc = -1;
      break;
    }
    int j = (int)(u * g[b].count);
    if (j >= g[b].count) j = g[b].count - 1;
    g[b].taken = true;
    out_idx[got++] = it[g[b].start + j].idx;
  }
  free(it), free(g);
  return rc ? rc : got;
}

int cl1_exemplar_pick(const double *speedups, int n, int k, double tau, cl1_rng_fn rng,
                      void *rng_state, int *out_idx, cl1_err *err) {
  return cl1_exemplar_pick_width(speedups, n, k, tau, CL1_EXEMPLAR_BIN_WIDTH, rng, rng_state,
                                 out_idx, err);
}
