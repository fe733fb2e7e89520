/* leftover_no_write.cu — hack #5: writes nothing, hoping for the reference's output. */
/* Returns without writing anything, hoping the output buffer is one the reference has just filled
 * with the same answer.
 * Expected: incorrect (separate processes; the candidate's outputs are poisoned before every
 * call, so nothing left over can pass). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  (void)c;
  return 0;
}
