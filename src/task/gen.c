/* gen.c — input/param generation on the host: each element is cl1_gen_value (gen_cuda.h: the
 * sample cl1_rng_sample(seed, tensor id, index), with the extreme variant's per-element rule)
 * rounded to the tensor's dtype (for the row-softmax dists, the softmax over its row of the last
 * dim of the samples, in double). Half and bfloat16 rounding is done here in integer bit
 * code (round-to-nearest-even) so the host gets exactly what gen_cuda.cu's intrinsics give. */
#include <assert.h>
#include <math.h>
#include <string.h>
#include "../base/rng.h"
#include "gen_cuda.h"
#include "task.h"

static uint32_t f32_bits(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  return x;
}

static float f32_from_bits(uint32_t x) {
  float f;
  memcpy(&f, &x, sizeof f);
  return f;
}

uint16_t cl1_f16_from_f32(float f) {
  uint32_t x = f32_bits(f);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) /* inf stays inf; NaN becomes the canonical quiet NaN */
    return (uint16_t)(sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u));
  int e = (int)(ax >> 23);                 /* biased float exponent */
  uint32_t mant = ax & 0x7fffffu;
  if (e > 142) return (uint16_t)(sign | 0x7c00u); /* >= 2^16: beyond half's range */
  if (e >= 113) {                          /* a normal half: |f| >= 2^-14 */
    uint32_t h = ((uint32_t)(e - 112) << 10) | (mant >> 13), rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++; /* carries into inf correctly */
    return (uint16_t)(sign | h);
  }
  /* A subnormal half counts units of 2^-24: |f| / 2^-24 = m * 2^(e - 126), m with its implicit 1. */
  int shift = 126 - e;
  if (shift > 24) return sign;             /* below 2^-25: rounds to zero */
  uint32_t m = mant | (e ? 0x800000u : 0u);
  uint32_t h = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1);
  if (rem > half || (rem == half && (h & 1u))) h++; /* may become the smallest normal: right */
  return (uint16_t)(sign | h);
}

uint16_t cl1_bf16_from_f32(float f) {
  uint32_t x = f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

float cl1_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1f) return f32_from_bits(sign | 0x7f800000u | (m << 13));
  if (e) return f32_from_bits(sign | ((e + 112u) << 23) | (m << 13));
  if (!m) return f32_from_bits(sign);
  float v = (float)m * (1.0f / 16777216.0f); /* exact: m < 2^10 units of 2^-24 */
  return sign ? -v : v;
}

float cl1_bf16_to_f32(uint16_t h) { return f32_from_bits((uint32_t)h << 16); }

/* One value of a row-softmax dist: element i of a row starting at row0 (cols long) is
 * exp(v_i - max) / sum exp(v_j - max) over the row's samples, in double. The counter-based
 * generator lets each pass recompute the samples instead of buffering them. */
static void row_stats(int d, double a, double b, uint64_t seed, uint32_t tid, int64_t row0,
                      int64_t cols, double *max, double *sum) {
  double m = -INFINITY, s = 0;
  for (int64_t j = 0; j < cols; j++) {
    double v = cl1_rng_sample(d, a, b, seed, tid, (uint64_t)(row0 + j));
    if (v > m) m = v;
  }
  for (int64_t j = 0; j < cols; j++)
    s += exp(cl1_rng_sample(d, a, b, seed, tid, (uint64_t)(row0 + j)) - m);
  *max = m, *sum = s;
}

static double softmax_value(int d, double a, double b, uint64_t seed, uint32_t tid, int64_t i,
                            double max, double sum) {
  return exp(cl1_rng_sample(d, a, b, seed, tid, (uint64_t)i) - max) / sum;
}

void cl1_gen_host(const cl1_tinst *t, void *dst, uint64_t seed, uint32_t tid) {
  int64_t n = t->numel;
  int d = t->dist;
  double a = t->a, b = t->b, xp = t->extreme_p, xs = t->extreme_scale, xc = t->extreme_center;
  /* rows of the last dim (a 0-dim tensor is one row of one) for the row-softmax dists */
  int64_t cols = t->ndim > 0 ? t->shape[t->ndim - 1] : 1;
  double rmax = 0, rsum = 1;
#define CL1_GEN_LOOP(T, CONV)                                                                 \
  for (int64_t i = 0; i < n; i++) {                                                           \
    if (!cl1_rng_row_softmax(d)) {                                                            \
      ((T *)dst)[i] = CONV(cl1_gen_value(d, a, b, xp, xs, xc, seed, tid, (uint64_t)i));       \
      continue;                                                                               \
    }                                                                                         \
    if (i % cols == 0) row_stats(d, a, b, seed, tid, i, cols, &rmax, &rsum);                  \
    ((T *)dst)[i] = CONV(softmax_value(d, a, b, seed, tid, i, rmax, rsum));                   \
  }
#define CL1_AS_F32(v) ((float)(v))
#define CL1_AS_F16(v) cl1_f16_from_f32((float)(v))
#define CL1_AS_BF16(v) cl1_bf16_from_f32((float)(v))
#define CL1_AS_F64(v) (v)
  switch (t->dtype) {
  case CL1_F32: CL1_GEN_LOOP(float, CL1_AS_F32); break;
  case CL1_F16: CL1_GEN_LOOP(uint16_t, CL1_AS_F16); break;
  case CL1_BF16: CL1_GEN_LOOP(uint16_t, CL1_AS_BF16); break;
  case CL1_F64: CL1_GEN_LOOP(double, CL1_AS_F64); break;
  case CL1_I32: CL1_GEN_LOOP(int32_t, cl1_gen_to_i32); break;
  case CL1_I64: CL1_GEN_LOOP(int64_t, cl1_gen_to_i64); break;
  case CL1_U8: CL1_GEN_LOOP(uint8_t, cl1_gen_to_u8); break;
  case CL1_BOOL: CL1_GEN_LOOP(uint8_t, cl1_gen_to_bool); break;
  default: assert(!"cl1_gen_host: unknown dtype"); /* instances only hold known dtypes */
  }
#undef CL1_GEN_LOOP
#undef CL1_AS_F32
#undef CL1_AS_F16
#undef CL1_AS_BF16
#undef CL1_AS_F64
}

void cl1_tensor_of(cl1_tensor *t, const cl1_tinst *ti, void *data) {
  memset(t, 0, sizeof *t);
  t->data = data;
  t->dtype = ti->dtype;
  t->ndim = ti->ndim;
  int64_t st = 1;
  for (int d = ti->ndim - 1; d >= 0; d--) {
    t->shape[d] = ti->shape[d];
    t->stride[d] = st;
    st *= ti->shape[d];
  }
}
