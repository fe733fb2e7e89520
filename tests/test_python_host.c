/* test_python_host.c — KernelBench-format candidates (a Python ModelNew) through the hardened
 * evaluator on the host backend: every line of tests/python/manifest.txt (a correct one, caching
 * by input address, a stale result, a mutated input, global numerics flags, a loop, a dead
 * interpreter, a syntax error, a missing package, a socket, a thread, params mapped by order and
 * refused, a load_inline kernel) gets its verdict from the real binary, the judge alive; a
 * first call slower than the call limit, within a Python module's first-call allowance; and a
 * BatchNorm folded with its running statistics, a pass on a task imported with --mode eval. */
#include "eval_cases.h"

/* tests/python/problems/3_Conv_BN.py imported with --mode eval into DIR/task; 0 or -1 with the
 * importer's output on stderr. */
static int import_eval_mode(const char *dir, char *task, size_t n) {
  char cmd[1024], out[4096];
  snprintf(task, n, "%s/task", dir);
  snprintf(cmd, sizeof cmd, "%s/cudal1 task import tests/python/problems/3_Conv_BN.py %s "
           "--mode eval 2>&1", th_build(), task);
  if (!th_run(cmd, out, sizeof out)) return 0;
  fprintf(stderr, "%s: %s", cmd, out);
  return -1;
}

int main(void) {
  th_case *cs;
  int n = th_manifest("tests/python/manifest.txt", "host", "test", &cs);
  if (n <= 0) { fprintf(stderr, "tests/python/manifest.txt: no host cases\n"); return 1; }
  /* a 2 s call limit, a 4 s first call: a Python module's first call gets 6x the limit */
  th_add_host_case(&cs, &n, "tests/python/host/relu_slow_first_call.py", "level1/19_ReLU", "pass",
                   "test", "--timeout 2");
  const char *dir = th_tmpdir();
  char eval_task[300];
  if (!dir || import_eval_mode(dir, eval_task, sizeof eval_task)) return 1;
  th_add_host_case(&cs, &n, "tests/python/common/conv_bn_folded.py", eval_task, "pass", "test", "");
  int rc = th_run_cases("python_host", cs, n);
  char rm[400];
  snprintf(rm, sizeof rm, "rm -rf %s", dir);
  if (th_run(rm, NULL, 0)) fprintf(stderr, "could not remove %s\n", dir);
  return rc;
}
