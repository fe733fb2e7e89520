/* serve.h — `cudal1 serve`, the reward service training engines call (issue 20): an HTTP server
 * (libmicrohttpd) that takes batches of candidate solutions or raw policy replies, runs each
 * through the sandboxed evaluator, and answers with CUDA-L1's reward, a [0, 1] score, the
 * verdict and short feedback; every item is recorded in the store, and the same code under the
 * same protocol is answered from the store (idempotent retries). serve.c: startup, threads,
 * drain; serve_http.c: the endpoints, auth and limits; serve_score.c: items to evaluations to
 * results. */
#ifndef CL1_SERVE_H
#define CL1_SERVE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "../eval/eval.h"
#include "../base/err.h"

#define CL1_SERVE_DEFAULT_PORT 8421
#define CL1_SERVE_MAX_GPUS 16

typedef struct {
  const char *bind;          /* a numeric IPv4/IPv6 address or "localhost"; default 127.0.0.1 */
  int port;                  /* 0: any free port (announced) */
  const char *token;         /* bearer token every endpoint but /healthz needs; NULL: none */
  const char *db;            /* the store; the reward statistics live in DB.reward-stats.json */
  const char *tasks_dir;     /* task folders beneath it may be named by path (imported KernelBench
                                problems); NULL: the suite's tasks only */
  cl1_eval_opts eval;        /* backend, shapes, timing protocol, reward configuration */
  int workers;               /* concurrent evaluations (host) */
  int gpus[CL1_SERVE_MAX_GPUS], n_gpus;  /* CUDA: the GPUs judged on (default: GPU 0) */
  int overlap;               /* CUDA: evaluations in flight per GPU, timing one at a time */
  int spares;                /* workers kept started ahead per GPU (host: in all); -1: as many
                                as the evaluations in flight */
  int spare_fillers;         /* threads starting spares side by side; 0: spare.c's default (2) */
  double spare_wait_s;       /* how long an evaluation finding no spare ready waits for one the
                                fillers are starting before it spawns its own (0: not at all) */
  int compile_jobs;          /* compiles running ahead of the evaluations */
  int max_queue;             /* items waiting (not yet evaluating) before 503 */
  int max_items;             /* items of one request */
  size_t max_body;           /* bytes of one request body */
  int idle_timeout_s;        /* a connection idle this long is closed */
  int max_jobs;              /* POST /v1/jobs batches kept at once (running or finished) */
  int job_ttl_s;             /* a finished job's answers are kept this long */
} cl1_serve_opts;

void cl1_serve_opts_default(cl1_serve_opts *o);

/* --gpus LIST: comma-separated GPU indices (0..63, no repeats, at most CL1_SERVE_MAX_GPUS) into
 * o->gpus; 0, or 2 with the message in err naming the entry. */
int cl1_serve_parse_gpus(cl1_serve_opts *o, const char *list, cl1_err *err);

/* Whether bind names this machine's loopback (127.0.0.0/8, ::1, "localhost"); false for
 * anything else, including text that is no address. */
bool cl1_serve_is_loopback(const char *bind);

/* Runs the service until SIGINT or SIGTERM, then stops accepting, finishes every accepted item,
 * closes the store and returns 0. The line "cudal1 serve: listening on http://ADDR:PORT" goes
 * to announce (flushed) once the port is open. 2 with err for a wrong option value (a bind
 * address that is not one), 3 with err when the service cannot start (store, port in use). */
int cl1_serve_run(const cl1_serve_opts *o, FILE *announce, cl1_err *err);
#endif
