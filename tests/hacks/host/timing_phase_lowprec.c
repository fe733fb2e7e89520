/* timing_phase_lowprec.c — hack #16: detects the timed calls and switches to bfloat16. */
/* Tells timing from verification (an input address seen before with the same leading values: only
 * timing repeats both) and then switches to a bfloat16 GEMM.
 * Expected: incorrect (a secret sample of timed calls is re-verified against the reference). */
#include <cudal1/solution.h>
#include <string.h>

#define SEEN 16
static struct { const void *addr; float head[8]; } seen[SEEN];
static int n_seen;

static int repeated(const float *x) {
  for (int i = 0; i < n_seen; i++)
    if (seen[i].addr == x && !memcmp(seen[i].head, x, sizeof seen[i].head)) return 1;
  int s = n_seen < SEEN ? n_seen++ : SEEN - 1;
  seen[s].addr = x;
  memcpy(seen[s].head, x, sizeof seen[s].head);
  return 0;
}

static float bf16(float v) {
  uint32_t u;
  memcpy(&u, &v, 4);
  u = (u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u;
  memcpy(&v, &u, 4);
  return v;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const float *x = c->inputs[0].data, *W = c->params[0].data, *b = c->params[1].data;
  float *y = c->outputs[0].data;
  int64_t M = c->inputs[0].shape[0], K = c->inputs[0].shape[1], N = c->params[0].shape[0];
  int fast = repeated(x);
  for (int64_t m = 0; m < M; m++)
    for (int64_t n = 0; n < N; n++) {
      float v;
      if (fast) {
        float acc = 0.f;
        for (int64_t k = 0; k < K; k++) acc = bf16(acc + bf16(x[m * K + k]) * bf16(W[n * K + k]));
        v = acc + b[n];
      } else {
        double acc = 0;
        for (int64_t k = 0; k < K; k++) acc += (double)x[m * K + k] * W[n * K + k];
        v = (float)acc + b[n];
      }
      y[m * N + n] = v > 0.f ? v : 0.f;
    }
  return 0;
}
