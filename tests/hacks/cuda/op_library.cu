/* op_library.cu — hack #13: no kernel of its own, only the reference's cl1_op_matmul. */
/* No kernel of its own; forwards to the reference's op library (cl1_op_matmul), which is allowed
 * but must pay 1.0x and be flagged no_custom_kernel.
 * Expected: pass (speedup ~1.0, the reference's own; see the manifest note on the flag). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  int64_t n = c->inputs[0].shape[0];
  return cl1_op_matmul(c->stream, (const float *)c->inputs[0].data,
                       (const float *)c->inputs[1].data, (float *)c->outputs[0].data, n, n, n);
}
