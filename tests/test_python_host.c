/* test_python_host.c — KernelBench-format candidates (a Python ModelNew) through the hardened
 * evaluator on the host backend: every line of tests/python/manifest.txt (a correct one, caching
 * by input address, a stale result, a mutated input, global numerics flags, a loop, a dead
 * interpreter, a syntax error, a missing package, a socket, a thread, params mapped by order and
 * refused, a load_inline kernel) gets its verdict from the real binary, the judge alive. */
#include "eval_cases.h"

int main(void) {
  th_case *cs;
  int n = th_manifest("tests/python/manifest.txt", "host", "test", &cs);
  if (n <= 0) { fprintf(stderr, "tests/python/manifest.txt: no host cases\n"); return 1; }
  return th_run_cases("python_host", cs, n);
}
