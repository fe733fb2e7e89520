/* serve_int.h — what the service's three files share: the service state, a batch of items and
 * its life (prepared, queued for compile, queued for evaluation, done). Not a public header. */
#ifndef CL1_SERVE_INT_H
#define CL1_SERVE_INT_H
#include <pthread.h>
#include <cjson/cJSON.h>
#include "serve.h"
#include "../eval/gpu_lock.h"
#include "../loop/format.h"
#include "../store/store.h"

/* A task the service has resolved once (a suite task; never a path a client names). */
typedef struct {
  char *key;                 /* the name a client used */
  char *id, *dir, *name;     /* canonical id (level1/19_ReLU), folder, KernelBench name */
  int level;
  bool degenerate;
} cl1_serve_task;

typedef enum {
  CL1_ITEM_DONE = 0,         /* item->result set */
  CL1_ITEM_Q_COMPILE,
  CL1_ITEM_COMPILING,
  CL1_ITEM_Q_EVAL,
  CL1_ITEM_EVALUATING,
  CL1_ITEM_FOLLOWING         /* the same code of the same task is in flight: its answer is ours */
} cl1_serve_state;

struct cl1_serve_batch;

typedef struct cl1_serve_item {
  struct cl1_serve_item *next; /* its queue */
  struct cl1_serve_batch *batch;
  cl1_serve_state state;
  bool cancel;               /* the deadline passed while it compiled */
  /* the request */
  char *id_json;             /* the caller's id as JSON text (a string or a number) */
  const cl1_serve_task *task;
  char *code;                /* the source evaluated; NULL when a completion had none */
  char *completion;          /* the raw reply, when the item came as one */
  char *meta_json;           /* the caller's meta as JSON text, or NULL */
  bool fresh;
  cl1_format format;         /* how a completion is parsed and the file's extension (.py) */
  char path[600];            /* the code as a file for the compiler and the evaluator, or "" */
  /* the answer (serve_score.c): without id and "cached" */
  cJSON *result;
  bool cached;
  bool repayable;            /* a pass: paid again when its request settles */
  double paid;               /* the speedup its reward pays (cl1_eval_result.reward_speedup) */
  int64_t score_id;          /* its row in the store's scores, 0 when not recorded */
  /* identical items in flight (under the service's mu): a follower waits for its leader's
     evaluation instead of running its own */
  struct cl1_serve_item *leader, *followers, *next_follower;
} cl1_serve_item;

typedef struct cl1_serve_batch {
  int n, pending;            /* pending: items not done (under the service's mu) */
  cl1_serve_item *items;
  struct cl1_serve_batch *next_active;  /* the service's batches with items in flight */
} cl1_serve_batch;

/* A batch submitted with POST /v1/jobs: evaluated by its own thread, polled with GET
 * /v1/jobs/{id}, kept --job-ttl seconds after it finished (serve_jobs.c). */
typedef struct cl1_serve_job {
  struct cl1_serve_job *next;
  char id[33];               /* 128 random bits, hex: a job is read by whoever knows its id */
  struct cl1_serve *svc;
  cl1_serve_batch *batch;    /* while it runs; NULL once done */
  double deadline_s, submitted, finished;
  int n;
  cJSON *results;            /* once done: {"results":[...]} as /v1/score answers */
} cl1_serve_job;

typedef struct cl1_serve {
  const cl1_serve_opts *o;
  cl1_store *store;
  char stats_path[4200];     /* the reward's running statistics, beside the store */
  char tmpdir[512];          /* items' source files */
  char device[128];          /* "host", or the GPU's name */
  char *protocol[2];         /* the evaluation protocol as canonical JSON, per format
                                (cl1_format): part of the cache key */
  double started;
  cl1_gpu_lock gpu[CL1_SERVE_MAX_GPUS];  /* CUDA: one per --gpus entry */
  int n_gpu;
  /* under mu */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  cl1_serve_item *cq_head, *cq_tail, *eq_head, *eq_tail;
  int queued, compiling, evaluating, active_requests;
  bool stopping, shutdown;
  long seq;                  /* names items' files */
  cl1_serve_batch *active;   /* batches with items in flight: where a leader is looked for */
  long requests, items, evaluations, cache_hits, infra_errors, rejected, followed;
  double eval_seconds;
  /* group commit of answers from the store (serve_score.c): under commit_mu */
  pthread_mutex_t commit_mu;
  pthread_cond_t commit_cv;
  struct cl1_serve_rec *commit_q;
  bool committing;
  /* under jobs_mu (taken before mu, never after) */
  pthread_mutex_t jobs_mu;
  cl1_serve_job *jobs;
  long jobs_submitted;
  /* under task_mu */
  pthread_mutex_t task_mu;
  cl1_serve_task **tasks;
  int n_tasks, cap_tasks;
} cl1_serve;

/* serve.c: runs a prepared batch (serve_score's cl1_serve_prepare on every item) to the end:
 * queues the items that need an evaluation and waits for them; after deadline_s (> 0) items not
 * yet evaluating are answered infra_error. Returns 200, or 503 with *retry_after (seconds) when
 * the queue is full or the service is stopping (nothing queued then). A 200 counts the request
 * as active until cl1_serve_request_done (once its answer is sent: the drain waits for that). */
int cl1_serve_batch_run(cl1_serve *svc, cl1_serve_batch *b, double deadline_s, int *retry_after);
/* batch_run in two halves, for a job: admit (queue it, or 503 as above) and wait (until every
 * item is done or answered infra_error past deadline_s). */
int cl1_serve_batch_admit(cl1_serve *svc, cl1_serve_batch *b, int *retry_after);
void cl1_serve_batch_wait(cl1_serve *svc, cl1_serve_batch *b, double deadline_s);
/* Items of an admitted batch not yet answered. */
int cl1_serve_batch_left(cl1_serve *svc, const cl1_serve_batch *b);
void cl1_serve_request_done(cl1_serve *svc);
/* The counters as a JSON object. */
cJSON *cl1_serve_stats(cl1_serve *svc);
void cl1_serve_batch_free(cl1_serve_batch *b);

/* serve_score.c */
/* The suite task a client names (id forms `cudal1 suite` accepts; no paths): NULL with why in
 * msg. Recorded in the store's tasks table the first time. */
const cl1_serve_task *cl1_serve_task_get(cl1_serve *svc, const char *name, char *msg, size_t n);
void cl1_serve_tasks_free(cl1_serve *svc);
/* The protocol text of this service's evaluations of solutions in format f (malloc'd). */
char *cl1_serve_protocol(const cl1_serve_opts *o, const char *device, cl1_format f);
/* Before queueing: a completion parsed (no code: answered here), the store asked for an earlier
 * answer (unless fresh), and the code written to a file for those that need an evaluation.
 * Leaves item->state DONE with item->result, or Q_COMPILE with item->path. */
void cl1_serve_prepare(cl1_serve *svc, cl1_serve_item *it);
/* The store's answer for the item's code under this protocol, recorded for it; false when the
 * store has none. */
bool cl1_serve_from_store(cl1_serve *svc, cl1_serve_item *it);
/* Once every item of the batch is answered: its passes paid again against the task's statistics
 * as they are now, all of its evaluations joined, and their store rows updated to match. */
void cl1_serve_batch_settle(cl1_serve *svc, cl1_serve_batch *b);
/* Evaluates a compiled item and records it; sets item->result. */
void cl1_serve_evaluate(cl1_serve *svc, cl1_serve_item *it, cl1_gpu_lock *gpu);
/* serve_prompts.c: POST /v1/prompts {"tasks":[...], "n", "exemplars", "tau", "seed", "format"} ->
 * {"prompts":[{"task","prompt_id","index","messages":[system,user],"exemplar_ids"}]}, n per task,
 * exemplars from the store as `cudal1 optimize` and `cudal1 dataset rl` draw them. NULL with
 * *status 400 (msg names the field) or 500 (a prompt could not be built: msg says why). */
cJSON *cl1_serve_prompts(cl1_serve *svc, const cJSON *req, unsigned *status, char *msg,
                         size_t msg_n);
/* An infra_error answer with this feedback (recorded in the store too). */
void cl1_serve_infra(cl1_serve *svc, cl1_serve_item *it, const char *why);

/* serve_jobs.c: POST /v1/jobs with a prepared batch -> 202 {"job","status","items","done"}, or
 * 503 (queue or --max-jobs full; *retry_after set); the batch is the job's from then on (freed by
 * it), whatever the answer. */
unsigned cl1_serve_job_submit(cl1_serve *svc, cl1_serve_batch *b, double deadline_s,
                              cJSON **answer, int *retry_after);
/* GET /v1/jobs/{id}: {"job","status":"running"|"done","items","done","age_s"} with "results" once
 * done; NULL when no such job is kept. */
cJSON *cl1_serve_job_get(cl1_serve *svc, const char *id);
/* The jobs' counters into /v1/stats. */
void cl1_serve_jobs_stats(cl1_serve *svc, cJSON *stats);
/* At shutdown (every job finished: the drain waited for them). */
void cl1_serve_jobs_free(cl1_serve *svc);

/* serve_http.c */
/* A finished batch's answers in request order, with the caller's ids and "cached". */
cJSON *cl1_serve_results_doc(const cl1_serve_batch *b);
struct MHD_Daemon;
/* Starts the HTTP daemon on o->bind:o->port; *port the one it got. NULL with err. */
struct MHD_Daemon *cl1_serve_http_start(cl1_serve *svc, int *port, cl1_err *err);
#endif
