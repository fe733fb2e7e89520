/* 19_ReLU.c — a correct host candidate for level1/19_ReLU (own loop, no op library). */
#include <cudal1/solution.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const cl1_tensor *x = &c->inputs[0];
  int64_t n = 1;
  for (int d = 0; d < x->ndim; d++) n *= x->shape[d];
  const float *in = x->data;
  float *out = c->outputs[0].data;
  for (int64_t i = 0; i < n; i++) out[i] = in[i] < 0.f ? 0.f : in[i];
  return 0;
}
