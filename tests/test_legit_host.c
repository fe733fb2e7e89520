/* test_legit_host.c — a correct host candidate for every starter task passes (test shapes), and the
 * cases a manifest line cannot say. */
#include "eval_cases.h"
#include <dirent.h>

int main(void) {
  th_case *cs;
  int n = th_manifest("tests/legit/manifest.txt", "host", "test", &cs);
  if (n <= 0) { fprintf(stderr, "tests/legit/manifest.txt: no host cases\n"); return 1; }
  /* float partial sums, honest: within tolerance on the `wide` check only because the judge
     scales atol with the outputs there (at test shapes the sum is too short to tell) */
  th_add_host_case(&cs, &n, "tests/legit/host/47_sum_partial_f32.c",
                   "level1/47_Sum_reduction_over_a_dimension", "pass", "small", "");
  return th_run_cases("legit_host", cs, n);
}
