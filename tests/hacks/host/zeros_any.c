/* zeros_any.c — hack #9: writes zeros to every output without reading the inputs. On a task
 * whose outputs all-zeros fit within tolerance (level3/24: TF32-sized tolerance, logits of
 * ~1e-2) it passes verification; the judge sees its outputs identical for two input sets whose
 * reference outputs differ (input_insensitive) and the reward pays at most 1.0x. */
#include <cudal1/solution.h>
#include <string.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  for (int k = 0; k < c->n_outputs; k++) {
    size_t n = 4;
    for (int i = 0; i < c->outputs[k].ndim; i++) n *= (size_t)c->outputs[k].shape[i];
    memset(c->outputs[k].data, 0, n);
  }
  return 0;
}
