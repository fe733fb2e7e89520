/* cmd_task.c — `cudal1 task check TASK...`: validates tasks (each a suite id, a task folder or its
 * task.json); one line per task. `cudal1 task import PROBLEM.py DIR`: a KernelBench problem as a
 * task folder (src/eval/pytask.h). */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "eval/pytask.h"
#include "task/task.h"

static const char usage_check[] =
    "usage: cudal1 task check TASK...\n"
    "Loads and validates each TASK (a suite id like level1/19_ReLU, a task folder or its\n"
    "task.json, or a KernelBench problem .py, imported first) and resolves it at every shape\n"
    "set: \"ok ID\" per good task, the file and field of each error. Exit status 2 if any task\n"
    "is bad.\n";

static const char usage_import[] =
    "usage: cudal1 task import PROBLEM.py DIR [--set NAME:dim=v,...] [--level L] [--number N]\n"
    "                          [--name NAME] [--atol A] [--rtol R] [--mode train|eval]\n"
    "Makes DIR a task whose reference is PROBLEM.py, a KernelBench problem (class Model,\n"
    "get_inputs(), get_init_inputs()). The problem runs once per shape set, confined to DIR: its\n"
    "module-level integers are the dims (small and large: as written; --set test:batch_size=2\n"
    "rebinds them for a set; --set may be repeated), shapes and dtypes come from that run, each\n"
    "input's distribution from the generator that made it (torch.randn: normal, torch.rand:\n"
    "uniform; else from its values), the params are the module's float state drawn as its\n"
    "initialisation drew them. --level (1-3, default 1), --number (default: the file's leading\n"
    "number), --name (default: the file's stem). Tolerance 1e-4 (1e-2 with half types) unless\n"
    "--atol/--rtol. --mode: train (default, as KernelBench's harness, which never calls .eval():\n"
    "BatchNorm normalises by the batch's statistics) or eval (both modules in eval mode, as for\n"
    "inference: BatchNorm uses its running statistics, dropout is off). Every command taking a\n"
    "task takes PROBLEM.py too: imported the same way, once, into the cache.\n"
    "Exit 1 with the reason when the problem cannot be a task.\n";

static const char usage[] =
    "usage: cudal1 task check TASK...\n"
    "       cudal1 task import PROBLEM.py DIR [options]\n"
    "check: validates tasks (cudal1 task check --help); import: a KernelBench problem as a task\n"
    "folder (cudal1 task import --help).\n";

static int task_import(int argc, char **argv) {
  if (cl1_cli_help(argc, argv, usage_import)) return 0;
  static const char *const opts[] = {"--set", "--level", "--number", "--name", "--atol", "--rtol",
                                     "--mode", NULL};
  const char *pos[2] = {NULL, NULL};
  char *extra[64];
  int n_pos = 0, n_extra = 0;
  for (int i = 2; i < argc; i++) {
    if (argv[i][0] != '-') {
      if (n_pos == 2) return cl1_cli_unknown("task import", argv[i]);
      pos[n_pos++] = argv[i];
      continue;
    }
    int known = 0;
    for (int k = 0; opts[k]; k++) known |= !strcmp(argv[i], opts[k]);
    if (!known) return cl1_cli_unknown("task import", argv[i]);
    if (i + 1 >= argc) {
      fprintf(stderr, "cudal1 task import: %s needs a value\n", argv[i]);
      return 2;
    }
    if (n_extra + 2 > 64) return cl1_cli_unknown("task import", argv[i]);
    extra[n_extra++] = argv[i], extra[n_extra++] = argv[++i];
  }
  if (n_pos < 2) {
    fputs("cudal1 task import: give PROBLEM.py and DIR (see cudal1 task import --help)\n", stderr);
    return 2;
  }
  cl1_err err = {{0}};
  int rc = cl1_pytask_import(pos[0], pos[1], extra, n_extra, &err);
  if (rc) {
    fprintf(stderr, "cudal1 task import: %s\n", err.msg);
    return rc > 0 ? 1 : 3;
  }
  printf("imported %s as the task in %s\n", pos[0], pos[1]);
  return 0;
}

int cl1_cmd_task(int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "import")) return task_import(argc, argv);
  if (argc >= 2 && !strcmp(argv[1], "check") && cl1_cli_help(argc, argv, usage_check)) return 0;
  if (cl1_cli_help(argc, argv, usage)) return 0;
  if (argc < 2) { fputs(usage, stderr); return 2; }
  if (strcmp(argv[1], "check")) return cl1_cli_verb("task", argv[1], "check, import");
  for (int i = 2; i < argc; i++)
    if (argv[i][0] == '-') return cl1_cli_unknown("task check", argv[i]);
  if (argc < 3) { fputs("cudal1 task check: name at least one task (see cudal1 task check --help)\n", stderr); return 2; }
  int bad = 0;
  for (int i = 2; i < argc; i++) {
    cl1_err err = {{0}};
    cl1_task_ref ref;
    if (cl1_cli_task("task check", argv[i], &ref)) {
      bad++;
      continue;
    }
    const cl1_task *t = ref.task;
    int ok = 1;
    for (int s = 0; s < CL1_SHAPES_N && ok; s++) {
      cl1_inst in;
      if (cl1_task_instance(t, s, &in, &err)) { fprintf(stderr, "%s\n", err.msg); ok = 0; }
    }
    if (ok) printf("ok %s (%d inputs, %d params, %d outputs)\n", t->id, t->n_inputs, t->n_params, t->n_outputs);
    else bad++;
    cl1_task_ref_release(&ref);
  }
  return bad ? 2 : 0;
}
