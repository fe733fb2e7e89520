/* rng.h — Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11),
 * a counter-based generator: element i of tensor t under seed s is a pure function of (s, t, i),
 * so host loops and GPU threads produce the same values in any order. Header-only; compiles as
 * C11 and as CUDA C++ (host and device). */
#ifndef CL1_RNG_H
#define CL1_RNG_H
#include <stdint.h>
#if !defined(__CUDACC__)
#include <math.h>
#endif

#if defined(__CUDACC__)
#define CL1_HD __host__ __device__ __forceinline__
#else
#define CL1_HD static inline
#endif

typedef struct { uint32_t v[4]; } cl1_philox_out;

CL1_HD uint32_t cl1_mulhilo32(uint32_t a, uint32_t b, uint32_t *hi) {
  uint64_t p = (uint64_t)a * (uint64_t)b;
  *hi = (uint32_t)(p >> 32);
  return (uint32_t)p;
}

/* Philox4x32 with 10 rounds; constants from the paper (same as Random123 / cuRAND). */
CL1_HD cl1_philox_out cl1_philox4x32(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3,
                                     uint32_t k0, uint32_t k1) {
  for (int r = 0; r < 10; r++) {
    uint32_t hi0, hi1;
    uint32_t lo0 = cl1_mulhilo32(0xD2511F53u, c0, &hi0);
    uint32_t lo1 = cl1_mulhilo32(0xCD9E8D57u, c2, &hi1);
    uint32_t n0 = hi1 ^ c1 ^ k0, n1 = lo1, n2 = hi0 ^ c3 ^ k1, n3 = lo0;
    c0 = n0; c1 = n1; c2 = n2; c3 = n3;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  cl1_philox_out o = {{c0, c1, c2, c3}};
  return o;
}

/* The four words for element i of tensor `tid` under `seed`. */
CL1_HD cl1_philox_out cl1_rng_words(uint64_t seed, uint32_t tid, uint64_t i) {
  return cl1_philox4x32((uint32_t)i, (uint32_t)(i >> 32), tid, 0x636C3175u /* "cl1u" */,
                        (uint32_t)seed, (uint32_t)(seed >> 32));
}

/* U[0,1) with 24 random bits: exactly representable in float, identical on host and device. */
CL1_HD double cl1_rng_u01(uint32_t w) { return (double)(w >> 8) * (1.0 / 16777216.0); }

/* Distribution kinds after a task's init is resolved to numbers (see task.h). */
enum {
  CL1_DIST_UNIFORM = 0, CL1_DIST_NORMAL, CL1_DIST_CONST, CL1_DIST_RANDINT, CL1_DIST_BERNOULLI,
  CL1_DIST_RADEMACHER,     /* +-1, each with probability 1/2 */
  CL1_DIST_SOFTMAX_NORMAL, /* normal(a, b) samples, softmax over each row of the last dim */
  CL1_DIST_SOFTMAX_UNIFORM /* uniform[a, b) samples, softmax over each row of the last dim */
};

/* The row-softmax kinds: cl1_rng_sample gives the sample before the softmax; the generators
 * (task/gen.c, task/gen_cuda.cu) normalise each row of the last dim in double: max shift,
 * sum of exp, exp(v - max) / sum. */
CL1_HD int cl1_rng_row_softmax(int kind) {
  return kind == CL1_DIST_SOFTMAX_NORMAL || kind == CL1_DIST_SOFTMAX_UNIFORM;
}

/* One sample as a double from element i's words (cl1_rng_sample draws them); the caller rounds
 * to the tensor's dtype. The dists read w.v[0] and w.v[1] only: w.v[3] is left to per-element
 * choices of the generators (the extreme verification variant, task/gen_cuda.h). Uniform,
 * randint, bernoulli and rademacher are bit-identical on host and device; normal may differ in
 * the last bit of a double (libm vs CUDA log/cos), which rounding to float almost always hides. */
CL1_HD double cl1_rng_sample_words(int kind, double a, double b, cl1_philox_out w) {
  switch (kind) {
  case CL1_DIST_UNIFORM:
  case CL1_DIST_SOFTMAX_UNIFORM: return a + (b - a) * cl1_rng_u01(w.v[0]);
  case CL1_DIST_NORMAL:
  case CL1_DIST_SOFTMAX_NORMAL: {
    /* Box-Muller on (0,1] x [0,1) from 32-bit words. */
    double u1 = ((double)w.v[0] + 1.0) * (1.0 / 4294967296.0);
    double u2 = (double)w.v[1] * (1.0 / 4294967296.0);
    return a + b * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
  }
  case CL1_DIST_CONST: return a;
  case CL1_DIST_RANDINT: { /* integers in [a, b) */
    uint64_t span = (uint64_t)(b - a);
    uint64_t r = ((uint64_t)w.v[1] << 32) | w.v[0];
    return a + (double)(span ? r % span : 0);
  }
  case CL1_DIST_BERNOULLI: return cl1_rng_u01(w.v[0]) < a ? 1.0 : 0.0;
  case CL1_DIST_RADEMACHER: return cl1_rng_u01(w.v[0]) < 0.5 ? 1.0 : -1.0;
  }
  return 0.0;
}

CL1_HD double cl1_rng_sample(int kind, double a, double b, uint64_t seed, uint32_t tid,
                             uint64_t i) {
  return cl1_rng_sample_words(kind, a, b, cl1_rng_words(seed, tid, i));
}

#endif
