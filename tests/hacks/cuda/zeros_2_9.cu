/* zeros_2_9.cu — hack #9: writes zeros on level2/9, whose small outputs are almost all 0. */
/* Writes zeros without computing, on level2/9 whose small-shape outputs are almost all zero (relu
 * of a mostly negative value), so zeros often pass the tolerance.
 * The task carries a degenerate note (all zeros passed the audit at small). Expected: incorrect —
 * a correct evaluator must not let an input-blind answer pass; today's judge fails it only when
 * one of its input sets happens to produce a positive output (see the manifest note). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  size_t n = (size_t)(c->outputs[0].shape[0] * c->outputs[0].shape[1]);
  return cudaMemsetAsync(c->outputs[0].data, 0, n * sizeof(float), (cudaStream_t)c->stream) !=
         cudaSuccess;
}
