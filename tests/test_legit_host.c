/* test_legit_host.c — a correct host candidate for every starter task passes (test shapes). */
#include "eval_cases.h"
#include <dirent.h>

int main(void) {
  th_case *cs;
  int n = th_manifest("tests/legit/manifest.txt", "host", "test", &cs);
  if (n <= 0) { fprintf(stderr, "tests/legit/manifest.txt: no host cases\n"); return 1; }
  return th_run_cases("legit_host", cs, n);
}
