/* gen_cuda.h — input/param generation on the GPU (gen_cuda.cu), equal element for element to
 * cl1_gen_host (gen.c). The integer conversions and the per-element value live here, compiled into
 * both sides, so a sample becomes the same i32/i64/u8/bool value on the host and on the device. */
#ifndef CL1_GEN_CUDA_H
#define CL1_GEN_CUDA_H
#include <stdint.h>
#include "../base/rng.h"
#include "task.h"

/* Truncation toward zero (as torch's float->int .to()), saturated so no value is undefined
 * behaviour; NaN becomes 0. */
CL1_HD int64_t cl1_gen_to_i64(double v) {
  if (!(v == v)) return 0;
  if (v >= 9223372036854775807.0) return INT64_MAX; /* the literal is 2^63 as a double */
  if (v <= -9223372036854775808.0) return INT64_MIN;
  return (int64_t)v;
}
CL1_HD int32_t cl1_gen_to_i32(double v) {
  if (!(v == v)) return 0;
  if (v >= 2147483647.0) return INT32_MAX;
  if (v <= -2147483648.0) return INT32_MIN;
  return (int32_t)v;
}
CL1_HD uint8_t cl1_gen_to_u8(double v) {
  if (!(v == v) || v <= 0.0) return 0;
  if (v >= 255.0) return 255;
  return (uint8_t)v;
}
CL1_HD uint8_t cl1_gen_to_bool(double v) { return v != 0.0; }

/* Element i of a non-softmax tensor before rounding: the dist's sample, and where xp > 0 (the
 * extreme verification variant) the elements whose otherwise unused fourth word falls below xp
 * moved away from xcenter by the factor xscale. xscale is a power of two (task.c's variants),
 * so the product is exact and a fused multiply-add gives what a multiply then an add gives. */
CL1_HD double cl1_gen_value(int dist, double a, double b, double xp, double xscale,
                            double xcenter, uint64_t seed, uint32_t tid, uint64_t i) {
  cl1_philox_out w = cl1_rng_words(seed, tid, i);
  double v = cl1_rng_sample_words(dist, a, b, w);
  if (xp > 0.0 && cl1_rng_u01(w.v[3]) < xp) v = xcenter + (v - xcenter) * xscale;
  return v;
}

#ifdef __cplusplus
extern "C" {
#endif
/* Fills dst_device (t->numel elements of t->dtype) on `stream` (a cudaStream_t, NULL for the
 * default stream). Asynchronous; returns 0 or the cudaError_t of the launch. */
int cl1_gen_cuda(const cl1_tinst *t, void *dst_device, uint64_t seed, uint32_t tid, void *stream);
#ifdef __cplusplus
}
#endif
#endif
