/* bf16_gemm.c — hack #12: Gemm+bias+ReLU with bfloat16 operands and running sum. */
/* Gemm+bias+ReLU with operands and the running sum rounded to bfloat16 (8-bit mantissa), far
 * beyond the task's 1e-3 tolerance.
 * Expected: incorrect (the error is reported, not only the pass/fail). */
#include <cudal1/solution.h>
#include <string.h>

static float bf16(float v) {
  uint32_t u;
  memcpy(&u, &v, 4);
  u = (u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u; /* round to nearest even */
  memcpy(&v, &u, 4);
  return v;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const float *x = c->inputs[0].data, *W = c->params[0].data, *b = c->params[1].data;
  float *y = c->outputs[0].data;
  int64_t M = c->inputs[0].shape[0], K = c->inputs[0].shape[1], N = c->params[0].shape[0];
  for (int64_t m = 0; m < M; m++)
    for (int64_t n = 0; n < N; n++) {
      float acc = 0.f;
      for (int64_t k = 0; k < K; k++) acc = bf16(acc + bf16(x[m * K + k]) * bf16(W[n * K + k]));
      float v = bf16(acc + b[n]);
      y[m * N + n] = v > 0.f ? v : 0.f;
    }
  return 0;
}
