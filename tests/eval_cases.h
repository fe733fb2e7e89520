/* eval_cases.h — table-driven `cudal1 eval` cases for the test binaries: a manifest line says
 * which file, task, backend and expected verdict; each case runs the real binary (so the judge's
 * survival is part of the test) and checks the verdict code in its JSON. With $CL1_RESULTS set,
 * every case appends one JSON line there (the GPU self-test's result file is made from them). */
#ifndef CL1_TEST_EVAL_CASES_H
#define CL1_TEST_EVAL_CASES_H
#include "harness.h"
#include <cjson/cJSON.h>
#include "expect.h"

typedef struct {
  char file[512], task[160], backend[8], expect[64], note[256], shapes[8], extra[128];
} th_case;

/* Manifest lines: `<file> <task> <backend> <expected verdict> [# note]`; '#' starts a comment.
 * Keeps the lines whose backend is `backend`. Returns the count (cases malloc'd into *out). */
static inline int th_manifest(const char *path, const char *backend, const char *shapes,
                              th_case **out) {
  FILE *f = fopen(path, "r");
  *out = NULL;
  if (!f) return -1;
  int n = 0, cap = 0;
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    char *hash = strchr(line, '#'), note[256] = "";
    if (hash) {
      snprintf(note, sizeof note, "%s", hash + 1);
      note[strcspn(note, "\n")] = 0;
      *hash = 0;
    }
    th_case c;
    memset(&c, 0, sizeof c);
    if (sscanf(line, "%511s %159s %7s %63s", c.file, c.task, c.backend, c.expect) != 4) continue;
    if (strcmp(c.backend, backend)) continue;
    snprintf(c.note, sizeof c.note, "%s", note);
    snprintf(c.shapes, sizeof c.shapes, "%s", shapes);
    if (n == cap) *out = realloc(*out, sizeof(th_case) * (size_t)(cap = cap ? 2 * cap : 32));
    (*out)[n++] = c;
  }
  fclose(f);
  return n;
}

/* Appends a host case that runs at `shapes` with `extra` options (cases a manifest line cannot
 * say). */
static inline void th_add_host_case(th_case **cs, int *n, const char *file, const char *task,
                                    const char *expect, const char *shapes, const char *extra) {
  *cs = realloc(*cs, sizeof **cs * (size_t)(*n + 1));
  th_case *t = &(*cs)[(*n)++];
  memset(t, 0, sizeof *t);
  snprintf(t->file, sizeof t->file, "%s", file);
  snprintf(t->task, sizeof t->task, "%s", task);
  snprintf(t->backend, sizeof t->backend, "host");
  snprintf(t->expect, sizeof t->expect, "%s", expect);
  snprintf(t->shapes, sizeof t->shapes, "%s", shapes);
  snprintf(t->extra, sizeof t->extra, "%s", extra);
}

static inline void th_record(const th_case *c, const char *json_text, int status, double secs) {
  const char *path = getenv("CL1_RESULTS");
  if (!path || !*path) return;
  FILE *f = fopen(path, "a");
  if (!f) return;
  cJSON *row = cJSON_CreateObject();
  cJSON_AddStringToObject(row, "file", c->file);
  cJSON_AddStringToObject(row, "task", c->task);
  cJSON_AddStringToObject(row, "backend", c->backend);
  cJSON_AddStringToObject(row, "shapes", c->shapes);
  cJSON_AddStringToObject(row, "expected", c->expect);
  cJSON_AddNumberToObject(row, "exit_status", status);
  cJSON_AddNumberToObject(row, "wall_s", secs);
  cJSON *res = cJSON_Parse(json_text);
  if (res) cJSON_AddItemToObject(row, "result", res);
  char *s = cJSON_PrintUnformatted(row);
  fprintf(f, "%s\n", s);
  free(s);
  cJSON_Delete(row);
  fclose(f);
}

/* Runs one case; fails the current cmocka test when the verdict differs. */
static inline void th_run_case(void **state) {
  const th_case *c = *state;
  static char out[1 << 18];
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "%s/cudal1 eval --task %s --solution %s --device %s --shapes %s --json "
           "--min-trials 10 --max-trials 60 --time-budget 0.5 --timeout %s %s 2>/dev/null",
           th_build(), c->task, c->file, c->backend, c->shapes,
           strcmp(c->expect, "timeout") ? "20" : "3", c->extra);
  double t0 = cl1_now_test();
  int status = th_run(cmd, out, sizeof out);
  double secs = cl1_now_test() - t0;
  th_record(c, out, status, secs);
  cJSON *j = cJSON_Parse(out);
  if (!j) fail_msg("%s: no JSON from cudal1 eval (exit %d): %.400s", c->file, status, out);
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "verdict");
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "message");
  char verdict[64], why[512];
  snprintf(verdict, sizeof verdict, "%s", cJSON_IsString(v) ? v->valuestring : "?");
  if (!th_expect_met(c->expect, j, why, sizeof why))
    fail_msg("%s on %s: %s: %s", c->file, c->task, why, cJSON_IsString(m) ? m->valuestring : "");
  /* the exit status agrees with the verdict */
  assert_int_equal(status, !strcmp(verdict, "pass") ? 0 : !strcmp(verdict, "infra_error") ? 3 : 1);
  cJSON_Delete(j);
}

/* Registers every case as a cmocka test and runs them. */
static inline int th_run_cases(const char *group, th_case *cs, int n) {
  struct CMUnitTest *t = calloc((size_t)n, sizeof *t);
  for (int i = 0; i < n; i++) {
    t[i].name = cs[i].file;
    t[i].test_func = th_run_case;
    t[i].initial_state = &cs[i];
  }
  int rc = _cmocka_run_group_tests(group, t, (size_t)n, NULL, NULL);
  free(t);
  return rc;
}
#endif
