/* cmd_suite.c — `cudal1 suite list|show|export|audit`: the tasks that ship with cudal1 (audit:
 * cmd_audit.c). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "eval/export.h"
#include "task/task.h"

static const char help[] =
    "usage: cudal1 suite list [--level N]\n"
    "       cudal1 suite show TASK\n"
    "       cudal1 suite export TASK --shapes test|small|large --seed K [--device host|cuda]\n"
    "                           [--variant off_default|offset|wide|extreme] DIR\n"
    "       cudal1 suite audit [--level N] [TASK...] [--shapes S] [--device D] [--json F] [--apply]\n"
    "TASK: a suite id (level1/19_ReLU), a task folder or its task.json.\n"
    "export writes DIR/meta.json and .npy files: inputs (seed K+1), params (seed K) and the\n"
    "reference's outputs, computed on the chosen backend (default host); --variant draws them\n"
    "under a verification variant (docs/verify-variants.md).\n"
    "Run `cudal1 suite VERB --help` for one verb.\n";

static const char list_help[] =
    "usage: cudal1 suite list [--level N]\n"
    "The suite's tasks in natural order, one a line: id, [degenerate] if the task carries an\n"
    "audit note, description. --level 1, 2 or 3: that level only.\n";

static const char show_help[] =
    "usage: cudal1 suite show TASK\n"
    "TASK (a suite id like level1/19_ReLU, a task folder or its task.json): its folder, tolerance\n"
    "and, per shape set, the dims, the tensors' shapes and sizes, and its notes.\n";

static const char export_help[] =
    "usage: cudal1 suite export TASK --shapes test|small|large --seed K [--device host|cuda]\n"
    "                           [--variant off_default|offset|wide|extreme] DIR\n"
    "Writes DIR/meta.json and .npy files for TASK (a suite id, a task folder or its task.json) at\n"
    "one shape set: inputs (seed K+1), params (seed K) and the reference's outputs, computed on\n"
    "the chosen backend (default host); --variant draws them under a verification variant\n"
    "(docs/verify-variants.md).\n";

static int cmp_str(const void *a, const void *b) {
  /* natural order: level1/2_x before level1/10_y */
  const char *x = *(char *const *)a, *y = *(char *const *)b;
  const char *sx = strrchr(x, '/'), *sy = strrchr(y, '/');
  int c = strncmp(x, y, (size_t)(sx - x) < (size_t)(sy - y) ? (size_t)(sx - x) : (size_t)(sy - y));
  if (c) return c;
  long nx = atol(sx + 1), ny = atol(sy + 1);
  return nx != ny ? (nx > ny) - (nx < ny) : strcmp(x, y);
}

int cl1_cli_suite_tasks(int level, char **paths, int max) {
  const char *root = cl1_suite_root();
  int n = 0;
  for (int lv = 1; lv <= 3; lv++) {
    if (level && lv != level) continue;
    char d[4096];
    snprintf(d, sizeof d, "%s/level%d", root, lv);
    DIR *dir = opendir(d);
    if (!dir) continue;
    struct dirent *e;
    while ((e = readdir(dir)) && n < max) {
      if (e->d_name[0] == '.') continue;
      char p[4400];
      snprintf(p, sizeof p, "%s/%s/task.json", d, e->d_name);
      FILE *f = fopen(p, "r");
      if (!f) continue;
      fclose(f);
      paths[n++] = strdup(p);
    }
    closedir(dir);
  }
  qsort(paths, (size_t)n, sizeof *paths, cmp_str);
  return n;
}

static int list(int argc, char **argv) {
  long long level = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--level")) return cl1_cli_unknown("suite list", argv[i]);
    if (cl1_cli_int("--level", i + 1 < argc ? argv[++i] : NULL, 1, 3, &level)) return 2;
  }
  const char *root = cl1_suite_root();
  char *paths[1024];
  int n = cl1_cli_suite_tasks((int)level, paths, 1024);
  int bad = 0;
  for (int i = 0; i < n; i++) {
    cl1_err err = {{0}};
    cl1_task *t;
    if (cl1_task_load(paths[i], &t, &err)) { fprintf(stderr, "%s\n", err.msg); bad++; }
    else {
      printf("%-58s %s%s\n", t->id, t->degenerate ? "[degenerate] " : "", t->description);
      cl1_task_free(t);
    }
    free(paths[i]);
  }
  if (!n) fprintf(stderr, "cudal1 suite: no tasks under %s\n", root);
  return bad ? 2 : 0;
}

static void show_tensors(const char *what, const cl1_tinst *t, int n) {
  for (int i = 0; i < n; i++) {
    printf("  %-7s %-16s %-4s [", what, t[i].name, cl1_dtype_name(t[i].dtype));
    for (int d = 0; d < t[i].ndim; d++) printf("%s%lld", d ? ", " : "", (long long)t[i].shape[d]);
    printf("]\n");
  }
}

static int show(int argc, char **argv) {
  const char *id = NULL;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-' || id) return cl1_cli_unknown("suite show", argv[i]);
    id = argv[i];
  }
  if (!id) {
    fprintf(stderr, "cudal1 suite show: which task? (see cudal1 suite show --help)\n");
    return 2;
  }
  cl1_task_ref ref;
  if (cl1_cli_task("suite show", id, &ref)) return 2;
  cl1_err err = {{0}};
  const cl1_task *t = ref.task;
  const char *dir = ref.dir;
  printf("%s — %s\nfolder: %s\ntolerance: atol %g, rtol %g\n", t->id, t->description, dir,
         t->atol, t->rtol);
  for (int s = 0; s < CL1_SHAPES_N; s++) {
    cl1_inst in;
    if (cl1_task_instance(t, s, &in, &err)) { fprintf(stderr, "%s\n", err.msg); continue; }
    printf("%s:", cl1_shapes_name(s));
    for (int i = 0; i < t->n_dims; i++) printf(" %s=%lld", t->dim_names[i], (long long)t->dims[s][i]);
    printf("   (%.1f MiB in, %.1f MiB out)\n", in.in_bytes / 1048576.0, in.out_bytes / 1048576.0);
    show_tensors("input", in.inputs, in.n_inputs);
    show_tensors("param", in.params, in.n_params);
    show_tensors("output", in.outputs, in.n_outputs);
    if (t->shapes_note[s]) printf("  note: %s\n", t->shapes_note[s]);
    if (in.atol != t->atol || in.rtol != t->rtol)
      printf("  tolerance here: atol %g, rtol %g\n", in.atol, in.rtol);
  }
  if (t->notes) printf("notes: %s\n", t->notes);
  if (t->degenerate) printf("degenerate: %s\n", t->degenerate);
  cl1_task_ref_release(&ref);
  return 0;
}

static int export_cmd(int argc, char **argv) {
  const char *id = NULL, *dir = NULL;
  int set = -1;
  long long seed = -1;
  int variant = CL1_VARIANT_NONE;
  cl1_backend b = CL1_BACKEND_HOST;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
    if ((!strcmp(a, "--shapes") || !strcmp(a, "--seed") || !strcmp(a, "--device")) && !next) {
      fprintf(stderr, "cudal1 suite export: %s needs a value\n", a);
      return 2;
    }
    if (!strcmp(a, "--shapes")) { set = cl1_shapes_parse(next); i++;
      if (set < 0) { fprintf(stderr, "cudal1 suite export: --shapes: expected test, small or large\n"); return 2; } }
    else if (!strcmp(a, "--seed")) { if (cl1_cli_int("--seed", next, 0, (long long)9e18, &seed)) return 2; i++; }
    else if (!strcmp(a, "--device")) {
      if (!strcmp(next, "cuda")) b = CL1_BACKEND_CUDA;
      else if (!strcmp(next, "host")) b = CL1_BACKEND_HOST;
      else { fprintf(stderr, "cudal1 suite export: --device: expected host or cuda\n"); return 2; }
      i++;
    } else if (!strcmp(a, "--variant")) {
      if (!next) { fprintf(stderr, "cudal1 suite export: --variant needs a value\n"); return 2; }
      if ((variant = cl1_variant_parse(next)) < 0) {
        fprintf(stderr, "cudal1 suite export: --variant: expected none, off_default, offset, wide or extreme\n");
        return 2;
      }
      i++;
    } else if (a[0] == '-') return cl1_cli_unknown("suite export", a);
    else if (!id) id = a;
    else if (!dir) dir = a;
    else return cl1_cli_unknown("suite export", a);
  }
  if (!id || !dir || set < 0 || seed < 0) {
    fprintf(stderr, "cudal1 suite export: %s is missing (see cudal1 suite export --help)\n",
            !id ? "TASK" : !dir ? "DIR" : set < 0 ? "--shapes" : "--seed");
    return 2;
  }
  cl1_task_ref ref;
  if (cl1_cli_task("suite export", id, &ref)) return 2;
  cl1_err err = {{0}};
  int rc = 0;
  if (cl1_export_instance(ref.dir, set, (uint64_t)seed, variant, b, dir, &err)) {
    fprintf(stderr, "cudal1 suite export: %s\n", err.msg);
    rc = strstr(err.msg, "no CUDA GPU") ? 3 : 2;
  } else {
    printf("exported %s (%s shapes, seed %lld%s%s) to %s\n", ref.task->id, cl1_shapes_name(set), seed,
           variant ? ", variant " : "", variant ? cl1_variant_name((cl1_variant)variant) : "", dir);
  }
  cl1_task_ref_release(&ref);
  return rc;
}

int cl1_cmd_suite(int argc, char **argv) {
  const char *verb = argc >= 2 ? argv[1] : "";
  if (!strcmp(verb, "list")) return cl1_cli_help(argc - 1, argv + 1, list_help) ? 0 : list(argc - 1, argv + 1);
  if (!strcmp(verb, "show")) return cl1_cli_help(argc - 1, argv + 1, show_help) ? 0 : show(argc - 1, argv + 1);
  if (!strcmp(verb, "export"))
    return cl1_cli_help(argc - 1, argv + 1, export_help) ? 0 : export_cmd(argc - 1, argv + 1);
  if (!strcmp(verb, "audit")) return cl1_cmd_suite_audit(argc - 1, argv + 1);
  if (cl1_cli_help(argc, argv, help)) return 0;
  if (argc < 2) { fputs(help, stderr); return 2; }
  return cl1_cli_verb("suite", verb, "list, show, export or audit");
}
