/* test_hacks_host.c — every host line of tests/hacks/manifest.txt gets its expected verdict
 * from the real `cudal1 eval` (thread, input mutation, caches, batch-and-skip, partial writes,
 * forbidden symbols, segfault, infinite loop, allocation bomb, ...), and the judge survives. */
#include "eval_cases.h"

int main(void) {
  th_case *cs;
  int n = th_manifest("tests/hacks/manifest.txt", "host", "test", &cs);
  if (n <= 0) { fprintf(stderr, "tests/hacks/manifest.txt: no host cases\n"); return 1; }
  return th_run_cases("hacks_host", cs, n);
}
