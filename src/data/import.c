/* import.c — `cudal1 import cuda-l1|jsonl` (import.h): each line of the file is parsed and
 * checked whole before anything is written, its problem made into a task folder by the task
 * importer (once per distinct problem), and its task, solution and claims written in one
 * transaction. */
#include "import.h"
#include <cjson/cJSON.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../base/file.h"
#include "../base/hash.h"
#include "../base/proc.h"
#include "../task/task.h"

/* What became of one row. */
typedef enum { ROW_OK, ROW_MALFORMED, ROW_NO_CODE, ROW_REFUSED, ROW_FATAL } row_outcome;

/* One row, checked. Strings point into the parsed JSON. */
typedef struct {
  int line;
  int level, number;   /* cuda-l1: level_id, task_id */
  const char *problem; /* cuda-l1: ref_code */
  const char *name;    /* cuda-l1: the row's task name, when it has one */
  const char *task;    /* jsonl: the task as the row named it */
  const char *code;    /* NULL: no custom code */
  const char *format, *backend;
  cJSON *claims;       /* an object: what the publisher claimed */
} row;

/* A task as the store will know it. */
typedef struct {
  char id[600], name[300];
  int level;
} task_ident;

typedef struct {
  const cl1_import_opts *o;
  cl1_import_stats *st;
  char real[PATH_MAX]; /* the file's real path: the claims' provenance */
  char tmp[PATH_MAX];  /* a folder for problem files, "" until one is needed */
  cl1_err *err;
} ictx;

/* ---- small helpers ------------------------------------------------------------------------ */

static const char *jtype(const cJSON *v) {
  if (cJSON_IsString(v)) return "a string";
  if (cJSON_IsNumber(v)) return "a number";
  if (cJSON_IsBool(v)) return "a boolean";
  if (cJSON_IsNull(v)) return "null";
  if (cJSON_IsArray(v)) return "an array";
  return "an object";
}

static int why(char *out, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int why(char *out, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out, n, fmt, ap);
  va_end(ap);
  return -1;
}

static bool blank(const char *s) {
  for (; *s; s++)
    if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') return false;
  return true;
}

bool cl1_import_is_kernelbench(const char *source) {
  static const char key[] = "class ModelNew";
  for (const char *p = strstr(source, key); p; p = strstr(p + 1, key)) {
    char next = p[sizeof key - 1];
    bool word_start = p == source || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
                                       (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9'));
    if (word_start && (next == '(' || next == ':' || next == ' ' || next == '\t')) return true;
  }
  return false;
}

/* The first 8 hex digits of text's SHA-256: the name part that makes a folder content-addressed. */
static int short_hash(const char *text, size_t n, char out[9]) {
  cl1_sha *h = cl1_sha_new();
  if (!h) return -1;
  char hex[65];
  cl1_sha_add(h, text, n);
  cl1_sha_hex(h, hex);
  memcpy(out, hex, 8);
  out[8] = 0;
  return 0;
}

/* s with every character but letters, digits, '_' and '-' made '_', at most 48 of them, so that
 * a name from a file is one safe path component. */
static void safe_name(const char *s, char *out, size_t n) {
  size_t k = 0;
  for (; *s && k + 1 < n && k < 48; s++) {
    char ch = *s;
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '-';
    out[k++] = ok ? ch : '_';
  }
  out[k] = 0;
}

static int rm_entry(const char *p, const struct stat *sb, int type, struct FTW *ftw) {
  (void)sb, (void)ftw;
  return type == FTW_DP ? rmdir(p) : unlink(p);
}

static void rm_tree(const char *path) {
  if (access(path, F_OK) == 0) nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- rows --------------------------------------------------------------------------------- */

/* An integer field in [lo, hi]. */
static int get_int(const cJSON *root, const char *key, int lo, int hi, int *out, char *w,
                   size_t n) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!v) return why(w, n, "%s: missing", key);
  if (!cJSON_IsNumber(v)) return why(w, n, "%s: not an integer (got %s)", key, jtype(v));
  double d = v->valuedouble;
  if (d != floor(d) || d < lo || d > hi)
    return why(w, n, "%s: %g is not an integer in [%d, %d]", key, d, lo, hi);
  *out = (int)d;
  return 0;
}

/* A required non-blank string field. */
static int get_text(const cJSON *root, const char *key, const char **out, char *w, size_t n) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!v) return why(w, n, "%s: missing", key);
  if (!cJSON_IsString(v)) return why(w, n, "%s: not a string (got %s)", key, jtype(v));
  if (blank(v->valuestring)) return why(w, n, "%s: empty", key);
  *out = v->valuestring;
  return 0;
}

/* An optional string field (*out NULL when absent or null). */
static int get_opt_text(const cJSON *root, const char *key, const char **out, char *w,
                        size_t n) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
  *out = NULL;
  if (!v || cJSON_IsNull(v)) return 0;
  if (!cJSON_IsString(v)) return why(w, n, "%s: not a string (got %s)", key, jtype(v));
  *out = v->valuestring;
  return 0;
}

/* Every score_* field is a number or null; they are the row's claims. */
static int take_scores(const cJSON *root, row *r, char *w, size_t n) {
  for (const cJSON *v = root->child; v; v = v->next) {
    if (!v->string || strncmp(v->string, "score_", 6)) continue;
    if (!cJSON_IsNull(v) && !(cJSON_IsNumber(v) && isfinite(v->valuedouble)))
      return why(w, n, "%s: not a number (got %s)", v->string, jtype(v));
    cJSON *copy = cJSON_Duplicate(v, 0);
    if (!copy || !cJSON_AddItemToObject(r->claims, v->string, copy)) {
      cJSON_Delete(copy);
      return why(w, n, "out of memory");
    }
  }
  return 0;
}

/* CUDA-L1's row: level_id, task_id, ref_code, custom_code (a ModelNew; null or "None" when
 * CUDA-L1 has none), score_* and, in files that have it, the task's name. */
static int parse_cuda_l1(const cJSON *root, row *r, char *w, size_t n) {
  if (get_int(root, "level_id", 1, 9, &r->level, w, n) ||
      get_int(root, "task_id", 1, 1000000, &r->number, w, n) ||
      get_text(root, "ref_code", &r->problem, w, n))
    return -1;
  const char *name = NULL;
  if (get_opt_text(root, "name", &name, w, n) ||
      (!name && get_opt_text(root, "task_name", &name, w, n)))
    return -1;
  r->name = name && !blank(name) ? name : NULL;
  if (get_opt_text(root, "custom_code", &r->code, w, n)) return -1;
  if (r->code && (blank(r->code) || !strcmp(r->code, "None"))) r->code = NULL;
  if (r->code && !cl1_import_is_kernelbench(r->code))
    return why(w, n, "custom_code: no class ModelNew in it (not a KernelBench solution)");
  r->format = "kernelbench";
  r->backend = "cuda";
  return take_scores(root, r, w, n);
}

/* A generic row: task, code, and optionally format, backend and meta (the claims). */
static int parse_jsonl(const cJSON *root, row *r, char *w, size_t n) {
  if (get_text(root, "task", &r->task, w, n) || get_text(root, "code", &r->code, w, n) ||
      get_opt_text(root, "format", &r->format, w, n) ||
      get_opt_text(root, "backend", &r->backend, w, n))
    return -1;
  bool kb = cl1_import_is_kernelbench(r->code);
  if (!r->format) r->format = kb ? "kernelbench" : "cabi";
  if (strcmp(r->format, "kernelbench") && strcmp(r->format, "cabi"))
    return why(w, n, "format: '%.40s' is not cabi or kernelbench", r->format);
  if (!strcmp(r->format, "kernelbench") && !kb)
    return why(w, n, "code: format kernelbench, but no class ModelNew in it");
  if (!r->backend) r->backend = "cuda";
  if (strcmp(r->backend, "cuda") && strcmp(r->backend, "host"))
    return why(w, n, "backend: '%.40s' is not cuda or host", r->backend);
  const cJSON *meta = cJSON_GetObjectItemCaseSensitive(root, "meta");
  if (meta && !cJSON_IsNull(meta)) {
    if (!cJSON_IsObject(meta)) return why(w, n, "meta: not an object (got %s)", jtype(meta));
    for (const cJSON *v = meta->child; v; v = v->next) {
      cJSON *copy = cJSON_Duplicate(v, 1);
      if (!copy || !cJSON_AddItemToObject(r->claims, v->string, copy)) {
        cJSON_Delete(copy);
        return why(w, n, "out of memory");
      }
    }
  }
  return 0;
}

/* Parses one line into *r (and *root, which r points into). */
static int parse_line(ictx *c, const char *line, size_t len, cJSON **root, row *r, char *w,
                      size_t n) {
  *root = NULL;
  if (strlen(line) != len) return why(w, n, "contains a NUL byte");
  const char *end = NULL;
  *root = cJSON_ParseWithOpts(line, &end, 1);
  if (!*root) {
    long col = end && end >= line ? (long)(end - line) + 1 : 1;
    return why(w, n, "not valid JSON (at column %ld)", col);
  }
  if (!cJSON_IsObject(*root)) return why(w, n, "not a JSON object (got %s)", jtype(*root));
  r->claims = cJSON_CreateObject();
  if (!r->claims) return why(w, n, "out of memory");
  return c->o->kind == CL1_IMPORT_CUDA_L1 ? parse_cuda_l1(*root, r, w, n)
                                          : parse_jsonl(*root, r, w, n);
}

/* ---- task folders ------------------------------------------------------------------------- */

/* The last non-blank line of a program's output: where a Python error or a one-line message
 * ends up. */
static void last_line(char *out, char *dst, size_t n) {
  size_t len = strlen(out);
  while (len && (out[len - 1] == '\n' || out[len - 1] == '\r' || out[len - 1] == ' ')) len--;
  out[len] = 0;
  char *p = strrchr(out, '\n');
  snprintf(dst, n, "%.300s", p ? p + 1 : out);
}

/* Runs the task importer on problem into stage: 0, 1 refused (w says why), -1 it could not be
 * started (c->err). */
static int run_importer(ictx *c, const char *problem, const char *stage, int level, char *w,
                        size_t n) {
  const cl1_import_opts *o = c->o;
  char *argv[20], lv[16];
  if (o->n_importer < 1 || o->n_importer > 10)
    return cl1_err_set(c->err, "import: no task importer to run");
  int k = 0;
  for (int i = 0; i < o->n_importer; i++) argv[k++] = (char *)o->importer[i];
  argv[k++] = (char *)problem;
  argv[k++] = (char *)stage;
  if (level > 0) { /* the row's level (a problem file does not say it) */
    snprintf(lv, sizeof lv, "%d", level);
    argv[k++] = "--level", argv[k++] = lv;
  }
  /* the task's name is its folder's (content-addressed), not the problem file's: two problems
     named alike would otherwise load as one task id */
  const char *base = strrchr(stage, '/');
  argv[k++] = "--name", argv[k++] = (char *)(base ? base + 1 : stage);
  argv[k] = NULL;
  int limit = o->task_timeout_s > 0 ? o->task_timeout_s : CL1_IMPORT_TASK_TIMEOUT_S;
  enum { CAP = 1 << 16 };
  char *out = malloc(CAP);
  if (!out) return cl1_err_set(c->err, "import: out of memory");
  size_t len = 0;
  int status = 0;
  int rc = cl1_proc_run(argv, NULL, limit * 1000, out, CAP, &len, &status, c->err);
  if (rc < 0) cl1_err_wrap(c->err, "import: the task importer");
  if (rc == CL1_PROC_TIMEOUT) why(w, n, "the task importer ran past %d s", limit);
  if (rc == 0 && status != 0) {
    char msg[320];
    last_line(out, msg, sizeof msg);
    why(w, n, "the task importer refused it (exit %d): %s", status, *msg ? msg : "(no message)");
  }
  free(out);
  if (rc < 0) return -1;
  return rc == CL1_PROC_TIMEOUT || status != 0 ? 1 : 0;
}

/* Moves a finished stage folder to dir; another import that made dir first wins (same content). */
static int publish(ictx *c, const char *stage, const char *dir) {
  if (rename(stage, dir) == 0) return 0;
  int e = errno;
  char tj[PATH_MAX + 16];
  snprintf(tj, sizeof tj, "%s/task.json", dir);
  if ((e == EEXIST || e == ENOTEMPTY) && access(tj, F_OK) == 0) return 0;
  return cl1_err_set(c->err, "import: cannot move %s to %s: %s", stage, dir, strerror(e));
}

/* Makes tasks_dir/rel from the problem file unless it is there already. The task importer writes
 * a stage folder of the same name one level down (.import-PID/NAME, so that a name it takes from
 * its folder is the right one), renamed into place once complete: a folder with a task.json is
 * always a whole one. 0, 1 refused (w), -1 (c->err). */
static int task_folder(ictx *c, const char *rel, const char *problem, int level, char *w,
                       size_t n) {
  char dir[PATH_MAX], tj[PATH_MAX + 16], top[PATH_MAX + 32], stage[2 * PATH_MAX + 64];
  if (snprintf(dir, sizeof dir, "%s/%s", c->o->tasks_dir, rel) >= (int)sizeof dir)
    return cl1_err_set(c->err, "import: %s/%s: path too long", c->o->tasks_dir, rel);
  snprintf(tj, sizeof tj, "%s/task.json", dir);
  if (access(tj, F_OK) == 0) return 0;
  char *slash = strrchr(dir, '/');
  *slash = 0;
  int rc = cl1_file_mkdirs(dir, c->err);
  snprintf(top, sizeof top, "%s/.import-%d", dir, (int)getpid());
  snprintf(stage, sizeof stage, "%s/%s", top, slash + 1);
  *slash = '/';
  if (rc) return cl1_err_wrap(c->err, "import: task folder");
  rm_tree(top);
  /* DIR itself is left for the importer to make, as a command that writes a folder does */
  if (mkdir(top, 0755))
    return cl1_err_set(c->err, "import: cannot create %s: %s", top, strerror(errno));
  rc = run_importer(c, problem, stage, level, w, n);
  char stj[sizeof stage + 16];
  snprintf(stj, sizeof stj, "%s/task.json", stage);
  if (rc == 0 && access(stj, F_OK)) {
    why(w, n, "the task importer exited 0 but wrote no task.json");
    rc = 1;
  }
  if (rc == 0) rc = publish(c, stage, dir);
  rm_tree(top);
  return rc;
}

/* The folder this run writes problem files into (made on first use). */
static int tmp_dir(ictx *c) {
  if (c->tmp[0]) return 0;
  const char *t = getenv("TMPDIR");
  snprintf(c->tmp, sizeof c->tmp, "%s/cudal1-import.XXXXXX", t && *t ? t : "/tmp");
  if (mkdtemp(c->tmp)) return 0;
  int e = errno;
  c->tmp[0] = 0;
  return cl1_err_set(c->err, "import: cannot create a temporary folder: %s", strerror(e));
}

/* The task in dir as the store will know it: the id the task loader gives it, "level{L}/{name}"
 * from its task.json (src/task/task.c), which is the id every evaluation of it records; the
 * folder's path below tasks_dir would name the same task twice in the store. 1 (w says why)
 * when the task.json lacks a usable name or level: the task is refused. */
static int loaded_ident(const char *dir, task_ident *t, char *w, size_t n) {
  char path[PATH_MAX + 16], *text = NULL;
  size_t len;
  cl1_err e;
  snprintf(path, sizeof path, "%s/task.json", dir);
  if (cl1_file_read_text(path, 1 << 24, &text, &len, &e)) return why(w, n, "%s", e.msg), 1;
  cJSON *root = cJSON_Parse(text);
  free(text);
  const cJSON *lv = cJSON_GetObjectItemCaseSensitive(root, "level");
  const cJSON *nm = cJSON_GetObjectItemCaseSensitive(root, "name");
  int bad = !cJSON_IsNumber(lv) || lv->valuedouble < 1 || lv->valuedouble > 3 ||
            lv->valuedouble != (int)lv->valuedouble || !cJSON_IsString(nm) || !*nm->valuestring ||
            strchr(nm->valuestring, '/') || strlen(nm->valuestring) >= sizeof t->name;
  if (bad) {
    cJSON_Delete(root);
    return why(w, n, "%s has no \"level\" 1-3 and a plain \"name\"", path), 1;
  }
  t->level = (int)lv->valuedouble;
  snprintf(t->name, sizeof t->name, "%s", nm->valuestring);
  snprintf(t->id, sizeof t->id, "level%d/%s", t->level, t->name);
  cJSON_Delete(root);
  return 0;
}

/* CUDA-L1's problem: tasks_dir/cuda-l1/level{L}/{task_id}[_{name}]_{hash of ref_code}. */
static row_outcome cuda_l1_task(ictx *c, const row *r, task_ident *t, char *w, size_t n) {
  char h[9], name[64] = "", base[160], rel[300], problem[PATH_MAX + 200];
  if (short_hash(r->problem, strlen(r->problem), h))
    return cl1_err_set(c->err, "import: cannot start a SHA-256 (OpenSSL)"), ROW_FATAL;
  if (r->name) safe_name(r->name, name, sizeof name);
  snprintf(base, sizeof base, "%d_%s%s%s", r->number, name, *name ? "_" : "", h);
  snprintf(rel, sizeof rel, "cuda-l1/level%d/%s", r->level, base);
  char dir[PATH_MAX + 320], tj[PATH_MAX + 340];
  snprintf(dir, sizeof dir, "%s/%s", c->o->tasks_dir, rel);
  snprintf(tj, sizeof tj, "%s/task.json", dir);
  if (access(tj, F_OK)) {
    if (tmp_dir(c)) return ROW_FATAL;
    snprintf(problem, sizeof problem, "%s/%s.py", c->tmp, base);
    if (cl1_file_write_atomic(problem, r->problem, c->err)) return ROW_FATAL;
    int rc = task_folder(c, rel, problem, r->level, w, n);
    unlink(problem);
    if (rc) return rc > 0 ? ROW_REFUSED : ROW_FATAL;
  }
  return loaded_ident(dir, t, w, n) ? ROW_REFUSED : ROW_OK;
}

/* A problem file of a jsonl row: tasks_dir/jsonl/{stem}_{hash of the file}. */
static row_outcome jsonl_problem(ictx *c, const char *path, task_ident *t, char *w, size_t n) {
  char *text = NULL, h[9], stem[64], rel[200];
  size_t len;
  cl1_err e;
  if (cl1_file_read_text(path, 1 << 24, &text, &len, &e))
    return why(w, n, "task: cannot read the problem %s", e.msg), ROW_MALFORMED;
  int hr = short_hash(text, len, h);
  free(text);
  if (hr) return cl1_err_set(c->err, "import: cannot start a SHA-256 (OpenSSL)"), ROW_FATAL;
  const char *b = strrchr(path, '/');
  b = b ? b + 1 : path;
  char file[64];
  snprintf(file, sizeof file, "%.*s", (int)(strlen(b) - 3 < 60 ? strlen(b) - 3 : 60), b);
  safe_name(file, stem, sizeof stem);
  snprintf(rel, sizeof rel, "jsonl/%s_%s", stem, h);
  int rc = task_folder(c, rel, path, 0, w, n);
  if (rc) return rc > 0 ? ROW_REFUSED : ROW_FATAL;
  char dir[PATH_MAX + 210];
  snprintf(dir, sizeof dir, "%s/%s", c->o->tasks_dir, rel);
  return loaded_ident(dir, t, w, n) ? ROW_REFUSED : ROW_OK;
}

/* When arg is a task folder (or its task.json) inside tasks_dir: its real path in dir, so that
 * naming an imported folder finds the task it holds. */
static bool in_tasks_dir(ictx *c, const char *arg, char *dir, size_t dn) {
  char root[PATH_MAX], real[PATH_MAX];
  if (!realpath(c->o->tasks_dir, root) || !realpath(arg, real)) return false;
  size_t k = strlen(real);
  if (k > 10 && !strcmp(real + k - 10, "/task.json")) real[k - 10] = 0;
  size_t r = strlen(root);
  if (strncmp(real, root, r) || real[r] != '/' || !real[r + 1]) return false;
  char tj[PATH_MAX + 16];
  snprintf(tj, sizeof tj, "%s/task.json", real);
  if (access(tj, F_OK)) return false;
  snprintf(dir, dn, "%s", real);
  return true;
}

/* A jsonl row's task: a problem .py (through the task importer), a folder this importer made,
 * or a suite id / task folder through the project's resolver. */
static row_outcome jsonl_task(ictx *c, const row *r, task_ident *t, char *w, size_t n) {
  size_t k = strlen(r->task);
  if (k > 3 && !strcmp(r->task + k - 3, ".py")) return jsonl_problem(c, r->task, t, w, n);
  char dir[PATH_MAX];
  if (in_tasks_dir(c, r->task, dir, sizeof dir))
    return loaded_ident(dir, t, w, n) ? ROW_REFUSED : ROW_OK;
  cl1_task_ref ref;
  memset(&ref, 0, sizeof ref);
  cl1_err e = {{0}};
  int rc = cl1_task_resolve(cl1_suite_root(), r->task, &ref, &e);
  if (rc == 1)
    return why(w, n, "task: no task '%.200s' (a suite id, a task folder or a problem .py)",
               r->task), ROW_MALFORMED;
  if (rc) return why(w, n, "task: %s", e.msg), ROW_MALFORMED;
  snprintf(t->id, sizeof t->id, "%s", ref.task->id);
  snprintf(t->name, sizeof t->name, "%s", ref.task->name);
  t->level = ref.task->level;
  cl1_task_ref_release(&ref);
  return ROW_OK;
}

/* ---- one row ------------------------------------------------------------------------------ */

static void list_row(ictx *c, const row *r) {
  cJSON *o = cJSON_CreateObject();
  const cJSON *sd = cJSON_GetObjectItemCaseSensitive(r->claims, "score_default");
  cJSON_AddNumberToObject(o, "level", r->level);
  cJSON_AddNumberToObject(o, "task_id", r->number);
  cJSON_AddNumberToObject(o, "line", r->line);
  cJSON_AddBoolToObject(o, "has_custom_code", r->code != NULL);
  if (cJSON_IsNumber(sd)) cJSON_AddNumberToObject(o, "score_default", sd->valuedouble);
  else cJSON_AddNullToObject(o, "score_default");
  char *text = cJSON_PrintUnformatted(o);
  if (text) fprintf(c->o->out, "%s\n", text);
  free(text);
  cJSON_Delete(o);
}

/* Writes a checked row whose task is known. */
static row_outcome store_row(ictx *c, const row *r, const task_ident *t) {
  char *claims = cJSON_PrintUnformatted(r->claims);
  if (!claims) return cl1_err_set(c->err, "import: out of memory"), ROW_FATAL;
  char task[32];
  snprintf(task, sizeof task, "%d", r->number);
  bool cl = c->o->kind == CL1_IMPORT_CUDA_L1;
  cl1_store_import im = {.task_id = t->id, .task_name = t->name, .level = t->level,
                         .backend = r->backend, .source = r->code,
                         .kind = cl ? "cuda-l1" : "jsonl", .source_file = c->real,
                         .line = r->line, .claim_level = cl ? r->level : 0,
                         .task = cl ? task : r->task, .format = r->format,
                         .claims_json = claims};
  int64_t id;
  bool existed;
  int rc = cl1_store_import_put(c->o->store, &im, &id, &existed, c->err);
  free(claims);
  return rc ? ROW_FATAL : ROW_OK;
}

static row_outcome import_row(ictx *c, const char *line, size_t len, int lineno, char *w,
                              size_t n) {
  cJSON *root = NULL;
  row r = {.line = lineno};
  row_outcome out = ROW_OK;
  if (parse_line(c, line, len, &root, &r, w, n)) out = ROW_MALFORMED;
  if (out == ROW_OK && c->o->list) list_row(c, &r);
  else if (out == ROW_OK && !r.code) out = ROW_NO_CODE;
  else if (out == ROW_OK) {
    task_ident t;
    out = c->o->kind == CL1_IMPORT_CUDA_L1 ? cuda_l1_task(c, &r, &t, w, n)
                                           : jsonl_task(c, &r, &t, w, n);
    if (out == ROW_OK) out = store_row(c, &r, &t);
  }
  cJSON_Delete(r.claims);
  cJSON_Delete(root);
  return out;
}

/* ---- the file ----------------------------------------------------------------------------- */

static int read_rows(ictx *c, FILE *f) {
  char *line = NULL, w[700];
  size_t cap = 0;
  ssize_t len;
  int rc = 0;
  for (int lineno = 1; rc == 0 && (len = getline(&line, &cap, f)) >= 0; lineno++) {
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
    if (blank(line) && strlen(line) == (size_t)len) continue;
    c->st->rows++;
    w[0] = 0;
    row_outcome out = import_row(c, line, (size_t)len, lineno, w, sizeof w);
    const char *field = c->o->kind == CL1_IMPORT_CUDA_L1 ? "ref_code: " : "task: ";
    if (out == ROW_MALFORMED || out == ROW_REFUSED)
      fprintf(c->o->diag, "%s:%d: %s%s\n", c->o->file, lineno, out == ROW_REFUSED ? field : "",
              w);
    switch (out) {
    case ROW_OK: c->st->imported++; break;
    case ROW_MALFORMED: c->st->malformed++; break;
    case ROW_NO_CODE: c->st->no_code++; break;
    case ROW_REFUSED: c->st->refused++; break;
    case ROW_FATAL: rc = -2; break;
    }
  }
  if (rc == 0 && ferror(f)) rc = cl1_err_set(c->err, "%s: cannot read: %s", c->o->file,
                                              strerror(errno));
  free(line);
  return rc;
}

int cl1_import_file(const cl1_import_opts *o, cl1_import_stats *st, cl1_err *err) {
  memset(st, 0, sizeof *st);
  ictx c = {.o = o, .st = st, .err = err};
  if (o->list && o->kind != CL1_IMPORT_CUDA_L1)
    return cl1_err_set(err, "import: listing is for cuda-l1 files"), -2;
  if (!o->list && (!o->store || !o->tasks_dir))
    return cl1_err_set(err, "import: no store or tasks folder"), -2;
  FILE *f = fopen(o->file, "r");
  if (!f) return cl1_err_set(err, "%s: cannot read: %s", o->file, strerror(errno));
  struct stat sb;
  if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
    fclose(f);
    return cl1_err_set(err, "%s: cannot read: it is a folder", o->file);
  }
  if (!realpath(o->file, c.real)) snprintf(c.real, sizeof c.real, "%s", o->file);
  int rc = read_rows(&c, f);
  fclose(f);
  if (c.tmp[0]) rm_tree(c.tmp);
  return rc;
}

void cl1_import_summary(const cl1_import_stats *st, char *out, size_t n) {
  int skipped = st->malformed + st->no_code + st->refused;
  snprintf(out, n, "imported %d, skipped %d (malformed %d, no custom code %d, task refused %d)",
           st->imported, skipped, st->malformed, st->no_code, st->refused);
}
