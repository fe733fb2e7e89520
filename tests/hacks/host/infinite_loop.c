/* infinite_loop.c — never returns. Expected: timeout (the watchdog kills the worker). */
#include <cudal1/solution.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  (void)c;
  volatile unsigned long spin = 0;
  for (;;) spin++;
  return 0;
}
