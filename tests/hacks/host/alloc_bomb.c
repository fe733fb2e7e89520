/* alloc_bomb.c — allocates 1 GiB after 1 GiB, touching every page, and keeps writing even when
 * malloc fails (through the NULL it returned). Expected: crash (memory limit: either the NULL
 * write or the watchdog's RSS kill). */
#include <cudal1/solution.h>
#include <stdlib.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  (void)c;
  const size_t chunk = (size_t)1 << 30;
  for (;;) {
    volatile char *p = malloc(chunk);
    for (size_t i = 0; i < chunk; i += 4096) p[i] = 1;   /* NULL after the limit: faults */
  }
  return 0;
}
