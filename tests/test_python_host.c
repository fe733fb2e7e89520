/* test_python_host.c — KernelBench-format candidates (a Python ModelNew) through the hardened
 * evaluator on the host backend: every line of tests/python/manifest.txt (a correct one, caching
 * by input address, a stale result, a mutated input, global numerics flags, a loop, a dead
 * interpreter, a syntax error, a missing package, a socket, a thread, params mapped by order and
 * refused, a load_inline kernel) gets its verdict from the real binary, the judge alive; a
 * first call slower than the call limit, within a Python module's first-call allowance; and a
 * BatchNorm folded with its running statistics, a pass on a task imported with --mode eval. */
#include "eval_cases.h"

/* tests/python/problems/3_Conv_BN.py imported with --mode eval into a fresh folder (in dir). */
static int import_eval_mode(char *dir, size_t n) {
  char tmpl[] = "/tmp/cl1-evalmode.XXXXXX";
  if (!mkdtemp(tmpl)) return -1;
  snprintf(dir, n, "%s/task", tmpl);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "build/cudal1 task import tests/python/problems/3_Conv_BN.py %s "
           "--mode eval > /dev/null", dir);
  return system(cmd) ? -1 : 0;
}

int main(void) {
  th_case *cs;
  int n = th_manifest("tests/python/manifest.txt", "host", "test", &cs);
  if (n <= 0) { fprintf(stderr, "tests/python/manifest.txt: no host cases\n"); return 1; }
  /* a 2 s call limit, a 4 s first call: a Python module's first call gets 6x the limit */
  th_add_host_case(&cs, &n, "tests/python/host/relu_slow_first_call.py", "level1/19_ReLU", "pass",
                   "test", "--timeout 2");
  char eval_task[256];
  if (import_eval_mode(eval_task, sizeof eval_task)) {
    fprintf(stderr, "cudal1 task import --mode eval of tests/python/problems/3_Conv_BN.py failed\n");
    return 1;
  }
  th_add_host_case(&cs, &n, "tests/python/common/conv_bn_folded.py", eval_task, "pass", "test", "");
  int rc = th_run_cases("python_host", cs, n);
  char rm[600];
  snprintf(rm, sizeof rm, "rm -rf '%.*s'", (int)(strrchr(eval_task, '/') - eval_task), eval_task);
  if (system(rm)) fprintf(stderr, "could not remove the folder of %s\n", eval_task);
  return rc;
}
