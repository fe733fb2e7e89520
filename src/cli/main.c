/* main.c — the cudal1 command line: dispatches to one cmd_*.c per subcommand. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static const char usage[] =
    "cudal1 — a CUDA optimizer driven by a language model, with a hardened evaluator\n"
    "\n"
    "usage: cudal1 <command> [options]\n"
    "\n"
    "commands:\n"
    "  optimize    the contrastive loop: an LLM writes faster kernels, cudal1 evaluates them\n"
    "              (store, rounds, exemplars, best solutions per task)\n"
    "  collect     stage 1 of training: several LLMs answer every task's prompt N times; the\n"
    "              replies are evaluated and recorded with the policy's name (for dataset sft)\n"
    "  baselines import   load PyTorch baseline times (tools/baselines.py) into the store\n"
    "  import      others' kernels into the store: CUDA-L1's released files (cuda-l1) or\n"
    "              generic JSONL rows (jsonl), each with its task and claimed speedups\n"
    "  serve       the reward service training engines call (HTTP: score candidates, rewards)\n"
    "  train       CUDA-L1's training stages (sft, selfsup, grpo) on TRL or verl, rewarded by\n"
    "              its own serve, every stage, round and step recorded in the store\n"
    "  report      the results table from the store (Markdown, HTML with SVG plots, JSON)\n"
    "  dataset     training data from the store: sft (passing solutions as chat rows) or rl\n"
    "              (prompt rows with exemplars; TRL or verl layout)\n"
    "  eval        evaluate a candidate solution against its task's reference\n"
    "              (gate, compile, verify, time, speedup, reward, verdict)\n"
    "  task check  validate task.json files\n"
    "  suite       list / show / export / audit the tasks of the suite\n"
    "  gpu peaks   measure (once) and show the GPU's bandwidth and matmul rates\n"
    "  doctor      check what cudal1 needs on this machine (GPU, compilers, sandbox, ...)\n"
    "\n"
    "A task is named by its suite id (level1/19_ReLU), its folder (suite/level1/19_ReLU) or the\n"
    "path of its task.json, wherever a command takes one.\n"
    "Run `cudal1 <command> --help` (or -h, anywhere among its arguments) for its options.\n"
    "Exit status: 0 success/pass, 1 the candidate failed, 2 usage or input error,\n"
    "3 infrastructure error (no GPU, compiler missing, ...).\n";

int cl1_cli_int(const char *flag, const char *s, long long lo, long long hi, long long *out) {
  char *end;
  errno = 0;
  long long v = s ? strtoll(s, &end, 10) : 0;
  if (!s || errno || *end || end == s || v < lo || v > hi) {
    fprintf(stderr, "cudal1: %s: expected an integer in [%lld, %lld], got '%s'\n", flag, lo, hi,
            s ? s : "(nothing)");
    return 2;
  }
  *out = v;
  return 0;
}

int cl1_cli_double(const char *flag, const char *s, double lo, double hi, double *out) {
  char *end;
  errno = 0;
  double v = s ? strtod(s, &end) : 0;
  if (!s || errno || *end || end == s || !(v >= lo && v <= hi)) {
    fprintf(stderr, "cudal1: %s: expected a number in [%g, %g], got '%s'\n", flag, lo, hi,
            s ? s : "(nothing)");
    return 2;
  }
  *out = v;
  return 0;
}

const char *cl1_cli_api_key(void) {
  const char *e = getenv("CUDAL1_API_KEY");
  if (!e || !*e) e = getenv("OPENAI_API_KEY");
  return e && *e ? e : NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage, stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    fputs(usage, stdout);
    return 0;
  }
  if (!strcmp(cmd, "__worker")) {  /* CUDAL1_WORKER pointed at this binary, as before issue 19 */
    fputs("cudal1: the worker is its own program now: point CUDAL1_WORKER at cudal1-worker "
          "(built beside cudal1), or unset it\n", stderr);
    return 2;
  }
  if (!strcmp(cmd, "eval")) return cl1_cmd_eval(argc - 1, argv + 1);
  if (!strcmp(cmd, "task")) return cl1_cmd_task(argc - 1, argv + 1);
  if (!strcmp(cmd, "suite")) return cl1_cmd_suite(argc - 1, argv + 1);
  if (!strcmp(cmd, "gpu")) return cl1_cmd_gpu(argc - 1, argv + 1);
  if (!strcmp(cmd, "optimize")) return cl1_cmd_optimize(argc - 1, argv + 1);
  if (!strcmp(cmd, "report")) return cl1_cmd_report(argc - 1, argv + 1);
  if (!strcmp(cmd, "baselines")) return cl1_cmd_baselines(argc - 1, argv + 1);
  if (!strcmp(cmd, "doctor")) return cl1_cmd_doctor(argc - 1, argv + 1);
  if (!strcmp(cmd, "serve")) return cl1_cmd_serve(argc - 1, argv + 1);
  if (!strcmp(cmd, "dataset")) return cl1_cmd_dataset(argc - 1, argv + 1);
  if (!strcmp(cmd, "collect")) return cl1_cmd_collect(argc - 1, argv + 1);
  if (!strcmp(cmd, "train")) return cl1_cmd_train(argc - 1, argv + 1);
  if (!strcmp(cmd, "import")) return cl1_cmd_import(argc - 1, argv + 1);
  fprintf(stderr, "cudal1: unknown %s '%s' (see cudal1 --help)\n", cmd[0] == '-' ? "option" : "command", cmd);
  return 2;
}
