/* cmd_train.c — `cudal1 train sft|selfsup|grpo|all`: CUDA-L1's training stages on an existing
 * engine (TRL or verl, python/cudal1/train/), with cudal1's own reward service as a child. The
 * options are checked here, the tasks resolved against the suite up front; src/train/ runs it. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "train/train.h"

static const char usage_head[] =
    "usage: cudal1 train sft|selfsup|grpo|all --out DIR (--tasks ID,... | --suite LEVEL)\n"
    "                    [--model PATH] [--engine trl|verl] [--db DB] [options]\n"
    "\n"
    "CUDA-L1's three stages, run by a training engine (python3 -m cudal1.train) with cudal1 as\n"
    "the reward: sft (stage 1: fine-tuning on the store's passing solutions, written to\n"
    "DIR/data/sft.jsonl), selfsup (stage 2: rounds of sampling, scoring and fine-tuning on the\n"
    "correct samples), grpo (stage 3: contrastive prompts from the store, GRPO on the speedup\n"
    "reward), all (the three in turn). cudal1 starts its own `cudal1 serve` on a loopback port\n"
    "with a fresh token, writes DIR/train-config.json, runs the engine, streams its log to the\n"
    "terminal and DIR/train.log and records each stage, round and step in the store (`cudal1\n"
    "report` shows them). Ctrl-C stops the engine and the service cleanly; --resume continues.\n"
    "\n"
    "  --out DIR              the run's folder: config, data, checkpoints, logs (required)\n"
    "  --tasks ID,...         the training tasks (suite ids: level1/19_ReLU; repeatable)\n"
    "  --suite LEVEL          every task of level1, level2, level3, or all\n"
    "  --model PATH           a checkpoint folder (weights + tokenizer.json); default: the\n"
    "                         small model the engine builds offline\n"
    "  --embedded SIZE        that model's size: small (default) or tiny (2 layers, for tests)\n"
    "  --engine E             trl (default: one GPU or node) or verl (scale)\n"
    "  --db DB                the store (default ./cudal1.db)\n"
    "  --train-device D       cpu or cuda: where the engine trains (default: cuda with\n"
    "                         --device cuda, else cpu)\n"
    "  --rounds N             rounds of selfsup and of grpo (default 2)\n"
    "  --selfsup-rounds N, --grpo-rounds N\n"
    "                         one stage's rounds (after --rounds, which sets both)\n"
    "  --samples K            samples per task in a selfsup round (default 4)\n"
    "  --steps N              GRPO steps per round (default 4)\n"
    "  --generations G        completions per prompt in GRPO (default 4, at least 2)\n"
    "  --exemplars N          earlier solutions shown in a contrastive prompt (default 2)\n"
    "  --sft-exemplars N      stages 1 and 2 also train each solution under a contrastive\n"
    "                         prompt with up to N exemplars (default 0: round-1 prompts only;\n"
    "                         a model that never saw that prompt may not answer it in stage 3)\n"
    "  --sft-exemplar-rows R  with --sft-exemplars: up to R such prompts per solution, each with\n"
    "                         another pick of exemplars (default 1), so each prompt meets more\n"
    "                         than one solution and GRPO has a choice to reward\n"
    "  --sft-epochs N         epochs of stage 1 and of each stage-2 round (default 3)\n"
    "  --sft-max-steps N      stop stage 1 after N steps (default 0: the epochs decide)\n"
    "  --lr X                 learning rate of stage 1, and of 2 and 3 unless given (5e-05)\n"
    "  --selfsup-lr X         learning rate of stage 2's rounds (default: --lr's; each round\n"
    "                         starts a fresh optimizer, whose first steps move every weight by\n"
    "                         about this much)\n"
    "  --rl-lr X              learning rate of stage 3, GRPO (default: --lr's)\n"
    "  --temperature T        sampling temperature of stage 2, the evals and GRPO's\n"
    "                         rollouts (default 1.0)\n"
    "  --rl-temperature T     GRPO's rollouts only (default: --temperature's; a model that\n"
    "                         answers one prompt the same way every time gives GRPO groups\n"
    "                         of equal rewards, with nothing to learn from)\n"
    "  --lora                 train LoRA adapters (PEFT) instead of every weight\n"
    "  --static-cache         generate (samples, evals; GRPO's rollouts too when trained\n"
    "                         without bf16; engine trl) with a KV cache allocated once at its\n"
    "                         full length instead of grown a token at a time (the same\n"
    "                         samples; on the H100, 17.3 against 22.6 ms a token at 80\n"
    "                         sequences)\n"
    "  --max-prompt-len N     prompt tokens (default 1024)\n"
    "  --max-completion-len N completion tokens (default 256)\n"
    "  --batch-size N         per-device batch: sequences per SFT step, prompts per GRPO\n"
    "                         step (default 4)\n"
    "  --rl-batch N           prompts per GRPO step (default: --batch-size's)\n"
    "  --grpo-iterations N    optimizer steps on each GRPO step's rollouts (GRPO's mu,\n"
    "                         clipped as PPO; default 1). Generation is most of a step, so\n"
    "                         N > 1 trains N times as much per rollout\n"
    "  --mask-truncated       GRPO trains no token of a reply that ran out of tokens (its\n"
    "                         reward still counts in its group's mean; DAPO's overlong\n"
    "                         filtering; engine trl). Default off: such a reply holds no\n"
    "                         finished code, and with it masked at --rl-lr 1e-4 run-on\n"
    "                         replies grew from 2 to 12 a step on the H100\n"
    "  --grpo-probe N         stage 3's probe: N samples per task under the same prompts\n"
    "                         (up to 4 a task, fetched once) and the same seed, at\n"
    "                         --rl-temperature, before the first GRPO round and after each\n"
    "                         (default 0: none). The steps' own figures move with each\n"
    "                         step's prompts; the probe's move only with the model\n"
    "  --gen-batch N          sequences per generate() call in stage 2 and the evals\n"
    "                         (default 0: batch size x generations)\n"
    "  --seed N               (default 0)\n"
    "  --vllm-server URL      generate with a running `trl vllm-serve` (default: in process)\n"
    "  --python PY            the interpreter that runs the engine (default python3)\n"
    "  --resume               continue the run recorded in DIR/run.json from its last\n"
    "                         checkpoint and round (with the options given now; none yet:\n"
    "                         its stages start over)\n"
    "the reward service's evaluation (shared with cudal1 eval and serve):\n";

static const char usage_tail[] =
    "\n"
    "$CUDAL1_TRAIN_ENGINE replaces the engine command (a shell command line; --config PATH is\n"
    "appended). $CUDAL1_SERVE_URLS (comma-separated) names `cudal1 serve`s on evaluation nodes\n"
    "for verl's reward module; their token, $CUDAL1_SERVE_TOKEN, is then the child service's\n"
    "too (otherwise the child gets a fresh one). Exit status: 0 done; 2 the input (model path, tokenizer, task, no stage-1 data,\n"
    "a missing Python dependency: the pip line is printed); 3 infrastructure (the service died,\n"
    "out of memory: the message names the option to lower); 130 stopped by Ctrl-C.\n";

typedef struct {
  cl1_train_opts o;
  const char *suite, *train_device;
  bool embedded_given;
  char *ids[CL1_TRAIN_MAX_TASKS]; /* owned copies of the resolved ids */
} train_args;

/* The options that set one int field each, with their ranges: one row per option, which the
   parser reads both to know the option takes a value and to set it. */
typedef struct {
  const char *name;
  size_t off; /* of the int field in cl1_train_opts */
  long long lo, hi;
} int_opt;

#define INT_OPT(name, field, lo, hi) {name, offsetof(cl1_train_opts, field), lo, hi}
static const int_opt int_opts[] = {
    INT_OPT("--samples", samples_per_task, 1, 1024), INT_OPT("--steps", grpo_steps_per_round, 1, 1000000),
    INT_OPT("--generations", num_generations, 2, 1024), INT_OPT("--exemplars", exemplars, 0, 26),
    INT_OPT("--sft-exemplars", sft_exemplars, 0, 26), INT_OPT("--sft-exemplar-rows", sft_exemplar_rows, 1, 64),
    INT_OPT("--sft-epochs", sft_epochs, 1, 1000), INT_OPT("--sft-max-steps", sft_max_steps, 0, 10000000),
    INT_OPT("--max-prompt-len", max_prompt_len, 16, 1 << 20),
    INT_OPT("--max-completion-len", max_completion_len, 1, 1 << 20),
    INT_OPT("--batch-size", batch_size, 1, 65536), INT_OPT("--gen-batch", gen_batch, 0, 65536),
    INT_OPT("--rl-batch", rl_batch_size, 1, 65536), INT_OPT("--grpo-probe", grpo_probe, 0, 1024),
    INT_OPT("--grpo-iterations", grpo_iterations, 1, 64),
    INT_OPT("--selfsup-rounds", selfsup_rounds, 0, 1000), INT_OPT("--grpo-rounds", grpo_rounds, 0, 1000)};
#undef INT_OPT

static const int_opt *find_int_opt(const char *a) {
  for (size_t k = 0; k < sizeof int_opts / sizeof *int_opts; k++)
    if (!strcmp(a, int_opts[k].name)) return &int_opts[k];
  return NULL;
}

/* A numeric option into its field; 0, 2 (said), or -1 when a is none of them. */
static int parse_number(cl1_train_opts *o, const char *a, const char *v) {
  long long n;
  const int_opt *io = find_int_opt(a);
  if (io) {
    if (cl1_cli_int(a, v, io->lo, io->hi, &n)) return 2;
    *(int *)((char *)o + io->off) = (int)n;
    return 0;
  }
  if (!strcmp(a, "--rounds")) {
    if (cl1_cli_int(a, v, 0, 1000, &n)) return 2;
    o->selfsup_rounds = o->grpo_rounds = (int)n;
    return 0;
  }
  if (!strcmp(a, "--seed")) return cl1_cli_int(a, v, 0, 2147483647, &o->seed);
  if (!strcmp(a, "--lr")) return cl1_cli_double(a, v, 1e-12, 1, &o->lr);
  if (!strcmp(a, "--rl-lr")) return cl1_cli_double(a, v, 1e-12, 1, &o->rl_lr);
  if (!strcmp(a, "--selfsup-lr")) return cl1_cli_double(a, v, 1e-12, 1, &o->selfsup_lr);
  if (!strcmp(a, "--temperature")) return cl1_cli_double(a, v, 0.01, 10, &o->temperature);
  if (!strcmp(a, "--rl-temperature")) return cl1_cli_double(a, v, 0.01, 10, &o->rl_temperature);
  return -1;
}

static int one_of(const char *flag, const char *v, const char *a, const char *b) {
  if (!strcmp(v, a) || !strcmp(v, b)) return 0;
  fprintf(stderr, "cudal1 train: %s: expected %s or %s, got '%s'\n", flag, a, b, v);
  return 2;
}

/* A string option; 0, 2 (said), or -1 when a is none of them. */
static int parse_string(train_args *t, const char *a, const char *v) {
  cl1_train_opts *o = &t->o;
  if (!strcmp(a, "--out")) o->out = v;
  else if (!strcmp(a, "--model")) o->model = v;
  else if (!strcmp(a, "--db")) o->db = v;
  else if (!strcmp(a, "--python")) o->python = v;
  else if (!strcmp(a, "--suite")) t->suite = v;
  else if (!strcmp(a, "--engine")) return one_of(a, v, "trl", "verl") ? 2 : (o->engine = v, 0);
  else if (!strcmp(a, "--embedded")) {
    if (one_of(a, v, "small", "tiny")) return 2;
    o->embedded = v, t->embedded_given = true;
  } else if (!strcmp(a, "--train-device")) return one_of(a, v, "cpu", "cuda") ? 2 : (t->train_device = v, 0);
  else if (!strcmp(a, "--vllm-server")) {
    if (strncmp(v, "http://", 7) && strncmp(v, "https://", 8)) {
      fprintf(stderr, "cudal1 train: --vllm-server: expected an http:// or https:// URL, got "
                      "'%s'\n", v);
      return 2;
    }
    o->vllm_server = v;
  } else return -1;
  return 0;
}

/* Adds one task argument, resolved in the suite; 2 (said) on an unknown or repeated one. */
static int add_task(train_args *t, const char *arg) {
  cl1_train_opts *o = &t->o;
  cl1_task_ref ref;
  if (cl1_cli_task("train", arg, &ref)) return 2;
  int rc = 0;
  if (!ref.in_suite)
    fprintf(stderr, "cudal1 train: task '%s' is not in the suite (%s): the reward service scores "
                    "suite tasks\n", arg, cl1_suite_root()), rc = 2;
  for (int i = 0; !rc && i < o->n_tasks; i++)
    if (!strcmp(o->tasks[i], ref.task->id))
      fprintf(stderr, "cudal1 train: --tasks: '%s' names %s a second time\n", arg, o->tasks[i]), rc = 2;
  if (!rc && o->n_tasks == CL1_TRAIN_MAX_TASKS)
    fprintf(stderr, "cudal1 train: more than %d tasks\n", CL1_TRAIN_MAX_TASKS), rc = 2;
  if (!rc && !(t->ids[o->n_tasks] = strdup(ref.task->id))) rc = 2;
  if (!rc) o->tasks[o->n_tasks] = t->ids[o->n_tasks], o->n_tasks++;
  cl1_task_ref_release(&ref);
  return rc;
}

/* --tasks a,b,c: each name. */
static int add_task_list(train_args *t, const char *list) {
  char *copy = strdup(list), *save = NULL;
  int rc = copy ? 0 : 2, n = 0;
  for (char *p = copy ? strtok_r(copy, ",", &save) : NULL; p && !rc; p = strtok_r(NULL, ",", &save), n++)
    rc = add_task(t, p);
  free(copy);
  if (!rc && !n) fprintf(stderr, "cudal1 train: --tasks: empty list\n"), rc = 2;
  return rc;
}

static int add_suite(train_args *t) {
  int level = !strcmp(t->suite, "all") ? 0 : !strcmp(t->suite, "level1") ? 1
              : !strcmp(t->suite, "level2") ? 2 : !strcmp(t->suite, "level3") ? 3 : -1;
  if (level < 0) {
    fprintf(stderr, "cudal1 train: --suite: expected level1, level2, level3 or all, got '%s'\n",
            t->suite);
    return 2;
  }
  char *paths[CL1_TRAIN_MAX_TASKS];
  int n = cl1_cli_suite_tasks(level, paths, CL1_TRAIN_MAX_TASKS), rc = 0;
  if (!n) fprintf(stderr, "cudal1 train: --suite %s: no tasks under %s\n", t->suite, cl1_suite_root()), rc = 2;
  for (int i = 0; i < n; i++) {
    if (!rc) rc = add_task(t, paths[i]);
    free(paths[i]);
  }
  return rc;
}

static int parse_args(int argc, char **argv, train_args *t) {
  cl1_train_opts *o = &t->o;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int rc = cl1_cli_eval_opt_parse("train", argc, argv, &i, &o->eval);
    if (rc >= 0) {
      if (rc) return rc;
      if (o->n_serve_args + 2 > CL1_TRAIN_MAX_SERVE_ARGS) {
        fprintf(stderr, "cudal1 train: %s: too many evaluation options (each once is enough)\n", a);
        return 2;
      }
      o->serve_args[o->n_serve_args++] = a;
      o->serve_args[o->n_serve_args++] = argv[i];
      continue;
    }
    const struct { const char *name; bool *on; } flags[] = {
        {"--lora", &o->lora}, {"--resume", &o->resume}, {"--static-cache", &o->static_cache},
        {"--mask-truncated", &o->mask_truncated}};
    bool flag = false;
    for (size_t k = 0; k < sizeof flags / sizeof *flags && !flag; k++)
      if (!strcmp(a, flags[k].name)) *flags[k].on = flag = true;
    if (flag) continue;
    /* besides int_opts */
    static const char *const takes_value[] = {"--tasks", "--out", "--model", "--db", "--python",
        "--suite", "--engine", "--embedded", "--train-device", "--vllm-server", "--rounds", "--seed",
        "--lr", "--rl-lr", "--selfsup-lr", "--temperature", "--rl-temperature"};
    bool known = find_int_opt(a) != NULL;
    for (size_t k = 0; k < sizeof takes_value / sizeof *takes_value; k++)
      known = known || !strcmp(a, takes_value[k]);
    if (!known) return cl1_cli_unknown("train", a);
    if (i + 1 >= argc) {
      fprintf(stderr, "cudal1 train: %s needs a value (see cudal1 train --help)\n", a);
      return 2;
    }
    const char *v = argv[++i];
    if (!strcmp(a, "--tasks")) rc = add_task_list(t, v);
    else if ((rc = parse_number(o, a, v)) < 0) rc = parse_string(t, a, v);
    if (rc) return 2;
  }
  cl1_cli_eval_opts_finish(&o->eval);
  return 0;
}

/* What the options must say together; 0, or 2 with the message said. */
static int check_args(train_args *t) {
  cl1_train_opts *o = &t->o;
  if (!o->out) {
    fprintf(stderr, "cudal1 train: --out DIR is required (the run's folder)\n");
    return 2;
  }
  if (t->suite && o->n_tasks) {
    fprintf(stderr, "cudal1 train: give --tasks or --suite, not both\n");
    return 2;
  }
  if (t->suite && add_suite(t)) return 2;
  if (t->embedded_given && o->model) {
    fprintf(stderr, "cudal1 train: --embedded is the size of the model built without --model; "
                    "give one of them\n");
    return 2;
  }
  if (o->sft_exemplar_rows > 1 && !o->sft_exemplars) {
    fprintf(stderr, "cudal1 train: --sft-exemplar-rows R needs --sft-exemplars N (N > 0): rows "
                    "under contrastive prompts\n");
    return 2;
  }
  if (!o->n_tasks) {
    fprintf(stderr, "cudal1 train: name the training tasks: --tasks level1/19_ReLU,... or "
                    "--suite level1\n");
    return 2;
  }
  cl1_err err = {{0}};
  if (cl1_train_token_check(&err)) {
    fprintf(stderr, "cudal1 train: %s\n", err.msg);
    return 2;
  }
  o->torch_device = t->train_device ? t->train_device
                    : o->eval.backend == CL1_BACKEND_CUDA ? "cuda" : "cpu";
  return 0;
}

int cl1_cmd_train(int argc, char **argv) {
  if (cl1_cli_help(argc, argv, usage_head)) {
    cl1_cli_eval_opts_usage(stdout);
    fputs(usage_tail, stdout);
    return 0;
  }
  const char *stage = argc > 1 ? argv[1] : NULL;
  if (!stage || (strcmp(stage, "sft") && strcmp(stage, "selfsup") && strcmp(stage, "grpo") &&
                 strcmp(stage, "all")))
    return cl1_cli_verb("train", stage, "sft, selfsup, grpo or all");
  static train_args t;
  memset(&t, 0, sizeof t);
  cl1_train_opts_default(&t.o);
  t.o.stage = stage;
  int rc = parse_args(argc - 1, argv + 1, &t);
  if (!rc) rc = check_args(&t);
  if (!rc) {
    cl1_err err = {{0}};
    rc = cl1_train_run(&t.o, &err);
    if (rc && rc != 130) fprintf(stderr, "cudal1 train: %s\n", err.msg);
  }
  for (int i = 0; i < t.o.n_tasks; i++) free(t.ids[i]);
  return rc;
}
