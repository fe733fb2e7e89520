/* store.h — the variant store: one SQLite file (WAL) holding tasks, runs, rounds, samples,
 * solutions and their evaluations (schema v1, /tmp/briefs/schema.md). Every write is one
 * transaction, so a process killed at any moment leaves the file consistent and loses at most the
 * samples it had in flight; the optimize loop resumes from what is here. One cl1_store may be
 * shared by several threads: a mutex inside serialises them on its one connection. */
#ifndef CL1_STORE_H
#define CL1_STORE_H
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include "../base/err.h"

#define CL1_STORE_SCHEMA_VERSION 6

typedef struct cl1_store cl1_store;

/* Opens (creating if absent) the store at path and brings its schema up to date, one migration
 * step per transaction. A file that is not SQLite, a SQLite file that is not a store, or a store
 * written by a newer cudal1 (higher meta.schema_version) is refused with a message naming the
 * file (and both versions). */
int cl1_store_open(const char *path, cl1_store **out, cl1_err *err);
void cl1_store_close(cl1_store *s); /* NULL is fine */
const char *cl1_store_path(const cl1_store *s);

/* The connection, for read-only report queries. Hold cl1_store_lock() around its use while other
 * threads may write through the same store (sqlite3_errmsg is per connection). */
sqlite3 *cl1_store_db(cl1_store *s);
void cl1_store_lock(cl1_store *s);
void cl1_store_unlock(cl1_store *s);

/* ---- tasks -------------------------------------------------------------------------------- */

/* Inserts or updates a task (id like "level1/19_ReLU"). */
int cl1_store_task_put(cl1_store *s, const char *task_id, int level, const char *name,
                       bool degenerate, cl1_err *err);

/* ---- runs --------------------------------------------------------------------------------- */

typedef struct {
  int64_t id;
  char *config, *status, *policy, *model /* NULL if none */, *device, *shapes;
  char *started_at, *finished_at /* NULL while running */;
} cl1_store_run;

/* A new run with status 'running'. policy: 'openai' | 'replay' | ...; device: 'cuda' | 'host';
 * shapes: 'test' | 'small' | 'large'; model may be NULL. */
int cl1_store_run_create(cl1_store *s, const char *config_json, const char *policy,
                         const char *model, const char *device, const char *shapes,
                         int64_t *run_id, cl1_err *err);
/* Fills *out (owned strings; cl1_store_run_free). A run that is not there is an error. */
int cl1_store_run_get(cl1_store *s, int64_t run_id, cl1_store_run *out, cl1_err *err);
void cl1_store_run_free(cl1_store_run *r);
/* status: 'running' (clears finished_at: a resumed run) | 'done' | 'interrupted' | 'failed'
 * (these set finished_at). */
int cl1_store_run_set_status(cl1_store *s, int64_t run_id, const char *status, cl1_err *err);
/* The newest run's id, 0 when there is none. */
int cl1_store_run_latest(cl1_store *s, int64_t *run_id, cl1_err *err);

/* ---- rounds ------------------------------------------------------------------------------- */

/* Get-or-create round `round` (1-based) of task_id in run_id; an existing round keeps its status
 * (resume). */
int cl1_store_round_open(cl1_store *s, int64_t run_id, const char *task_id, int round,
                         int64_t *round_id, cl1_err *err);
/* Marks the round 'done'; best_speedup < 0 (or NaN) stores NULL (no passing solution yet). */
int cl1_store_round_close(cl1_store *s, int64_t round_id, double best_speedup, cl1_err *err);
/* status: "open" | "done", or "" with *round_id = 0 when the round is not there. */
int cl1_store_round_status(cl1_store *s, int64_t run_id, const char *task_id, int round,
                           char status[16], int64_t *round_id, cl1_err *err);

/* ---- solutions and evaluations -------------------------------------------------------------- */

/* Puts a solution, deduplicated on (task_id, backend, sha256 of source): a source already there
 * returns its id with *existed = true (its origin, parents and run stay those of the first).
 * backend: 'cuda' | 'host'; origin: 'generated' | 'replayed' | 'example' | 'import' | 'served';
 * run_id 0 stores NULL (imported). */
int cl1_store_solution_put(cl1_store *s, const char *task_id, const char *backend,
                           const char *source, const char *origin, const int64_t *parent_ids,
                           int n_parents, int64_t run_id, int64_t *sol_id, bool *existed,
                           cl1_err *err);
/* The solution's source (malloc'd). A solution that is not there is an error. */
int cl1_store_solution_source(cl1_store *s, int64_t sol_id, char **source, cl1_err *err);

/* One evaluation. Strings: device, shapes, protocol_json and verdict are required; driver,
 * message, result_json may be NULL; flags_json NULL stores '[]'. A NaN double stores NULL
 * (speedup is 0, not NaN, for a verdict other than pass). */
typedef struct {
  int64_t solution_id;
  const char *task_id, *device, *driver, *shapes, *protocol_json, *verdict, *message, *flags_json,
      *result_json;
  double speedup, reward_speedup, reward, ref_ms, cand_ms, spread, wall_s;
} cl1_store_eval;

/* Inserts the evaluation; the solution must exist and belong to e->task_id. */
int cl1_store_eval_put(cl1_store *s, const cl1_store_eval *e, int64_t *eval_id, cl1_err *err);

/* ---- samples ------------------------------------------------------------------------------ */

/* One policy sample of a round; run and task come from the round. Required: round_id, idx
 * (0-based, unique in the round), prompt, status ('generated' once a completion is stored and
 * its code awaits evaluation; a parse status like 'no_code' / 'truncated'; 'gen_error').
 * exemplar_ids_json NULL stores '[]' (a JSON array of solution ids: they become the parents of
 * the sample's solution). policy and model (schema v4): who gave it — collect's policy NAME, or
 * optimize's backend. Other strings may be NULL; gen_s NaN stores NULL. */
typedef struct {
  int64_t round_id;
  int idx;
  const char *prompt, *exemplar_ids_json, *completion, *reasoning, *finish_reason, *status,
      *error, *analysis, *code;
  double gen_s;
  const char *policy, *model;
} cl1_store_sample;

int cl1_store_sample_add(cl1_store *s, const cl1_store_sample *smp, int64_t *sample_id,
                         cl1_err *err);
/* Sets a sample's status and its solution / evaluation ids (0 stores NULL). */
int cl1_store_sample_finish(cl1_store *s, int64_t sample_id, const char *status,
                            int64_t solution_id, int64_t eval_id, cl1_err *err);

/* What the loop calls once a 'generated' sample has been evaluated, in ONE transaction: puts
 * (or finds) the solution of source for the sample's task and run, with the sample's exemplar
 * ids as parents; inserts the evaluation e (its solution_id is ignored, its task_id may be NULL
 * or must be the sample's task); marks the sample 'evaluated' with both ids. A sample that is not
 * 'generated' is an error (it was evaluated already, or has no code). */
int cl1_store_sample_record_eval(cl1_store *s, int64_t sample_id, const char *backend,
                                 const char *source, const char *origin, const cl1_store_eval *e,
                                 int64_t *sol_id, int64_t *eval_id, cl1_err *err);

/* Samples of a round: all, and those still 'generated' (completion stored, not evaluated). */
int cl1_store_samples_count(cl1_store *s, int64_t round_id, int *n_total, int *n_pending,
                            cl1_err *err);

typedef struct {
  int64_t sample_id, round_id;
  int idx;
  char *task_id, *code;
} cl1_store_pending;

/* The run's samples still 'generated' with code (their evaluation was lost to a kill), oldest
 * first, so a resumed run evaluates them. *rows is malloc'd (NULL when *n = 0). */
int cl1_store_samples_pending(cl1_store *s, int64_t run_id, cl1_store_pending **rows, int *n,
                              cl1_err *err);
void cl1_store_pending_free(cl1_store_pending *rows, int n);

/* ---- queries ------------------------------------------------------------------------------ */

/* The task's best passing evaluation (MAX speedup, earliest on ties) among solutions of backend
 * evaluated at shapes. run_id != 0 restricts it to that run: solutions it first produced, or
 * whose evaluation one of its samples recorded (a source it re-discovered). *sol_id = 0 and
 * *speedup = 0 when there is none (not an error). */
int cl1_store_best(cl1_store *s, const char *task_id, const char *backend, const char *shapes,
                   int64_t run_id, int64_t *sol_id, double *speedup, cl1_err *err);

typedef struct {
  int64_t solution_id;
  double speedup; /* of its latest passing evaluation at the shapes asked */
  char *source;
} cl1_store_success;

/* One row per solution of task/backend with a passing evaluation at shapes, by solution id.
 * *rows is malloc'd (NULL when *n = 0); cl1_store_successes_free. */
int cl1_store_successes(cl1_store *s, const char *task_id, const char *backend,
                        const char *shapes, cl1_store_success **rows, int *n, cl1_err *err);
void cl1_store_successes_free(cl1_store_success *rows, int n);

/* What one policy's samples in a run came to (`cudal1 collect`'s report): samples asked for;
 * of them generation errors (the server or the replay file gave no completion), replies with
 * code, code never evaluated (the run stopped, or the evaluator could not judge it), evaluated;
 * of those executable (pass, incorrect or hack:*: it compiled and ran to its outputs), correct
 * (pass) and faster (pass with speedup > 1.0). */
typedef struct {
  int asked, gen_errors, with_code, unjudged, evaluated, executable, correct, faster;
} cl1_store_tally;
int cl1_store_policy_tally(cl1_store *s, int64_t run_id, const char *policy,
                           cl1_store_tally *out, cl1_err *err);

/* ---- scored items (schema v3: the reward service, `cudal1 serve`) ---------------------------- */

/* One item the service answered. Required: task_id (in the tasks table), backend, shapes,
 * status ('ok' | 'infra_error'), verdict, result_json (the answer given, without the caller's id
 * and "cached"). item_id, completion, meta_json may be NULL; reward and score01 NaN store NULL.
 * solution_id / evaluation_id: for a cached answer, the evaluation it re-served (0: none). */
typedef struct {
  const char *item_id, *task_id, *backend, *shapes, *completion, *status, *verdict, *meta_json,
      *result_json;
  double reward, score01;
  bool cached;
  int64_t solution_id, evaluation_id;
} cl1_store_score;

/* Records a scored item in ONE transaction: with source, its solution (origin 'served',
 * deduplicated); with e (its solution_id and task_id ignored), that solution's evaluation; then
 * the item's row pointing at both. So a service killed at any moment has either the whole item
 * or none of it. *score_id may be NULL. */
int cl1_store_score_record(cl1_store *s, const cl1_store_score *sc, const char *source,
                           const cl1_store_eval *e, int64_t *score_id, cl1_err *err);
/* Answers of n items whose solution and evaluation are stored already (answers from the store:
 * solution_id and evaluation_id set) in one transaction, which a service answering many items at
 * once commits together; ids[i] (ids may be NULL) their rows. 0, or -1 with err and none of them
 * recorded. */
int cl1_store_score_record_many(cl1_store *s, const cl1_store_score *const *sc, int n,
                                int64_t *ids, cl1_err *err);
/* The reward, score01 and answer text of n recorded rows (ids), replaced in one transaction: a
 * request's passes paid again once all of its evaluations joined the statistics. 0, or -1 with
 * err and none of them changed. */
int cl1_store_score_repaid(cl1_store *s, const int64_t *ids, const double *reward,
                           const double *score01, const char *const *result_json, int n,
                           cl1_err *err);

/* The answer the service first gave for this source of task/backend at shapes under protocol
 * (its evaluation's protocol text, compared exactly): the newest such evaluation with an 'ok'
 * row that was not itself cached. *result_json malloc'd with the ids set, and *reward_speedup
 * (when not NULL) the speedup that evaluation's reward pays; NULL, zero ids and 0 when there is
 * none (not an error). */
int cl1_store_score_find(cl1_store *s, const char *task_id, const char *backend,
                         const char *source, const char *shapes, const char *protocol,
                         int64_t *sol_id, int64_t *eval_id, char **result_json,
                         double *reward_speedup, cl1_err *err);

/* ---- training runs (schema v5: `cudal1 train`) ---------------------------------------------- */

typedef struct {
  int64_t id;
  char *created, *stage, *engine, *model /* NULL: the engine's embedded model */, *out, *config,
      *status;
} cl1_store_train_run;

/* A new training run with status 'running'. stage: sft|selfsup|grpo|all; engine: trl|verl;
 * out: the run's output folder; config: the engine's config (JSON text). */
int cl1_store_train_run_create(cl1_store *s, const char *stage, const char *engine,
                               const char *model, const char *out, const char *config,
                               int64_t *run_id, cl1_err *err);
/* Fills *out (owned strings; cl1_store_train_run_free). A run that is not there is an error. */
int cl1_store_train_run_get(cl1_store *s, int64_t run_id, cl1_store_train_run *out, cl1_err *err);
void cl1_store_train_run_free(cl1_store_train_run *r);
/* status: running|done|failed|stopped; config NULL keeps the stored one (a resumed run stores
 * the config it resumed with). */
int cl1_store_train_run_update(cl1_store *s, int64_t run_id, const char *status,
                               const char *config, cl1_err *err);
/* One event of the run's engine: event (its "event"), stage (NULL when it names none), round and
 * step (-1 when absent) and the whole event object as JSON text (data). */
int cl1_store_train_event_add(cl1_store *s, int64_t run_id, const char *event, const char *stage,
                              int round, int step, const char *data, cl1_err *err);

/* ---- imported solutions (schema v6: `cudal1 import`) ---------------------------------------- */

/* One imported row: its task (inserted when absent; an existing row, a suite task's, is kept as
 * it is), its solution (origin 'import', no run, deduplicated like every solution) and what its
 * publisher claimed, with the row's provenance. Required: task_id, task_name, backend
 * ('cuda' | 'host'), source, kind ('cuda-l1' | 'jsonl'), source_file, line (>= 1), task (the
 * row's task as it named it), format ('kernelbench' | 'cabi'), claims_json (a JSON object's
 * text). level: the task's (0 when unknown); claim_level: the row's own (0 stores NULL). */
typedef struct {
  const char *task_id, *task_name;
  int level;
  const char *backend, *source;
  const char *kind, *source_file;
  int line, claim_level;
  const char *task, *format, *claims_json;
} cl1_store_import;

/* Writes task, solution and claim in ONE transaction: all three or none. The claim is upserted
 * on (solution, source_file, line): importing the same file again adds nothing and refreshes
 * the claims. *existed: the solution was in the store already. */
int cl1_store_import_put(cl1_store *s, const cl1_store_import *im, int64_t *sol_id,
                         bool *existed, cl1_err *err);

/* ---- baselines (schema v2) ------------------------------------------------------------------ */

/* One baseline time: status "ok" (median_ms > 0) or why the mode failed; ref_ms the C reference
 * timed beside it (NaN: not measured). Upserted on (task_id, shapes, name); the task must be in
 * the tasks table. */
typedef struct {
  const char *task_id, *shapes, *name, *status, *torch, *gpu, *source;
  double median_ms, ref_ms, ci_rel;
} cl1_store_baseline;
int cl1_store_baseline_put(cl1_store *s, const cl1_store_baseline *b, cl1_err *err);
/* n rows in one transaction: all of them are written or none. */
int cl1_store_baselines_put(cl1_store *s, const cl1_store_baseline *rows, int n, cl1_err *err);

typedef struct {
  bool found;
  char status[256];
  double median_ms, ref_ms;
  char gpu[128];
} cl1_store_baseline_row;
int cl1_store_baseline_get(cl1_store *s, const char *task_id, const char *shapes, const char *name,
                           cl1_store_baseline_row *out, cl1_err *err);

#endif
