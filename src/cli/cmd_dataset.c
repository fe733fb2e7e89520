/* cmd_dataset.c — `cudal1 dataset sft|rl`: the store as training data (src/data/dataset.h),
 * JSONL files written atomically, so a failed export never leaves half a file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "base/file.h"
#include "data/dataset.h"

#define CL1_DATASET_MAX_TASKS 300 /* the suite has 250 */

static const char usage[] =
    "usage: cudal1 dataset sft --db DB --out FILE [--min-speedup X] [--device cuda|host]\n"
    "                          [--shapes S] [--split-by-task F --eval-out FILE] [--seed N]\n"
    "                          [--format messages|prompt-completion] [--template FILE]\n"
    "                          [--exemplars N [--exemplar-rows R]] [--tau T]\n"
    "       cudal1 dataset rl (--tasks TASK... | --level N | --all) --out FILE [--db DB]\n"
    "                         [--exemplars N] [--tau T] [--seed N] [--n N] [--device cuda|host]\n"
    "                         [--shapes S] [--format trl|verl-jsonl] [--template FILE]\n"
    "\n"
    "sft: the store's passing solutions (verdict pass; never hacks or failures) as chat rows for\n"
    "supervised fine-tuning (TRL's SFTTrainer): the task's round-1 prompt as system and user\n"
    "messages, the solution in the assistant's fenced code block, with task, speedup (its latest\n"
    "passing evaluation) and solution_id. One row per distinct code of a task (the store keeps\n"
    "one solution per SHA-256 of its code); sorted by task, speedup (highest first), solution.\n"
    "  --db DB              the store (must exist)\n"
    "  --out FILE           the JSONL file (the training rows)\n"
    "  --min-speedup X      leave out solutions below X (default 0: all)\n"
    "  --device D           the solutions' backend (default cuda)\n"
    "  --shapes S           the shape set they passed at (default small on cuda, test on host)\n"
    "  --split-by-task F    hold out a fraction F (0 < F < 1) of the tasks, all their rows, in\n"
    "                       --eval-out: no task is in both files; which ones depends on --seed\n"
    "  --seed N             the split's seed (default 1)\n"
    "  --format F           messages (default): {\"messages\":[system,user,assistant],...};\n"
    "                       prompt-completion: {\"prompt\":[system,user],\"completion\":[assistant]}\n"
    "  --exemplars N        each solution a second time under the contrastive prompt (stage 3's)\n"
    "                       with up to N of the task's passing solutions, picked as in rl (--seed,\n"
    "                       --tau), and \"exemplar_ids\": a model meets that prompt before RL\n"
    "                       (default 0: round-1 prompts only)\n"
    "  --exemplar-rows R    with --exemplars: up to R contrastive rows per solution, each with\n"
    "                       another pick of exemplars (default 1), so that every prompt stage 3\n"
    "                       can show meets more than one solution\n"
    "\n"
    "rl: one prompt row per task and index (--n, default 1) for GRPO: the contrastive prompt of\n"
    "`cudal1 optimize` with up to --exemplars earlier passing solutions from --db (picked by\n"
    "speedup bucket at temperature --tau, seeded by --seed), plain without --db.\n"
    "  trl (default):  {\"prompt\":[system,user],\"task\":ID,\"prompt_id\":HEX,\"exemplar_ids\":[..]}\n"
    "  verl-jsonl:     {\"data_source\":\"cudal1\",\"prompt\":[..],\"ability\":DEVICE,\n"
    "                   \"reward_model\":{\"style\":\"rule\",\"ground_truth\":ID},\n"
    "                   \"extra_info\":{\"task\",\"prompt_id\",\"index\",\"exemplar_ids\"}}\n"
    "  --exemplars N (default 2), --tau T (default 1), --seed N (default 1): as in optimize.\n"
    "\n"
    "Exit status 2 on a usage error, a missing store, an unknown task or nothing to export.\n";

typedef struct {
  const char *db, *out, *eval_out, *device, *shapes, *format, *template_path;
  double min_speedup, split, tau;
  long long seed, exemplars, exemplar_rows, n, level;
  bool all;
  const char *tasks[CL1_DATASET_MAX_TASKS];
  int n_tasks;
} opts;

static int need_value(const char *verb, int argc, char **argv, int i) {
  if (i + 1 < argc && strncmp(argv[i + 1], "--", 2)) return 0;
  fprintf(stderr, "cudal1 dataset %s: %s needs a value\n", verb, argv[i]);
  return 2;
}

/* One option at argv[*i] into o; 2 (printed) on a bad one. */
static int parse_one(const char *verb, int argc, char **argv, int *i, opts *o) {
  const char *a = argv[*i];
  const char **str = !strcmp(a, "--db") ? &o->db : !strcmp(a, "--out") ? &o->out
                     : !strcmp(a, "--eval-out") ? &o->eval_out : !strcmp(a, "--device") ? &o->device
                     : !strcmp(a, "--shapes") ? &o->shapes : !strcmp(a, "--format") ? &o->format
                     : !strcmp(a, "--template") ? &o->template_path : NULL;
  bool rl = !strcmp(verb, "rl");
  if (!strcmp(a, "--all") && rl) return o->all = true, 0;
  if (!strcmp(a, "--tasks") && rl) {
    if (need_value(verb, argc, argv, *i)) return 2;
    while (*i + 1 < argc && strncmp(argv[*i + 1], "--", 2) && o->n_tasks < CL1_DATASET_MAX_TASKS)
      o->tasks[o->n_tasks++] = argv[++*i];
    return 0;
  }
  if (!str && strcmp(a, "--seed") && strcmp(a, "--min-speedup") && strcmp(a, "--split-by-task") &&
      strcmp(a, "--tau") && strcmp(a, "--exemplars") && strcmp(a, "--n") && strcmp(a, "--level") &&
      strcmp(a, "--exemplar-rows"))
    return cl1_cli_unknown(rl ? "dataset rl" : "dataset sft", a);
  if ((str == &o->eval_out || !strcmp(a, "--min-speedup") || !strcmp(a, "--split-by-task") ||
       !strcmp(a, "--exemplar-rows")) && rl)
    return cl1_cli_unknown("dataset rl", a);
  if ((!strcmp(a, "--n") || !strcmp(a, "--level")) && !rl)
    return cl1_cli_unknown("dataset sft", a);
  if (need_value(verb, argc, argv, *i)) return 2;
  const char *v = argv[++*i];
  if (str) return *str = v, 0;
  if (!strcmp(a, "--seed")) return cl1_cli_int(a, v, 0, 1LL << 62, &o->seed);
  if (!strcmp(a, "--exemplars")) return cl1_cli_int(a, v, 0, 26, &o->exemplars);
  if (!strcmp(a, "--exemplar-rows")) return cl1_cli_int(a, v, 1, 64, &o->exemplar_rows);
  if (!strcmp(a, "--n")) return cl1_cli_int(a, v, 1, 1000, &o->n);
  if (!strcmp(a, "--level")) return cl1_cli_int(a, v, 1, 3, &o->level);
  if (!strcmp(a, "--tau")) return cl1_cli_double(a, v, 1e-6, 1e6, &o->tau);
  if (!strcmp(a, "--min-speedup")) return cl1_cli_double(a, v, 0, 1e9, &o->min_speedup);
  if (cl1_cli_double(a, v, 0, 1, &o->split)) return 2;
  if (o->split > 0 && o->split < 1) return 0;
  fprintf(stderr, "cudal1 dataset sft: --split-by-task: expected a fraction between 0 and 1 "
                  "(exclusive), got '%s'\n", v);
  return 2;
}

/* Parses argv and checks what every verb needs: --out, the device and shapes. */
static int parse(const char *verb, int argc, char **argv, opts *o) {
  *o = (opts){.device = "cuda", .tau = 1.0, .seed = 1, .exemplars = -1, .exemplar_rows = 1, .n = 1};
  for (int i = 1; i < argc; i++)
    if (parse_one(verb, argc, argv, &i, o)) return 2;
  if (o->exemplars < 0) o->exemplars = strcmp(verb, "rl") ? 0 : 2;
  const char *cmd = !strcmp(verb, "rl") ? "rl" : "sft";
  if (!o->out) {
    fprintf(stderr, "cudal1 dataset %s: --out FILE is required (the JSONL to write)\n", cmd);
    return 2;
  }
  if (strcmp(o->device, "cuda") && strcmp(o->device, "host")) {
    fprintf(stderr, "cudal1 dataset %s: --device: expected cuda or host, got '%s'\n", cmd, o->device);
    return 2;
  }
  if (!o->shapes) o->shapes = strcmp(o->device, "host") ? "small" : "test";
  if (cl1_shapes_parse(o->shapes) < 0) {
    fprintf(stderr, "cudal1 dataset %s: --shapes: expected test, small or large, got '%s'\n", cmd,
            o->shapes);
    return 2;
  }
  return 0;
}

static int write_file(const char *verb, const char *path, const char *text) {
  cl1_err err = {{0}};
  if (!cl1_file_write_atomic(path, text, &err)) return 0;
  fprintf(stderr, "cudal1 dataset %s: %s\n", verb, err.msg);
  return 2;
}

static int cmp_id(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The suite's task ids (levelN/NAME), sorted by strcmp as the dataset wants them. */
static int suite_ids(char **ids) {
  char *paths[CL1_DATASET_MAX_TASKS];
  int np = cl1_cli_suite_tasks(0, paths, CL1_DATASET_MAX_TASKS), n = 0;
  for (int i = 0; i < np; i++) {
    char *end = strrchr(paths[i], '/'), *p = end; /* .../levelN/NAME/task.json */
    for (int slashes = 0; p && p > paths[i]; p--)   /* back to the slash before levelN */
      if (p[-1] == '/' && ++slashes == 2) break;
    if (p && p > paths[i] && (ids[n] = strndup(p, (size_t)(end - p)))) n++;
    free(paths[i]);
  }
  qsort(ids, (size_t)n, sizeof *ids, cmp_id);
  return n;
}

static int cmd_sft(int argc, char **argv) {
  opts o;
  if (parse("sft", argc, argv, &o)) return 2;
  cl1_dataset_format fmt = !o.format || !strcmp(o.format, "messages") ? CL1_DATASET_MESSAGES
                           : !strcmp(o.format, "prompt-completion") ? CL1_DATASET_PROMPT_COMPLETION
                           : (cl1_dataset_format)-1;
  const char *bad = (int)fmt < 0 ? "--format: expected messages or prompt-completion"
                    : !o.db ? "--db DB is required (the store to export)"
                    : (o.split > 0) != (o.eval_out != NULL)
                        ? "--split-by-task F and --eval-out FILE go together"
                    : o.exemplar_rows > 1 && !o.exemplars
                        ? "--exemplar-rows R needs --exemplars N (N > 0): rows under contrastive "
                          "prompts" : NULL;
  if (bad) {
    fprintf(stderr, "cudal1 dataset sft: %s\n", bad);
    return 2;
  }
  cl1_err err = {{0}};
  char *ids[CL1_DATASET_MAX_TASKS];
  int n_ids = suite_ids(ids);
  cl1_dataset_sft_opts so = {.tasks = ids, .n_tasks = n_ids, .device = o.device, .shapes = o.shapes, .template_path = o.template_path,
                             .min_speedup = o.min_speedup, .split = o.split,
                             .seed = (uint64_t)o.seed, .format = fmt,
                             .exemplars = (int)o.exemplars,
                             .exemplar_rows = (int)o.exemplar_rows, .tau = o.tau};
  char *train = NULL, *eval = NULL;
  cl1_dataset_sft_stats st;
  int rc = cl1_dataset_open_store(o.db, &so.store, &err) ||
           cl1_dataset_sft(&so, &train, o.eval_out ? &eval : NULL, &st, &err);
  if (rc) fprintf(stderr, "cudal1 dataset sft: %s\n", err.msg);
  cl1_store_close(so.store);
  if (!rc) rc = write_file("sft", o.out, train);  /* train first: an eval file alone is no use */
  if (!rc && o.eval_out) rc = write_file("sft", o.eval_out, eval);
  if (!rc) {
    printf("%s: %d rows, %d tasks\n", o.out, st.train_rows, st.train_tasks);
    if (o.eval_out) printf("%s: %d rows, %d tasks (held out)\n", o.eval_out, st.eval_rows, st.eval_tasks);
    if (o.eval_out && !st.eval_tasks)
      fprintf(stderr, "cudal1 dataset sft: warning: one task only: nothing held out\n");
    if (st.below_min) printf("%d solutions below --min-speedup left out\n", st.below_min);
  }
  free(train), free(eval);
  for (int i = 0; i < n_ids; i++) free(ids[i]);
  return rc ? 2 : 0;
}

/* The tasks of --tasks, --level or --all, loaded (refs[*n]); 2 (printed) on an unknown one. */
static int rl_tasks(const opts *o, cl1_task_ref *refs, int *n) {
  char *paths[CL1_DATASET_MAX_TASKS];
  int np = 0, rc = 0;
  if (o->all || o->level) np = cl1_cli_suite_tasks(o->all ? 0 : (int)o->level, paths, CL1_DATASET_MAX_TASKS);
  if ((o->all || o->level) && !np) {
    fprintf(stderr, "cudal1 dataset rl: no tasks under %s\n", cl1_suite_root());
    rc = 2;
  }
  for (int i = 0; !rc && i < np + o->n_tasks; i++) {
    const char *arg = i < np ? paths[i] : o->tasks[i - np];
    if (cl1_cli_task("dataset rl", arg, &refs[*n])) { rc = 2; break; }
    for (int j = 0; j < *n && !rc; j++)
      if (!strcmp(refs[j].task->id, refs[*n].task->id)) {
        fprintf(stderr, "cudal1 dataset rl: --tasks: '%s' names %s a second time\n", arg,
                refs[j].task->id);
        rc = 2;
      }
    (*n)++;
  }
  for (int i = 0; i < np; i++) free(paths[i]);
  return rc;
}

static int cmd_rl(int argc, char **argv) {
  opts o;
  if (parse("rl", argc, argv, &o)) return 2;
  cl1_dataset_format fmt = !o.format || !strcmp(o.format, "trl") ? CL1_DATASET_TRL
                           : !strcmp(o.format, "verl-jsonl") ? CL1_DATASET_VERL
                           : (cl1_dataset_format)-1;
  int which = (o.n_tasks > 0) + (o.level > 0) + o.all;
  const char *bad = (int)fmt < 0 ? "--format: expected trl or verl-jsonl"
                    : which != 1 ? "name the tasks: one of --tasks TASK..., --level N or --all"
                                 : NULL;
  if (bad) {
    fprintf(stderr, "cudal1 dataset rl: %s\n", bad);
    return 2;
  }
  static cl1_task_ref refs[CL1_DATASET_MAX_TASKS];
  cl1_task *tasks[CL1_DATASET_MAX_TASKS];
  int n = 0, rows = 0;
  int rc = rl_tasks(&o, refs, &n);
  for (int i = 0; i < n; i++) tasks[i] = refs[i].task;
  cl1_err err = {{0}};
  cl1_dataset_rl_opts ro = {.tasks = tasks, .n_tasks = n, .exemplars = (int)o.exemplars,
                            .n = (int)o.n, .tau = o.tau, .seed = (uint64_t)o.seed,
                            .device = o.device, .shapes = o.shapes,
                            .template_path = o.template_path, .format = fmt};
  char *text = NULL;
  if (!rc && ((o.db && cl1_dataset_open_store(o.db, &ro.store, &err)) ||
              cl1_dataset_rl(&ro, &text, &rows, &err))) {
    fprintf(stderr, "cudal1 dataset rl: %s\n", err.msg);
    rc = 2;
  }
  cl1_store_close(ro.store);
  if (!rc) rc = write_file("rl", o.out, text);
  if (!rc) printf("%s: %d rows, %d tasks\n", o.out, rows, n);
  free(text);
  for (int i = 0; i < n; i++) cl1_task_ref_release(&refs[i]);
  return rc;
}

int cl1_cmd_dataset(int argc, char **argv) {
  if (cl1_cli_help(argc, argv, usage)) return 0;
  const char *verb = argc > 1 ? argv[1] : NULL;
  if (verb && !strcmp(verb, "sft")) return cmd_sft(argc - 1, argv + 1);
  if (verb && !strcmp(verb, "rl")) return cmd_rl(argc - 1, argv + 1);
  return cl1_cli_verb("dataset", verb, "sft or rl");
}
