/* verify.c — elementwise comparison with the task's tolerance (see verify.h). */
#include "verify.h"
#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <pthread.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>
#include "cudal1/solution.h"

static double half_to_double(uint16_t h) {
  int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  double v;
  if (e == 0) v = ldexp((double)m, -24);
  else if (e == 31) v = m ? NAN : INFINITY;
  else v = ldexp((double)(m | 1024), e - 25);
  return s ? -v : v;
}

double cl1_value_at(int dtype, const void *p, int64_t i) {
  switch (dtype) {
  case CL1_F32: return ((const float *)p)[i];
  case CL1_F64: return ((const double *)p)[i];
  case CL1_F16: return half_to_double(((const uint16_t *)p)[i]);
  case CL1_BF16: {
    uint32_t u = (uint32_t)((const uint16_t *)p)[i] << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  case CL1_I32: return ((const int32_t *)p)[i];
  case CL1_I64: return (double)((const int64_t *)p)[i];
  case CL1_U8: return ((const uint8_t *)p)[i];
  case CL1_BOOL: return ((const uint8_t *)p)[i] != 0;
  }
  return NAN;
}

cl1_magnitude cl1_cmp_magnitude(int dtype, const void *p, int64_t n) {
  int64_t step = n > (1 << 20) ? n / (1 << 20) : 1, k = 0;
  double ss = 0, mx = 0;
  for (int64_t i = 0; i < n; i += step) {
    double v = cl1_value_at(dtype, p, i);
    if (!isfinite(v)) continue;
    ss += v * v;
    k++;
    if (fabs(v) > mx) mx = fabs(v);
  }
  return (cl1_magnitude){k ? sqrt(ss / (double)k) : 0, mx};
}

void cl1_cmp_init(cl1_cmp *c) {
  memset(c, 0, sizeof *c);
  c->first_bad = -1;
}

static void mark_bad(cl1_cmp *c, int64_t i, double x, double r) {
  if (c->n_bad++ == 0) {
    c->first_bad = c->n + i;
    c->bad_cand = x;
    c->bad_ref = r;
  }
}

/* One pair under the rules: integers exact; NaN only where the reference has NaN (a NaN
 * where a number belongs counts as never written); infinities equal; finite values within
 * atol + rtol * |ref|. i is relative to c->n. */
static void cmp_one(cl1_cmp *c, int64_t i, double x, double r, bool is_int, double atol,
                    double rtol) {
  if (is_int) {
    if (x != r) mark_bad(c, i, x, r);
    double d = fabs(x - r);
    if (d > c->max_abs) c->max_abs = d;
    return;
  }
  if (isnan(x)) {
    if (!isnan(r)) { c->n_nan++; mark_bad(c, i, x, r); }
    return;
  }
  if (isnan(r) || isinf(r) || isinf(x)) {
    if (x != r) mark_bad(c, i, x, r);
    return;
  }
  double d = fabs(x - r), ar = fabs(r);
  if (d > c->max_abs) c->max_abs = d;
  if (ar > 0 && d / ar > c->max_rel) c->max_rel = d / ar;
  if (d > atol + rtol * ar) mark_bad(c, i, x, r);
}

/* The common case (float32 outputs), as one tight loop: finite pairs need no classification,
 * and max_rel needs a division only when it grows — the general loop's per-element division
 * and type switch held a 67M-element compare to ~16 GB/s on 16 threads (34 ms, 11 times per
 * evaluation of a level-1 task). */
static void cmp_f32(cl1_cmp *c, const float *cand, const float *ref, int64_t n, double atol,
                    double rtol) {
  double max_abs = c->max_abs, max_rel = c->max_rel;
  for (int64_t i = 0; i < n; i++) {
    float xf = cand[i], rf = ref[i];
    if (__builtin_expect(!(isfinite(xf) && isfinite(rf)), 0)) {
      cmp_one(c, i, xf, rf, false, atol, rtol);
      continue;
    }
    double d = fabs((double)xf - (double)rf), ar = fabs((double)rf);
    if (d > max_abs) max_abs = d;
    if (d > max_rel * ar && ar > 0) max_rel = d / ar;
    if (d > atol + rtol * ar) mark_bad(c, i, xf, rf);
  }
  /* cmp_one never touches max_abs/max_rel for non-finite pairs, so the locals are the maxima */
  c->max_abs = max_abs, c->max_rel = max_rel;
}

void cl1_cmp_add(cl1_cmp *c, int dtype, const void *cand, const void *ref, int64_t n, double atol,
                 double rtol) {
  if (dtype == CL1_F32) {
    cmp_f32(c, cand, ref, n, atol, rtol);
  } else {
    bool is_int = dtype == CL1_I32 || dtype == CL1_I64 || dtype == CL1_U8 || dtype == CL1_BOOL;
    for (int64_t i = 0; i < n; i++)
      cmp_one(c, i, cl1_value_at(dtype, cand, i), cl1_value_at(dtype, ref, i), is_int, atol, rtol);
  }
  c->n += n;
}

void cl1_cmp_describe(const cl1_cmp *c, char *out, size_t n) {
  if (!c->n_bad) {
    snprintf(out, n, "all %lld elements within tolerance (max abs %.3g, max rel %.3g)",
             (long long)c->n, c->max_abs, c->max_rel);
  } else if (c->n_nan) {
    snprintf(out, n, "%lld of %lld elements wrong, %lld of them NaN or never written; first at "
             "[%lld]: %.6g vs %.6g", (long long)c->n_bad, (long long)c->n, (long long)c->n_nan,
             (long long)c->first_bad, c->bad_cand, c->bad_ref);
  } else {
    snprintf(out, n, "%lld of %lld elements outside tolerance (max abs %.3g, max rel %.3g); first "
             "at [%lld]: %.6g vs %.6g", (long long)c->n_bad, (long long)c->n, c->max_abs,
             c->max_rel, (long long)c->first_bad, c->bad_cand, c->bad_ref);
  }
}

/* Folds k (whose first_bad is an absolute index) into c; n is added by the caller. */
static void cmp_merge(cl1_cmp *c, const cl1_cmp *k) {
  if (k->n_bad && (c->first_bad < 0 || k->first_bad < c->first_bad)) {
    c->first_bad = k->first_bad;
    c->bad_cand = k->bad_cand;
    c->bad_ref = k->bad_ref;
  }
  c->n_bad += k->n_bad;
  c->n_nan += k->n_nan;
  if (k->max_abs > c->max_abs) c->max_abs = k->max_abs;
  if (k->max_rel > c->max_rel) c->max_rel = k->max_rel;
}

#define CMP_BLOCK 4096  /* elements per sampling block */

/* Is block b among those a sampled compare keeps (1 in keep, chosen by a secret)? */
static bool kept(uint64_t secret, int64_t b, int keep) {
  if (keep <= 1) return true;
  uint64_t z = secret + (uint64_t)b * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return (z ^ (z >> 31)) % (uint64_t)keep == 0;
}

typedef struct {
  cl1_cmp c;       /* first_bad absolute; n = elements compared */
  int dtype;
  size_t es;
  const unsigned char *cand, *ref;  /* the whole buffers */
  int64_t lo, hi;                   /* this job's element range */
  double atol, rtol;
  uint64_t secret;
  int keep;
} cmp_job;

static void *cmp_thread(void *arg) {
  cmp_job *j = arg;
  assert(0 <= j->lo && j->lo <= j->hi && j->keep >= 1);
  cl1_cmp_init(&j->c);
  if (j->keep <= 1) {
    cl1_cmp one;
    cl1_cmp_init(&one);
    one.n = j->lo;  /* so that first_bad comes out absolute */
    cl1_cmp_add(&one, j->dtype, j->cand + (size_t)j->lo * j->es, j->ref + (size_t)j->lo * j->es,
                j->hi - j->lo, j->atol, j->rtol);
    cmp_merge(&j->c, &one);
    j->c.n = j->hi - j->lo;
    return NULL;
  }
  for (int64_t b = j->lo / CMP_BLOCK; b * CMP_BLOCK < j->hi; b++) {
    if (!kept(j->secret, b, j->keep)) continue;
    int64_t lo = b * CMP_BLOCK > j->lo ? b * CMP_BLOCK : j->lo;
    int64_t hi = (b + 1) * CMP_BLOCK < j->hi ? (b + 1) * CMP_BLOCK : j->hi;
    cl1_cmp one;
    cl1_cmp_init(&one);
    one.n = lo;
    cl1_cmp_add(&one, j->dtype, j->cand + (size_t)lo * j->es, j->ref + (size_t)lo * j->es, hi - lo,
                j->atol, j->rtol);
    cmp_merge(&j->c, &one);
    j->c.n += hi - lo;
  }
  return NULL;
}

static void cmp_run(cl1_cmp *c, int dtype, const void *cand, const void *ref, int64_t n,
                    double atol, double rtol, int threads, uint64_t secret, int keep) {
  enum { MAX_T = 32 };
  if (threads > MAX_T) threads = MAX_T;
  if (threads < 1 || n < ((int64_t)1 << 20)) threads = 1;
  size_t es = dtype == CL1_F64 || dtype == CL1_I64 ? 8 : dtype == CL1_F32 || dtype == CL1_I32 ? 4
              : dtype == CL1_U8 || dtype == CL1_BOOL ? 1 : 2;
  assert(threads >= 1 && threads <= MAX_T && n >= 0);
  cmp_job jobs[MAX_T];
  pthread_t tid[MAX_T];
  /* job ranges on block boundaries, so that a block's sampling decision is made once */
  int64_t blocks = (n + CMP_BLOCK - 1) / CMP_BLOCK, per = (blocks + threads - 1) / threads;
  int started = 0;
  for (int t = 0; t < threads; t++) {
    int64_t lo = t * per * CMP_BLOCK, hi = lo + per * CMP_BLOCK < n ? lo + per * CMP_BLOCK : n;
    if (lo >= hi) break;
    jobs[t] = (cmp_job){.dtype = dtype, .es = es, .cand = cand, .ref = ref, .lo = lo, .hi = hi,
                        .atol = atol, .rtol = rtol, .secret = secret, .keep = keep};
    if (threads == 1 || pthread_create(&tid[t], NULL, cmp_thread, &jobs[t])) {
      cmp_thread(&jobs[t]);
      tid[t] = 0;
    }
    started++;
  }
  int64_t base = c->n, compared = 0;
  for (int t = 0; t < started; t++) {
    if (tid[t]) pthread_join(tid[t], NULL);
    cl1_cmp k = jobs[t].c;
    if (k.n_bad) k.first_bad += base;
    cmp_merge(c, &k);
    compared += k.n;
  }
  /* every element once, or (sampled) the kept blocks only */
  assert(keep > 1 ? compared <= n : compared == n);
  c->n += compared;
}

void cl1_cmp_add_parallel(cl1_cmp *c, int dtype, const void *cand, const void *ref, int64_t n,
                          double atol, double rtol, int threads) {
  cmp_run(c, dtype, cand, ref, n, atol, rtol, threads, 0, 1);
}

void cl1_cmp_add_sampled(cl1_cmp *c, int dtype, const void *cand, const void *ref, int64_t n,
                         double atol, double rtol, int threads, uint64_t secret, int keep) {
  cmp_run(c, dtype, cand, ref, n, atol, rtol, threads, secret, keep);
}
