/* cmd_task.c — `cudal1 task check TASK...`: validates tasks (each a suite id, a task folder or its
 * task.json); one line per task. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "task/task.h"

static const char usage[] =
    "usage: cudal1 task check TASK...\n"
    "Loads and validates each TASK (a suite id like level1/19_ReLU, a task folder or its\n"
    "task.json) and resolves it at every shape set: \"ok ID\" per good task, the file and field\n"
    "of each error. Exit status 2 if any task is bad.\n";

int cl1_cmd_task(int argc, char **argv) {
  if (cl1_cli_help(argc, argv, usage)) return 0;
  if (argc < 2) { fputs(usage, stderr); return 2; }
  if (strcmp(argv[1], "check")) return cl1_cli_verb("task", argv[1], "check");
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
