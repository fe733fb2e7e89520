/* test_python_gpu.c — KernelBench-format candidates (a Python ModelNew) through the hardened
 * evaluator on the GPU: the `cuda` lines of tests/python/manifest.txt (load_inline CUDA, a side
 * stream, Triton, and the host suite's classes), each with its verdict and the judge alive. */
#include "../eval_cases.h"

int main(void) {
  th_case *cs;
  int n = th_manifest("tests/python/manifest.txt", "cuda", "test", &cs);
  if (n <= 0) { fprintf(stderr, "tests/python/manifest.txt: no cuda cases\n"); return 1; }
  return th_run_cases("python_gpu", cs, n);
}
