/* compile_error.c — a syntax error. Expected: compile_error with the compiler's diagnostics. */
#include <cudal1/solution.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  float *y = c->outputs[0].data
  y[0] = 0.f;
  return 0;
}
