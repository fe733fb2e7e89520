/* segfault.c — writes through a NULL pointer. Expected: crash (and the judge survives). */
#include <cudal1/solution.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  /* NULL in practice, but not provably so: the compiler must emit the store, not a trap */
  volatile float *p = (volatile float *)(c->workspace_bytes > (size_t)-2 ? c->workspace : 0);
  p[0] = 1.f;
  return 0;
}
