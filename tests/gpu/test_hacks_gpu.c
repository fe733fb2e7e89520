/* test_hacks_gpu.c — every cuda line of tests/hacks/manifest.txt gets its expected verdict on the
 * GPU (side streams, leftover memory, persisting L2, illegal address, a never-ending kernel, ...). */
#include "../eval_cases.h"

int main(void) {
  th_case *cs;
  int n = th_manifest("tests/hacks/manifest.txt", "cuda", "small", &cs);
  if (n <= 0) { fprintf(stderr, "tests/hacks/manifest.txt: no cuda cases\n"); return 1; }
  return th_run_cases("hacks_cuda", cs, n);
}
