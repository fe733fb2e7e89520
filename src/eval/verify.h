/* verify.h — output comparison (evaluation.md, stage 3): every element written (the harness
 * poisons outputs with NaN/-1 before each call) and within the task's tolerance
 * |cand - ref| <= atol + rtol * |ref|; the error is reported, not only pass/fail. */
#ifndef CL1_VERIFY_H
#define CL1_VERIFY_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
  int64_t n, n_bad, n_nan;     /* elements compared, outside tolerance, NaN/unwritten in cand */
  int64_t first_bad;           /* index of the first bad element, -1 if none */
  double max_abs, max_rel;     /* over all elements (finite pairs) */
  double bad_cand, bad_ref;    /* values at first_bad */
} cl1_cmp;

/* Compares n elements of dtype; accumulates into c (call cl1_cmp_init first). */
void cl1_cmp_init(cl1_cmp *c);
void cl1_cmp_add(cl1_cmp *c, int dtype, const void *cand, const void *ref, int64_t n, double atol,
                 double rtol);
/* The same, split over up to `threads` threads (the judge's large outputs: billions of elements). */
void cl1_cmp_add_parallel(cl1_cmp *c, int dtype, const void *cand, const void *ref, int64_t n,
                          double atol, double rtol, int threads);
/* A sampled compare: the 4096-element blocks chosen 1 in `keep` by a secret (splitmix64 of
 * secret and the block index), all others skipped; c->n counts the compared elements. For the
 * re-verification of timed calls: an output made differently when timed (stale, partial,
 * skipped) is wrong in far more than one block, and no speed comes from a single wrong one. */
void cl1_cmp_add_sampled(cl1_cmp *c, int dtype, const void *cand, const void *ref, int64_t n,
                         double atol, double rtol, int threads, uint64_t secret, int keep);
/* One line describing c (e.g. "12 of 4096 elements wrong, first at [7]: 0.5 vs 0.25"). */
void cl1_cmp_describe(const cl1_cmp *c, char *out, size_t n);

/* The magnitude of n elements of dtype: the root mean square and the largest absolute value of
 * the finite ones (0 if none), from at most 2^20 of them evenly strided — not exact figures. */
typedef struct { double rms, max_abs; } cl1_magnitude;
cl1_magnitude cl1_cmp_magnitude(int dtype, const void *p, int64_t n);

/* Element i of a buffer of dtype as a double (f16/bf16 decoded in software). */
double cl1_value_at(int dtype, const void *p, int64_t i);
#endif
