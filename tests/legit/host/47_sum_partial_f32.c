/* 47_sum_partial_f32.c — a correct host candidate for level1/47 that sums as a GPU kernel does:
 * eight float partial sums over dim 1, added pairwise. Its rounding differs from the
 * reference's; on the judge's `wide` inputs (100 times the spread) outputs that cancel to near
 * zero are off by ~1e-3 absolute, past the task's atol of 1e-4 unless the judge scales atol with
 * the outputs' magnitude (issue 18: three honest H200 kernels failed there before it did). */
#include <cudal1/solution.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const cl1_tensor *x = &c->inputs[0];
  int64_t B = x->shape[0], D1 = x->shape[1], D2 = x->shape[2];  // (B, D1, D2) -> (B, 1, D2)
  const float *in = x->data;
  float *out = c->outputs[0].data;
  for (int64_t b = 0; b < B; b++)
    for (int64_t k = 0; k < D2; k++) {
      float s[8] = {0};
      for (int64_t j = 0; j < D1; j++) s[j % 8] += in[(b * D1 + j) * D2 + k];
      out[b * D2 + k] = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    }
  return 0;
}
