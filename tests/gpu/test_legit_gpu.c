/* test_legit_gpu.c — a correct, fast CUDA candidate for every starter task passes on the GPU at
 * small shapes (and each cuda line of tests/legit/manifest.txt). */
#include "../eval_cases.h"

int main(void) {
  th_case *cs;
  int n = th_manifest("tests/legit/manifest.txt", "cuda", "small", &cs);
  if (n <= 0) { fprintf(stderr, "tests/legit/manifest.txt: no cuda cases\n"); return 1; }
  return th_run_cases("legit_cuda", cs, n);
}
