/* train.h — `cudal1 train` (issue 21): CUDA-L1's three stages run by an existing training engine
 * (python/cudal1/train/: TRL or verl) with cudal1 as the reward, the data and the record. This
 * module starts its own `cudal1 serve` on a loopback port with a fresh token, writes the
 * engine's config (OUT/train-config.json, the contract in the design notes), runs the engine as
 * a child, streams its log to the terminal and OUT/train.log, records every CL1TRAIN event in the
 * store (train_runs, train_events) and stops everything cleanly on Ctrl-C.
 * train_config.c: options, the model check, the config and OUT/run.json; train_event.c: the
 * engine's event lines; train_proc.c: the two children and the signals; train.c: the run. */
#ifndef CL1_TRAIN_H
#define CL1_TRAIN_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "../base/err.h"
#include "../eval/eval.h"

#define CL1_TRAIN_MAX_TASKS 300 /* the suite has 250 */
#define CL1_TRAIN_MAX_SERVE_ARGS 32

/* What `cudal1 train` was asked to do. Strings are borrowed (argv, the caller's). */
typedef struct {
  const char *stage;            /* sft | selfsup | grpo | all */
  const char *engine;           /* trl | verl */
  const char *model;            /* a checkpoint folder; NULL: the engine's embedded model */
  const char *embedded;         /* the embedded model's size: small (default) | tiny (tests) */
  const char *db, *out;         /* the store; the run's output folder */
  const char *tasks[CL1_TRAIN_MAX_TASKS]; /* suite ids (level1/19_ReLU), checked, distinct */
  int n_tasks;
  cl1_eval_opts eval;           /* the service's evaluation (backend, shapes, timing) */
  const char *serve_args[CL1_TRAIN_MAX_SERVE_ARGS]; /* those options as given, for the child */
  int n_serve_args;
  const char *torch_device;     /* cpu | cuda: where the engine trains */
  long long seed;
  bool lora, resume;
  bool static_cache;            /* generation with a KV cache allocated once at its full length */
  bool mask_truncated;          /* GRPO trains no token of a reply that ran out of tokens */
  double lr;
  double selfsup_lr;            /* stage 2's learning rate; 0: lr's */
  double rl_lr;                 /* stage 3's learning rate; 0: lr's */
  double temperature;           /* sampling: stage 2, the evals, and GRPO's rollouts unless
                                   rl_temperature */
  double rl_temperature;        /* GRPO's rollouts; 0: temperature's */
  int rl_batch_size;            /* prompts per GRPO step; 0: batch_size's */
  int sft_epochs, sft_max_steps, selfsup_rounds, samples_per_task, grpo_rounds,
      grpo_steps_per_round, num_generations, exemplars, max_prompt_len, max_completion_len,
      batch_size;
  int sft_exemplars;            /* > 0: stage 1's rows also under contrastive prompts with up to
                                   this many exemplars (cl1_dataset_sft_opts.exemplars) */
  int sft_exemplar_rows;        /* such rows per solution, each another exemplar pick (>= 1) */
  int gen_batch;                /* sequences per generate() call when sampling; 0: batch_size x
                                   num_generations (GRPO's own batch) */
  int grpo_iterations;          /* GRPO's mu: optimizer steps on each step's rollouts (TRL's
                                   num_iterations, verl's ppo_epochs); >= 1 */
  int grpo_probe;               /* > 0: stage 3's probe, this many samples per task under fixed
                                   prompts before its first round and after each (0: none) */
  const char *vllm_server;      /* NULL: generation in the engine's process */
  const char *python;           /* the interpreter of the default engine command */
  FILE *out_stream, *err_stream; /* the terminal: the engine's stdout and stderr, our lines */
} cl1_train_opts;

/* The contract's defaults (stage, engine, out and tasks are left for the caller). */
void cl1_train_opts_default(cl1_train_opts *o);

/* A user's checkpoint: an existing folder holding tokenizer.json or tokenizer_config.json. Its
 * absolute path into abs. 0, or -1 with err naming the path and what is missing. */
int cl1_train_check_model(const char *path, char *abs, size_t n, cl1_err *err);

/* The repository root the engine needs (python/cudal1 for PYTHONPATH, the corpus for the
 * embedded tokenizer): the binary's folder's parent, else the working directory, whichever
 * holds python/cudal1/__init__.py. 0, or -1 with err naming both places. */
int cl1_train_find_repo(char *out, size_t n, cl1_err *err);

/* Where a run's files are: the absolute output folder and the files in it. */
typedef struct {
  char out[4096], data_dir[4200], sft_data[4200], config[4200], run_json[4200], log[4200],
      serve_log[4200], lock[4200];
  char repo[4096], model[4096]; /* model: "" for the embedded one */
} cl1_train_paths;

/* OUT/train-config.json's text (every key of the contract present): malloc'd, NULL when out of
 * memory. */
char *cl1_train_config_json(const cl1_train_opts *o, const cl1_train_paths *p, int64_t run_id,
                            bool resume);

/* OUT/run.json: the run this folder belongs to, for --resume. */
typedef struct {
  int64_t run_id;
  char db[4096], stage[16], engine[16];
} cl1_train_runfile;
/* 1 and *rf filled when path exists, 0 when it does not, -1 with err when it cannot be read or
 * is not a run file (naming the path and the field). */
int cl1_train_runfile_read(const char *path, cl1_train_runfile *rf, cl1_err *err);
int cl1_train_runfile_write(const char *path, const cl1_train_runfile *rf, cl1_err *err);

/* ---- the engine's events (train_event.c) -------------------------------------------------- */

#define CL1_TRAIN_EVENT_PREFIX "CL1TRAIN "

/* One CL1TRAIN line, parsed: its name, stage (or ""), round and step (-1 when absent), and the
 * object (owned; cl1_train_event_free). */
typedef struct {
  char event[32], stage[16];
  int round, step;
  void *json; /* cJSON * */
} cl1_train_event;

/* Whether line (without its newline) is an event line. */
bool cl1_train_is_event(const char *line);
/* Parses the JSON after the prefix: an object with a string "event"; "stage" a string, "round"
 * and "step" non-negative integers when present. 0, or -1 with err saying what is wrong. */
int cl1_train_event_parse(const char *line, cl1_train_event *ev, cl1_err *err);
void cl1_train_event_free(cl1_train_event *ev);
/* The one-line summary shown on the terminal, e.g. "[grpo r0 s3] reward 0.31 +- 0.20, success
 * 50.0%, speedup mean 1.02x best 1.30x, loss 0.0120 (generate 1.2 s, reward 0.8 s, update 0.5 s)". */
void cl1_train_event_summary(const cl1_train_event *ev, char *buf, size_t n);
/* The event's JSON text (unformatted, malloc'd) as recorded in the store. */
char *cl1_train_event_text(const cl1_train_event *ev);
/* The error event's "message" (and " (hint)" when given) into buf; false for other events. */
bool cl1_train_event_error(const cl1_train_event *ev, char *buf, size_t n);

/* ---- the run (train.c) -------------------------------------------------------------------- */

/* Runs the whole thing and returns the process exit status: 0 done; 2 the user's input (the
 * model path, no training data, the engine's exit 2 or 5: a missing Python dependency); 3
 * infrastructure (the service would not start or died, the engine's exit 3 or 4: out of
 * memory, or it crashed); 130 stopped by SIGINT/SIGTERM. err holds the final message for every
 * non-zero status but 130 (the caller prints it). */
int cl1_train_run(const cl1_train_opts *o, cl1_err *err);

/* ---- the children (train_proc.c) ---------------------------------------------------------- */

/* SIGINT/SIGTERM recorded, not acted on: cl1_train_signal() says how many arrived and the last
 * one. install saves the previous handlers; restore puts them back. */
void cl1_train_signals_install(void);
void cl1_train_signals_restore(void);
int cl1_train_signal(int *last);

/* The child `cudal1 serve`: started from this binary on 127.0.0.1 --port 0 with a fresh token
 * (or $CUDAL1_SERVE_TOKEN with $CUDAL1_SERVE_URLS: cl1_train_token_check), given in its
 * environment, never on its command line, and the same store; its stderr and, after the
 * announcement, its stdout go to log_path. */
typedef struct {
  int pid, port;
  int out_fd;      /* its stdout after the announcement (-1 once at its end) */
  int log_fd;
  char token[256];
  char url[64];
} cl1_train_serve;
/* $CUDAL1_SERVE_URLS set (evaluation services on other nodes, which the engine's verl reward
 * module calls) needs their token in $CUDAL1_SERVE_TOKEN: the child service then takes it too.
 * 0, or 2 with err. */
int cl1_train_token_check(cl1_err *err);
/* Starts it and waits (up to timeout_s) for "cudal1 serve: listening on http://127.0.0.1:PORT".
 * 0, or 2/3 (the service's own exit status when it stopped, else 3) with err quoting the last
 * line of its log. */
int cl1_train_serve_start(const cl1_train_opts *o, const char *log_path, double timeout_s,
                          cl1_train_serve *s, cl1_err *err);
/* Moves what the service printed since into its log; false once its stdout is closed. */
bool cl1_train_serve_pump(cl1_train_serve *s);
/* Whether the service has exited (its wait status in *status); reaps it. */
bool cl1_train_serve_exited(cl1_train_serve *s, int *status);
/* SIGTERM (it drains the accepted items), then waits up to grace_s before SIGKILL; reaps it.
 * A second SIGINT/SIGTERM to us meanwhile kills it at once. */
void cl1_train_serve_stop(cl1_train_serve *s, double grace_s);

/* The engine: $CUDAL1_TRAIN_ENGINE run by sh -c with "--config CONFIG" appended, else
 * PYTHON -m cudal1.train --config CONFIG; in its own process group, with the contract's
 * environment. Its stdout and stderr come back through the two fds. */
typedef struct {
  int pid;
  int out_fd, err_fd;
} cl1_train_engine;
int cl1_train_engine_start(const cl1_train_opts *o, const cl1_train_paths *p,
                           const cl1_train_serve *s, cl1_train_engine *e, cl1_err *err);
/* Signals the engine's whole process group. */
void cl1_train_engine_signal(const cl1_train_engine *e, int sig);

#endif
