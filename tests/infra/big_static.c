/* big_static.c — an honest ReLU (level1/19_ReLU, host) carrying 200 MiB of static scratch:
 * under the gate's 256 MiB segment limit, so a memory budget too small to map it is the
 * harness's failure (infra_error), never the candidate's (tests/test_infra.c). */
#include <cudal1/solution.h>

static volatile float scratch[50 << 20]; /* 200 MiB of bss; only the first element is touched */

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const cl1_tensor *x = &c->inputs[0];
  int64_t n = 1;
  for (int d = 0; d < x->ndim; d++) n *= x->shape[d];
  const float *in = x->data;
  float *out = c->outputs[0].data;
  scratch[0] = 0.f;
  for (int64_t i = 0; i < n; i++) out[i] = in[i] < 0.f ? scratch[0] : in[i];
  return 0;
}
