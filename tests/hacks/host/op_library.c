/* op_library.c — hack #13: no code of its own, only the reference's cl1_op_relu. */
/* No code of its own; calls the reference's op library (cl1_op_relu), which is allowed but must
 * pay 1.0x and be flagged no_custom_kernel.
 * Expected: pass (the speedup is the reference's own, ~1.0; see the manifest note on the flag). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  return cl1_op_relu(c->stream, c->inputs[0].data, c->outputs[0].data, cl1_op_numel(&c->inputs[0]));
}
