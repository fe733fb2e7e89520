/* test_python_host.c — KernelBench-format candidates (a Python ModelNew) through the hardened
 * evaluator on the host backend: every line of tests/python/manifest.txt (a correct one, caching
 * by input address, a stale result, a mutated input, global numerics flags, a loop, a dead
 * interpreter, a syntax error, a missing package, a socket, a thread, params mapped by order and
 * refused, a load_inline kernel) gets its verdict from the real binary, the judge alive; and a
 * first call slower than the call limit, within a Python module's first-call allowance. */
#include "eval_cases.h"

int main(void) {
  th_case *cs;
  int n = th_manifest("tests/python/manifest.txt", "host", "test", &cs);
  if (n <= 0) { fprintf(stderr, "tests/python/manifest.txt: no host cases\n"); return 1; }
  /* a 2 s call limit, a 4 s first call: a Python module's first call gets 6x the limit */
  th_add_host_case(&cs, &n, "tests/python/host/relu_slow_first_call.py", "level1/19_ReLU", "pass",
                   "test", "--timeout 2");
  return th_run_cases("python_host", cs, n);
}
