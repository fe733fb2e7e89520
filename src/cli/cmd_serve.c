/* cmd_serve.c — `cudal1 serve`: the reward service's options, checked (a network bind needs a
 * token), then src/serve/ runs until SIGINT/SIGTERM. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "serve/serve.h"

static const char help_head[] =
    "usage: cudal1 serve [options]\n"
    "\n"
    "The reward service training engines call: POST /v1/score with candidate solutions or raw\n"
    "policy replies, answered with CUDA-L1's reward, a [0, 1] score, the verdict and feedback.\n"
    "Every item is recorded in the store; the same code of a task under the same protocol is\n"
    "answered from the store (\"cached\": true) unless the item says \"fresh\": true. An item's\n"
    "\"format\": \"kernelbench\" (default \"cabi\") asks for a Python ModelNew module, scored as .py\n"
    "(POST /v1/prompts takes the same field for KernelBench prompts).\n"
    "\n"
    "options:\n"
    "  --port N             TCP port (default 8421; 0: any free port, printed at start)\n"
    "  --bind ADDR          address to listen on (default 127.0.0.1); any other than loopback\n"
    "                       needs --token\n"
    "  --token T            bearer token every endpoint but /healthz needs (default\n"
    "                       $CUDAL1_SERVE_TOKEN)\n"
    "  --db PATH            the store (default ./cudal1.db); the reward's running statistics\n"
    "                       are kept beside it in PATH.reward-stats.json\n"
    "  --tasks-dir DIR      task folders beneath DIR (`cudal1 task import`, `cudal1 import`) may\n"
    "                       be named by their path relative to DIR besides the suite's ids;\n"
    "                       their references run as the suite's do: put there only folders you\n"
    "                       trust\n"
    "  --workers N          concurrent evaluations on the host backend (default 1)\n"
    "  --gpus LIST          CUDA: the GPUs to judge on, e.g. 0,1,2,3 (nvidia-smi's indices, or\n"
    "                       positions in $CUDA_VISIBLE_DEVICES when set; default: the first);\n"
    "                       each GPU's workers see that GPU alone\n"
    "  --overlap N          CUDA: evaluations in flight per GPU (default 4): their workers start\n"
    "                       and verify while another times; timing holds the GPU alone\n"
    "  --spare-workers N    worker processes kept started ahead (a CUDA context and the op\n"
    "                       library ready; no task, no solution code) per GPU, host: in all\n"
    "                       (default: as many as the evaluations in flight; 0: none, 8 at most)\n"
    "  --spare-fillers N    threads starting spares side by side (default 2, 1 to 8)\n"
    "  --spare-wait S       seconds an evaluation that finds no spare ready waits for one the\n"
    "                       fillers are starting, before it starts its own (default 0, at\n"
    "                       most 60): contexts are then created only by the fillers\n"
    "  --compile-jobs N     compiles running ahead of the evaluations (default: half the\n"
    "                       machine's cores, 2 to 16)\n"
    "  --max-queue N        items waiting before requests get 503 + Retry-After (default 4096)\n"
    "  --max-items N        items in one request (default 1024; at most --max-queue)\n"
    "  --max-body BYTES     bytes in one request body (default 16777216); more: 413\n"
    "  --idle-timeout S     close a connection idle S seconds (default 30)\n"
    "  --max-jobs N         POST /v1/jobs batches kept at once, running or finished (default 256)\n"
    "  --job-ttl S          a finished job's answers are kept S seconds (default 3600)\n"
    "  --reward-clip K      clip of the normalised reward (default 1.5)\n"
    "  --log-reward         reward from ln(speedup) instead of the speedup\n"
    "  --fresh-references   start a new reference worker for every evaluation (default: a\n"
    "                       task's reference worker serves its next evaluations, with fresh\n"
    "                       seeds and inputs each time; re-measurements always start fresh)\n"
    "evaluation (shared with cudal1 eval and optimize):\n";

static const char help_tail[] =
    "\n"
    "endpoints: POST /v1/score, POST /v1/jobs + GET /v1/jobs/{id} (the same as submit and\n"
    "poll), POST /v1/prompts, POST /openrlhf/reward, GET /v1/stats, GET /healthz.\n"
    "SIGINT/SIGTERM: stop accepting, finish the accepted items, close the store, exit 0.\n";

typedef struct {
  cl1_serve_opts o;
  bool token_given, overlap_given;
} serve_args;

/* --reward-clip K: the floor and the hack penalty follow K, as in `cudal1 eval`. */
static void set_clip(cl1_reward_cfg *c, double k) {
  c->clip = k, c->floor = -(k + 0.5), c->hack_penalty = -(k + 1.5);
}

/* A serve option with a number; 0, 2 (said), or -1 when a is none of them. */
static int parse_number(cl1_serve_opts *o, const char *a, const char *v) {
  long long n;
  double d;
  int rc = -1, *field = NULL;
  long long lo = 1, hi = 1 << 20;
  if (!strcmp(a, "--port")) field = &o->port, lo = 0, hi = 65535;
  else if (!strcmp(a, "--workers")) field = &o->workers, hi = 64;
  else if (!strcmp(a, "--overlap")) field = &o->overlap, hi = 16;
  else if (!strcmp(a, "--spare-workers")) field = &o->spares, lo = 0, hi = 8;
  else if (!strcmp(a, "--spare-fillers")) field = &o->spare_fillers, lo = 1, hi = 8;
  else if (!strcmp(a, "--compile-jobs")) field = &o->compile_jobs, hi = 64;
  else if (!strcmp(a, "--max-queue")) field = &o->max_queue;
  else if (!strcmp(a, "--max-items")) field = &o->max_items;
  else if (!strcmp(a, "--idle-timeout")) field = &o->idle_timeout_s, hi = 3600;
  else if (!strcmp(a, "--max-jobs")) field = &o->max_jobs, hi = 65536;
  else if (!strcmp(a, "--job-ttl")) field = &o->job_ttl_s, hi = 7 * 86400;
  if (field) {
    if (!(rc = cl1_cli_int(a, v, lo, hi, &n))) *field = (int)n;
  } else if (!strcmp(a, "--max-body")) {
    if (!(rc = cl1_cli_int(a, v, 1024, 1LL << 32, &n))) o->max_body = (size_t)n;
  } else if (!strcmp(a, "--spare-wait")) {
    if (!(rc = cl1_cli_double(a, v, 0, 60, &d))) o->spare_wait_s = d;
  } else if (!strcmp(a, "--reward-clip")) {
    if (!(rc = cl1_cli_double(a, v, 0.01, 1000, &d))) set_clip(&o->eval.reward, d);
  }
  return rc;
}

static int parse_args(int argc, char **argv, serve_args *s) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
    int rc = cl1_cli_eval_opt_parse("serve", argc, argv, &i, &s->o.eval);
    if (rc >= 0) {
      if (rc) return rc;
      continue;
    }
    if (!strcmp(a, "--log-reward")) {
      s->o.eval.reward.log_speedup = true;
      continue;
    }
    if (!strcmp(a, "--fresh-references")) {
      s->o.eval.reuse_ref = false;
      continue;
    }
    static const char *const takes_value[] = {"--bind", "--token", "--db", "--tasks-dir", "--port", "--workers",
        "--overlap", "--spare-workers", "--spare-fillers", "--spare-wait", "--gpus", "--compile-jobs", "--max-queue", "--max-items", "--max-body", "--idle-timeout",
        "--max-jobs", "--job-ttl", "--reward-clip"};
    bool known = false;
    for (size_t k = 0; k < sizeof takes_value / sizeof *takes_value; k++)
      known = known || !strcmp(a, takes_value[k]);
    if (!known) return cl1_cli_unknown("serve", a);
    if (!next) {
      fprintf(stderr, "cudal1 serve: %s needs a value\n", a);
      return 2;
    }
    if ((rc = parse_number(&s->o, a, next)) > 0) return rc;
    if (!strcmp(a, "--overlap")) s->overlap_given = true;
    if (!strcmp(a, "--bind")) s->o.bind = next;
    else if (!strcmp(a, "--db")) s->o.db = next;
    else if (!strcmp(a, "--tasks-dir")) s->o.tasks_dir = next;
    else if (!strcmp(a, "--token")) s->o.token = next, s->token_given = true;
    else if (!strcmp(a, "--gpus")) {
      cl1_err e = {{0}};
      if ((rc = cl1_serve_parse_gpus(&s->o, next, &e))) {
        fprintf(stderr, "cudal1 serve: %s\n", e.msg);
        return rc;
      }
    }
    i++;
  }
  cl1_cli_eval_opts_finish(&s->o.eval);
  return 0;
}

/* What the options must say together; 0, or 2 with the message said. */
static int check_args(serve_args *s) {
  cl1_serve_opts *o = &s->o;
  if (!s->token_given) {
    const char *env = getenv("CUDAL1_SERVE_TOKEN");
    if (env && *env) o->token = env;
  }
  if (o->token && !*o->token) {
    fprintf(stderr, "cudal1 serve: --token: empty\n");
    return 2;
  }
  if (!cl1_serve_is_loopback(o->bind) && !o->token) {
    fprintf(stderr, "cudal1 serve: --bind %s is reachable from other machines: give --token "
                    "(or $CUDAL1_SERVE_TOKEN); without one, bind 127.0.0.1\n", o->bind);
    return 2;
  }
  if (o->max_items > o->max_queue) {
    fprintf(stderr, "cudal1 serve: --max-items %d is more than --max-queue %d: such a request "
                    "could never be queued\n", o->max_items, o->max_queue);
    return 2;
  }
  bool cuda = o->eval.backend == CL1_BACKEND_CUDA;
  if (cuda && o->workers > 1) {
    fprintf(stderr, "cudal1 serve: --workers %d: on CUDA the evaluations in flight are --gpus x "
                    "--overlap (timing holds each GPU alone)\n", o->workers);
    return 2;
  }
  if (!cuda && (o->n_gpus > 0 || s->overlap_given)) {
    fprintf(stderr, "cudal1 serve: --gpus and --overlap are for --device cuda; on the host, "
                    "--workers sets the evaluations in flight\n");
    return 2;
  }
  return 0;
}

int cl1_cmd_serve(int argc, char **argv) {
  if (cl1_cli_help(argc, argv, help_head)) {
    cl1_cli_eval_opts_usage(stdout);
    fputs(help_tail, stdout);
    return 0;
  }
  serve_args s = {0};
  cl1_serve_opts_default(&s.o);
  int rc = parse_args(argc, argv, &s);
  if (!rc) rc = check_args(&s);
  if (rc) return rc;
  cl1_err err = {{0}};
  rc = cl1_serve_run(&s.o, stdout, &err);
  if (rc) fprintf(stderr, "cudal1 serve: %s\n", err.msg);
  return rc;
}
