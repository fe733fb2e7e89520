/* cli_args.c — what every command and verb of the cudal1 binary does alike with its arguments,
 * so a newcomer meets one behaviour everywhere: --help (or -h) anywhere prints that usage on
 * stdout and does nothing else; an unknown option or verb is one line pointing at the right
 * --help; a task argument goes through the one resolver (cl1_task_resolve). */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "eval/pybuild.h"
#include "eval/pytask.h"

bool cl1_cli_help(int argc, char **argv, const char *usage) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(usage, stdout);
      return true;
    }
  return false;
}

int cl1_cli_unknown(const char *cmd, const char *arg) {
  fprintf(stderr, "cudal1 %s: %s '%s' (see cudal1 %s --help)\n", cmd,
          arg[0] == '-' ? "unknown option" : "unexpected argument", arg, cmd);
  return 2;
}

int cl1_cli_verb(const char *cmd, const char *verb, const char *verbs) {
  if (!verb)
    fprintf(stderr, "cudal1 %s: which one: %s? (see cudal1 %s --help)\n", cmd, verbs, cmd);
  else
    fprintf(stderr, "cudal1 %s: unknown verb '%s', expected %s (see cudal1 %s --help)\n", cmd, verb,
            verbs, cmd);
  return 2;
}

int cl1_cli_task(const char *cmd, const char *arg, cl1_task_ref *ref) {
  cl1_err err = {{0}};
  char dir[4096];
  if (cl1_pybuild_is_python(arg)) { /* a KernelBench problem: imported once, by content */
    int pr = cl1_pytask_cached(arg, NULL, dir, sizeof dir, &err);
    if (pr) {
      fprintf(stderr, "cudal1 %s: %s\n", cmd, err.msg);
      return 2;
    }
    arg = dir;
  }
  int rc = cl1_task_resolve(cl1_suite_root(), arg, ref, &err);
  if (rc == 1)
    fprintf(stderr, "cudal1 %s: no task '%s' (a suite id like level1/19_ReLU, a task folder, or a "
                    "task.json; see cudal1 suite list)\n", cmd, arg);
  else if (rc)
    fprintf(stderr, "cudal1 %s: %s\n", cmd, err.msg);
  return rc ? 2 : 0;
}
