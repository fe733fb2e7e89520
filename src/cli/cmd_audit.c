/* cmd_audit.c — `cudal1 suite audit`: which tasks a lazy candidate could pass (src/eval/audit.h),
 * with --apply writing the finding into the task.json of each flagged task that has no
 * `degenerate` note yet (hand-written notes are kept). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "base/file.h"
#include "eval/audit.h"
#include "task/task.h"

static const char help[] =
    "usage: cudal1 suite audit [--level N] [TASK...] [--shapes test|small|large] [--device cuda|host]\n"
    "                          [--json FILE] [--apply]\n"
    "Runs each task's reference on two input seeds and flags outputs that an all-zero, a cached\n"
    "or a constant candidate would pass. TASK: a suite id (level1/19_ReLU), a task folder or its\n"
    "task.json; none: every task (of --level N). Defaults: --device cuda --shapes small (host:\n"
    "test). --json FILE writes the findings there as JSON.\n"
    "--apply writes the finding as the task's \"degenerate\" note where it has none.\n";

/* A whole file, or NULL with the cause said on stderr. */
static char *slurp(const char *path) {
  char *s;
  size_t n;
  cl1_err err = {{0}};
  if (cl1_file_read_text(path, 64ll << 20, &s, &n, &err)) {
    fprintf(stderr, "cudal1 suite audit: %s\n", err.msg);
    return NULL;
  }
  return s;
}

/* Writes text over path (atomically: an interrupted write leaves the old file), or says why. */
static int write_file(const char *path, const char *text) {
  cl1_err err = {{0}};
  if (cl1_file_write_atomic(path, text, &err)) {
    fprintf(stderr, "cudal1 suite audit: %s\n", err.msg);
    return -1;
  }
  return 0;
}

/* Inserts "degenerate": note as the last member of the task.json object, keeping the file's own
 * layout; the file is re-read by the loader and restored if that fails. */
static int apply_note(const char *json_path, const char *note) {
  char *old = slurp(json_path);
  if (!old) return -1;
  char *end = strrchr(old, '}');
  if (!end) { free(old); return -1; }
  cJSON *str = cJSON_CreateString(note);
  char *q = cJSON_PrintUnformatted(str);
  cJSON_Delete(str);
  char *last = end;
  while (last > old && (last[-1] == ' ' || last[-1] == '\n' || last[-1] == '\r' || last[-1] == '\t')) last--;
  size_t head = (size_t)(last - old);
  size_t cap = strlen(old) + strlen(q) + 64;
  char *neu = malloc(cap);
  snprintf(neu, cap, "%.*s,\n  \"degenerate\": %s\n%s", (int)head, old, q, end);
  free(q);
  int rc = write_file(json_path, neu);
  cl1_task *t = NULL;
  cl1_err err = {{0}};
  if (!rc && cl1_task_load(json_path, &t, &err)) {
    fprintf(stderr, "cudal1 suite audit: %s: the note broke the file (%s); restored\n", json_path, err.msg);
    write_file(json_path, old);
    rc = -1;
  }
  cl1_task_free(t);
  free(neu);
  free(old);
  return rc;
}

/* The options; the named tasks are checked up front, so a typo in the last one stops the audit
 * before it spends minutes on the others. */
static int parse(int argc, char **argv, long long *level, const char **shapes, const char **device,
                 const char **json, int *apply, char **ids, int *n_ids) {
  const char *lv = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--apply")) { *apply = 1; continue; }
    if (a[0] != '-') {
      cl1_task_ref ref;
      if (cl1_cli_task("suite audit", a, &ref)) return 2;
      cl1_task_ref_release(&ref);
      ids[(*n_ids)++] = strdup(a);
      continue;
    }
    const char **slot = !strcmp(a, "--level") ? &lv : !strcmp(a, "--shapes") ? shapes
                        : !strcmp(a, "--device") ? device : !strcmp(a, "--json") ? json : NULL;
    if (!slot) return cl1_cli_unknown("suite audit", a);
    if (i + 1 >= argc) { fprintf(stderr, "cudal1 suite audit: %s needs a value\n", a); return 2; }
    *slot = argv[++i];
  }
  return lv ? cl1_cli_int("--level", lv, 1, 3, level) : 0;
}

static void free_ids(char **ids, int n) {
  for (int k = 0; k < n; k++) free(ids[k]);
  free(ids);
}

/* What the audit found per output, for --json. */
static cJSON *outputs_json(const cl1_audit_result *r) {
  cJSON *outs = cJSON_CreateArray();
  for (int i = 0; i < r->n_outputs; i++) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", r->out[i].name);
    cJSON_AddBoolToObject(o, "zero_passes", r->out[i].zero_passes);
    cJSON_AddBoolToObject(o, "insensitive", r->out[i].insensitive);
    cJSON_AddBoolToObject(o, "constant", r->out[i].constant);
    cJSON_AddNumberToObject(o, "zero_share", r->out[i].zero_share);
    cJSON_AddNumberToObject(o, "max_abs", r->out[i].max_abs);
    cJSON_AddItemToArray(outs, o);
  }
  return outs;
}

/* A degenerate task: its note, written into task.json with --apply when it has none yet. */
static void note_degenerate(const cl1_task *t, const char *dir, const cl1_audit_result *r,
                            int apply, cJSON *row, int *n_bad) {
  cJSON_AddStringToObject(row, "note", r->note);
  const char *state = t->degenerate ? "noted" : apply ? "note added" : "no note";
  if (!t->degenerate && apply) {
    char jp[4200];
    snprintf(jp, sizeof jp, "%s/task.json", dir);
    if (apply_note(jp, r->note)) state = "note NOT added", ++*n_bad;
  }
  cJSON_AddStringToObject(row, "task_note", state);
  printf("degenerate %s: %s [%s]\n", t->id, r->note, state);
}

/* One task: its line on stdout and its row. Returns 1 when no GPU is there (the rest would fail
 * alike), else 0. */
static int audit_one(const char *id, const char *shapes, const char *device, int apply,
                     cJSON *rows, int *n_bad, int *n_deg) {
  cl1_audit_result r;
  cl1_err err = {{0}};
  cl1_task_ref ref;
  if (cl1_task_resolve(cl1_suite_root(), id, &ref, &err)) {
    printf("error %s: %s\n", id, err.msg);
    ++*n_bad;
    return 0;
  }
  const cl1_task *t = ref.task;
  int infra = 0;
  cJSON *row = cJSON_CreateObject();
  cJSON_AddStringToObject(row, "task", t->id);
  if (cl1_audit_task(ref.dir, shapes, device, &r, &err)) {
    printf("error %s: %s\n", t->id, err.msg);
    cJSON_AddStringToObject(row, "error", err.msg);
    ++*n_bad;
    infra = strstr(err.msg, "no CUDA GPU") != NULL;
  } else {
    cJSON_AddBoolToObject(row, "degenerate", r.degenerate);
    cJSON_AddItemToObject(row, "outputs", outputs_json(&r));
    if (r.degenerate) {
      ++*n_deg;
      note_degenerate(t, ref.dir, &r, apply, row, n_bad);
    } else {
      double zs = 0;
      for (int i = 0; i < r.n_outputs; i++) if (r.out[i].zero_share > zs) zs = r.out[i].zero_share;
      printf("ok %s%s\n", t->id, zs > 0.5 ? " (over half of the elements pass as zeros)" : "");
      if (t->degenerate) cJSON_AddStringToObject(row, "task_note", "noted by hand");
    }
  }
  cJSON_AddItemToArray(rows, row);
  cl1_task_ref_release(&ref);
  fflush(stdout);
  return infra;
}

int cl1_cmd_suite_audit(int argc, char **argv) {
  if (cl1_cli_help(argc, argv, help)) return 0;
  long long level = 0;
  const char *shapes = NULL, *device = "cuda", *json = NULL;
  int apply = 0, n_ids = 0;
  char **ids = calloc((size_t)argc + 1, sizeof *ids);
  if (!ids) return 3;
  if (parse(argc, argv, &level, &shapes, &device, &json, &apply, ids, &n_ids)) {
    free_ids(ids, n_ids);
    return 2;
  }
  if (strcmp(device, "cuda") && strcmp(device, "host")) {
    fprintf(stderr, "cudal1 suite audit: --device: expected cuda or host, got '%s'\n", device);
    free_ids(ids, n_ids);
    return 2;
  }
  if (!shapes) shapes = strcmp(device, "host") ? "small" : "test";
  if (cl1_shapes_parse(shapes) < 0) {
    fprintf(stderr, "cudal1 suite audit: --shapes: expected test, small or large, got '%s'\n", shapes);
    free_ids(ids, n_ids);
    return 2;
  }
  if (!n_ids) {
    free(ids);
    ids = calloc(1024, sizeof *ids);
    if (!ids) return 3;
    n_ids = cl1_cli_suite_tasks((int)level, ids, 1024);
  }
  cJSON *doc = cJSON_CreateObject(), *rows = cJSON_AddArrayToObject(doc, "tasks");
  cJSON_AddStringToObject(doc, "shapes", shapes);
  cJSON_AddStringToObject(doc, "device", device);
  int n_bad = 0, n_deg = 0, infra = 0;
  for (int k = 0; k < n_ids && !infra; k++)
    infra = audit_one(ids[k], shapes, device, apply, rows, &n_bad, &n_deg);
  printf("audit: %d tasks, %d degenerate, %d errors\n", n_ids, n_deg, n_bad);
  if (json) {
    char *s = cJSON_Print(doc);
    if (!s || write_file(json, s)) n_bad++;
    free(s);
  }
  cJSON_Delete(doc);
  free_ids(ids, n_ids);
  return infra ? 3 : n_bad ? 2 : 0;
}
