/* huge_static.c — a solution with 320 MiB of static data, over the gate's 256 MiB segment limit:
 * rejected:size before it runs, so a solution that passes the gate always fits the memory
 * budget and failing to map it is the harness's fault (tests/test_infra.c). It never runs. */
#include <cudal1/solution.h>

static volatile char blob[320 << 20];

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  blob[c->n_inputs] = 1;
  return 0;
}
