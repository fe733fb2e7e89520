/* 47_Sum_reduction_over_a_dimension.c — a correct host candidate for level1/47: sum over dim 1
 * of (B, D1, D2), one output at a time. */
#include <cudal1/solution.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const cl1_tensor *x = &c->inputs[0];
  int64_t B = x->shape[0], D1 = x->shape[1], D2 = x->shape[2];
  const float *in = x->data;
  float *out = c->outputs[0].data;
  for (int64_t b = 0; b < B; b++)
    for (int64_t k = 0; k < D2; k++) {
      double s = 0;
      for (int64_t j = 0; j < D1; j++) s += in[(b * D1 + j) * D2 + k];
      out[b * D2 + k] = (float)s;
    }
  return 0;
}
