/* exemplar.h — CUDA-L1's exemplar sampler: which earlier solutions of a task the contrastive
 * prompt shows. Solutions are grouped into buckets of similar speedup; a bucket is chosen with
 * probability proportional to exp((mean_bucket - mean_all) / tau), then a solution uniformly
 * within it, and the k exemplars come from k distinct buckets, so the policy sees solutions that
 * differ in speed and can contrast them. */
#ifndef CL1_EXEMPLAR_H
#define CL1_EXEMPLAR_H
#include <stdint.h>
#include "../base/err.h"

/* Bucket width on the log2(speedup) axis (see exemplar.c for why 0.25). */
#define CL1_EXEMPLAR_BIN_WIDTH 0.25

/* The sampler's randomness: each call returns a uniform double in [0, 1). */
typedef double (*cl1_rng_fn)(void *rng_state);

/* A ready-made cl1_rng_fn: Philox4x32-10 (base/rng.h) over a counter, so a run's picks are a pure
 * function of the seed. Initialise with {seed, 0}; pass cl1_exemplar_rng_u01 and &state. */
typedef struct {
  uint64_t seed;
  uint64_t counter;
} cl1_exemplar_rng;
double cl1_exemplar_rng_u01(void *rng_state);

/* The bucket of a speedup: floor(log2(speedup) / width). speedup > 0 and finite, width > 0. */
long cl1_exemplar_bucket(double speedup, double width);

/* Picks up to k exemplars among n solutions with the given speedups (each > 0 and finite), from
 * distinct buckets of width CL1_EXEMPLAR_BIN_WIDTH, with temperature tau > 0. Writes the chosen
 * solution indices (0..n-1, all distinct) to out_idx[0..k-1] in pick order and returns how many:
 * min(k, number of buckets), 0 when n == 0 or k == 0. Returns -1 with err set on bad arguments
 * (a non-positive or non-finite speedup names its index) or when out of memory. */
int cl1_exemplar_pick(const double *speedups, int n, int k, double tau, cl1_rng_fn rng,
                      void *rng_state, int *out_idx, cl1_err *err);

/* The same with an explicit bucket width (> 0, finite). */
int cl1_exemplar_pick_width(const double *speedups, int n, int k, double tau, double width,
                            cl1_rng_fn rng, void *rng_state, int *out_idx, cl1_err *err);

#endif
