/* train_config.c — what `cudal1 train` hands its engine: the contract's defaults, the check of a
 * user's checkpoint, the repository the engine imports from, OUT/train-config.json (every key
 * always present, so the engine never guesses a default of its own) and OUT/run.json (the run
 * a folder belongs to, which --resume continues). */
#include "train.h"
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../base/file.h"
#include "../base/proc.h"

void cl1_train_opts_default(cl1_train_opts *o) {
  memset(o, 0, sizeof *o);
  o->engine = "trl";
  o->embedded = "small";
  o->db = "cudal1.db";
  cl1_eval_opts_default(&o->eval);
  o->seed = 0;
  o->lr = 5e-5;
  o->temperature = 1.0;
  o->sft_epochs = 3;
  o->sft_max_steps = 0;
  o->selfsup_rounds = 2;
  o->samples_per_task = 4;
  o->grpo_rounds = 2;
  o->grpo_steps_per_round = 4;
  o->grpo_iterations = 1;
  o->num_generations = 4;
  o->exemplars = 2;
  o->sft_exemplar_rows = 1;
  o->max_prompt_len = 1024;
  o->max_completion_len = 256;
  o->batch_size = 4;
  o->python = "python3";
  o->out_stream = stdout;
  o->err_stream = stderr;
}

static bool is_file(const char *dir, const char *name) {
  char p[PATH_MAX + 64];
  struct stat sb;
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return !stat(p, &sb) && S_ISREG(sb.st_mode);
}

int cl1_train_check_model(const char *path, char *abs, size_t n, cl1_err *err) {
  struct stat sb;
  if (stat(path, &sb))
    return cl1_err_set(err, "--model %s: %s", path,
                       errno == ENOENT ? "no such folder (a checkpoint folder with the weights and "
                                         "tokenizer.json; leave --model out for the embedded model)"
                                       : strerror(errno));
  if (!S_ISDIR(sb.st_mode))
    return cl1_err_set(err, "--model %s: not a folder (give the checkpoint's folder, holding the "
                            "weights and tokenizer.json)", path);
  char real[PATH_MAX];
  if (!realpath(path, real)) return cl1_err_set(err, "--model %s: %s", path, strerror(errno));
  if (!is_file(real, "tokenizer.json") && !is_file(real, "tokenizer_config.json"))
    return cl1_err_set(err, "--model %s: no tokenizer there (neither tokenizer.json nor "
                            "tokenizer_config.json): save the tokenizer with the checkpoint",
                       path);
  if (strlen(real) >= n) return cl1_err_set(err, "--model %s: path too long", path);
  memcpy(abs, real, strlen(real) + 1);
  return 0;
}

/* dir, when it holds python/cudal1/__init__.py, resolved into out. */
static bool repo_at(const char *dir, char *out, size_t n) {
  char p[PATH_MAX + 64], real[PATH_MAX];
  snprintf(p, sizeof p, "%s/python/cudal1/__init__.py", dir);
  if (access(p, R_OK) || !realpath(dir, real) || strlen(real) >= n) return false;
  memcpy(out, real, strlen(real) + 1);
  return true;
}

int cl1_train_find_repo(char *out, size_t n, cl1_err *err) {
  char exe[PATH_MAX], up[PATH_MAX + 8];
  bool have_exe = !cl1_proc_exe_dir(exe, sizeof exe);
  if (have_exe) {
    snprintf(up, sizeof up, "%s/..", exe);
    if (repo_at(up, out, n)) return 0;
  }
  if (repo_at(".", out, n)) return 0;
  return cl1_err_set(err, "cannot find the cudal1 repository (python/cudal1/__init__.py) above "
                          "the binary (%s/..) or in the working directory: run cudal1 train "
                          "from the repository", have_exe ? exe : "?");
}

static void add_str_or_null(cJSON *o, const char *k, const char *v) {
  if (v && *v) cJSON_AddStringToObject(o, k, v);
  else cJSON_AddNullToObject(o, k);
}

/* text + "\n" (a file's last line ends), text freed; NULL when out of memory. */
static char *with_newline(char *text) {
  if (!text) return NULL;
  size_t n = strlen(text);
  char *t = realloc(text, n + 2);
  if (!t) {
    free(text);
    return NULL;
  }
  t[n] = '\n', t[n + 1] = 0;
  return t;
}

char *cl1_train_config_json(const cl1_train_opts *o, const cl1_train_paths *p, int64_t run_id,
                            bool resume) {
  cJSON *c = cJSON_CreateObject();
  if (!c) return NULL;
  cJSON_AddNumberToObject(c, "version", 1);
  cJSON_AddNumberToObject(c, "run_id", (double)run_id);
  cJSON_AddStringToObject(c, "stage", o->stage);
  cJSON_AddStringToObject(c, "engine", o->engine);
  add_str_or_null(c, "model", p->model);
  cJSON_AddStringToObject(c, "embedded", o->embedded); /* read when model is null */
  cJSON_AddStringToObject(c, "out", p->out);
  cJSON_AddStringToObject(c, "repo", p->repo);
  cJSON *t = cJSON_AddArrayToObject(c, "tasks");
  for (int i = 0; i < o->n_tasks; i++) cJSON_AddItemToArray(t, cJSON_CreateString(o->tasks[i]));
  cJSON_AddStringToObject(c, "sft_data", p->sft_data);
  cJSON_AddStringToObject(c, "device", o->torch_device);
  cJSON_AddNumberToObject(c, "seed", (double)o->seed);
  cJSON_AddBoolToObject(c, "lora", o->lora);
  cJSON_AddBoolToObject(c, "static_cache", o->static_cache);
  cJSON_AddBoolToObject(c, "mask_truncated", o->mask_truncated);
  cJSON_AddNumberToObject(c, "lr", o->lr);
  cJSON_AddNumberToObject(c, "selfsup_lr", o->selfsup_lr > 0 ? o->selfsup_lr : o->lr);
  cJSON_AddNumberToObject(c, "rl_lr", o->rl_lr > 0 ? o->rl_lr : o->lr);
  cJSON_AddNumberToObject(c, "temperature", o->temperature);
  cJSON_AddNumberToObject(c, "rl_temperature", o->rl_temperature > 0 ? o->rl_temperature : o->temperature);
  cJSON_AddNumberToObject(c, "rl_batch_size", o->rl_batch_size > 0 ? o->rl_batch_size : o->batch_size);
  const struct { const char *k; int v; } ints[] = {
      {"sft_epochs", o->sft_epochs}, {"sft_max_steps", o->sft_max_steps},
      {"selfsup_rounds", o->selfsup_rounds}, {"samples_per_task", o->samples_per_task},
      {"grpo_rounds", o->grpo_rounds}, {"grpo_steps_per_round", o->grpo_steps_per_round},
      {"num_generations", o->num_generations}, {"exemplars", o->exemplars},
      {"max_prompt_len", o->max_prompt_len}, {"max_completion_len", o->max_completion_len},
      {"batch_size", o->batch_size}, {"gen_batch", o->gen_batch},
      {"sft_exemplars", o->sft_exemplars}, {"sft_exemplar_rows", o->sft_exemplar_rows},
      {"grpo_probe", o->grpo_probe},
      {"grpo_iterations", o->grpo_iterations}};
  for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
    cJSON_AddNumberToObject(c, ints[i].k, ints[i].v);
  add_str_or_null(c, "vllm_server", o->vllm_server);
  cJSON_AddBoolToObject(c, "resume", resume);
  char *text = cJSON_Print(c);
  cJSON_Delete(c);
  return with_newline(text);
}

/* ---- OUT/run.json ---- */

static int copy_field(const cJSON *o, const char *k, char *dst, size_t n, const char *path,
                      cl1_err *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  if (!cJSON_IsString(v) || !*v->valuestring || strlen(v->valuestring) >= n)
    return cl1_err_set(err, "%s: \"%s\" is missing or not a string (not a cudal1 train run file)",
                       path, k);
  memcpy(dst, v->valuestring, strlen(v->valuestring) + 1);
  return 0;
}

int cl1_train_runfile_read(const char *path, cl1_train_runfile *rf, cl1_err *err) {
  memset(rf, 0, sizeof *rf);
  if (access(path, F_OK) && errno == ENOENT) return 0;
  char *text = NULL;
  size_t n;
  if (cl1_file_read_text(path, 1 << 20, &text, &n, err)) return -1;
  cJSON *o = cJSON_Parse(text);
  free(text);
  int rc = 0;
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "run_id");
  if (!cJSON_IsObject(o)) rc = cl1_err_set(err, "%s: not a JSON object (not a cudal1 train run "
                                                "file)", path);
  else if (!cJSON_IsNumber(id) || id->valuedouble < 1 || id->valuedouble > 9e15 ||
           id->valuedouble != (double)(int64_t)id->valuedouble)
    rc = cl1_err_set(err, "%s: \"run_id\" is not a positive integer", path);
  else rc = copy_field(o, "db", rf->db, sizeof rf->db, path, err) ||
            copy_field(o, "stage", rf->stage, sizeof rf->stage, path, err) ||
            copy_field(o, "engine", rf->engine, sizeof rf->engine, path, err) ? -1 : 0;
  if (!rc) rc = 1, rf->run_id = (int64_t)id->valuedouble;
  cJSON_Delete(o);
  return rc;
}

int cl1_train_runfile_write(const char *path, const cl1_train_runfile *rf, cl1_err *err) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return cl1_err_set(err, "%s: out of memory", path);
  cJSON_AddNumberToObject(o, "run_id", (double)rf->run_id);
  cJSON_AddStringToObject(o, "db", rf->db);
  cJSON_AddStringToObject(o, "stage", rf->stage);
  cJSON_AddStringToObject(o, "engine", rf->engine);
  char *text = with_newline(cJSON_Print(o));
  cJSON_Delete(o);
  if (!text) return cl1_err_set(err, "%s: out of memory", path);
  int rc = cl1_file_write_atomic(path, text, err);
  free(text);
  return rc;
}
