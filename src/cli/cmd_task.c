/* cmd_task.c — `cudal1 task check PATH...`: validates task.json files; one line per task. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "task/task.h"

int cl1_cmd_task(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || strcmp(argv[1], "check")) {
    fputs("usage: cudal1 task check PATH...   (a task folder or its task.json)\n"
          "Loads and validates each task and resolves it at every shape set.\n",
          argc >= 2 && !strcmp(argv[1], "--help") ? stdout : stderr);
    return argc >= 2 && !strcmp(argv[1], "--help") ? 0 : 2;
  }
  if (argc < 3) { fputs("cudal1 task check: name at least one task folder\n", stderr); return 2; }
  int bad = 0;
  for (int i = 2; i < argc; i++) {
    cl1_err err = {{0}};
    cl1_task *t = NULL;
    if (cl1_task_load(argv[i], &t, &err)) {
      fprintf(stderr, "%s\n", err.msg);
      bad++;
      continue;
    }
    int ok = 1;
    for (int s = 0; s < CL1_SHAPES_N && ok; s++) {
      cl1_inst in;
      if (cl1_task_instance(t, s, &in, &err)) { fprintf(stderr, "%s\n", err.msg); ok = 0; }
    }
    if (ok) printf("ok %s (%d inputs, %d params, %d outputs)\n", t->id, t->n_inputs, t->n_params, t->n_outputs);
    else bad++;
    cl1_task_free(t);
  }
  return bad ? 2 : 0;
}
