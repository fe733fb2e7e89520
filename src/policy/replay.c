/* replay.c — the "replay" backend: completions read from a JSONL file instead of generated (tests,
 * the demo, offline reruns). One object per line:
 *   {"task": "level1/19_ReLU", "content": "...", "reasoning": "optional", "finish_reason": "stop"}
 *   {"task": "level1/19_ReLU", "file": "relative/to/the/jsonl/dir.cu"}   (the file is the content)
 * plus an optional "meta" (anything; ignored) for provenance. Lines are served per task in file
 * order, each generate taking the next n. The whole file is read and checked at open, so a bad
 * line is reported there as FILE:LINE, never in the middle of a run. */
#include "policy_int.h"
#include "../base/file.h"
#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *content, *reasoning;
  char finish_reason[32];
  int line;
} rp_entry;

typedef struct {
  char *task;
  rp_entry *e;
  int n, cap;
  int next;                   /* the next entry to serve */
} rp_task;

typedef struct {
  rp_task *t;
  int n, cap;
  pthread_mutex_t mu;         /* guards every next */
} rp_state;

static rp_task *find_task(rp_state *s, const char *task) {
  for (int i = 0; i < s->n; i++)
    if (!strcmp(s->t[i].task, task)) return &s->t[i];
  return NULL;
}

/* The task's group, created if new; NULL when out of memory. */
static rp_task *task_group(rp_state *s, const char *task) {
  rp_task *t = find_task(s, task);
  if (t) return t;
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 16;
    rp_task *nt = realloc(s->t, (size_t)cap * sizeof *nt);
    if (!nt) return NULL;
    s->t = nt;
    s->cap = cap;
  }
  t = &s->t[s->n];
  memset(t, 0, sizeof *t);
  if (!(t->task = strdup(task))) return NULL;
  s->n++;
  return t;
}

/* The folder of path (for "file" entries), as a new string; "." for a bare name. */
static char *dir_of(const char *path) {
  const char *sl = strrchr(path, '/');
  if (!sl) return strdup(".");
  if (sl == path) return strdup("/");
  return strndup(path, (size_t)(sl - path));
}

static const char *const known_keys[] = {"task", "content", "file", "reasoning", "finish_reason", "meta"};

/* Checks one parsed line and adds it to its task. */
static int add_line(rp_state *s, const cJSON *o, const char *path, const char *dir, int line, cl1_err *err) {
  if (!cJSON_IsObject(o)) return cl1_err_set(err, "%s:%d: not a JSON object", path, line);
  const cJSON *it;
  cJSON_ArrayForEach(it, o) {
    size_t k = 0;
    while (k < sizeof known_keys / sizeof *known_keys && strcmp(it->string, known_keys[k])) k++;
    if (k == sizeof known_keys / sizeof *known_keys)
      return cl1_err_set(err, "%s:%d: unknown key \"%s\" (task, content or file, reasoning, finish_reason, meta)",
                         path, line, it->string);
  }
  const cJSON *task = cJSON_GetObjectItemCaseSensitive(o, "task");
  const cJSON *content = cJSON_GetObjectItemCaseSensitive(o, "content");
  const cJSON *file = cJSON_GetObjectItemCaseSensitive(o, "file");
  const cJSON *reasoning = cJSON_GetObjectItemCaseSensitive(o, "reasoning");
  const cJSON *fr = cJSON_GetObjectItemCaseSensitive(o, "finish_reason");
  if (!cJSON_IsString(task) || !*task->valuestring)
    return cl1_err_set(err, "%s:%d: \"task\" must be a non-empty string", path, line);
  if (!content == !file)
    return cl1_err_set(err, "%s:%d: needs exactly one of \"content\" and \"file\"", path, line);
  if (content && !cJSON_IsString(content))
    return cl1_err_set(err, "%s:%d: \"content\" must be a string", path, line);
  if (file && (!cJSON_IsString(file) || !*file->valuestring))
    return cl1_err_set(err, "%s:%d: \"file\" must be a non-empty string", path, line);
  if (reasoning && !cJSON_IsString(reasoning))
    return cl1_err_set(err, "%s:%d: \"reasoning\" must be a string", path, line);
  if (fr && !cJSON_IsString(fr))
    return cl1_err_set(err, "%s:%d: \"finish_reason\" must be a string", path, line);
  rp_entry e = {.line = line};
  cl1_strcpy(e.finish_reason, sizeof e.finish_reason, fr ? fr->valuestring : "stop");
  if (file) {
    const char *f = file->valuestring;
    size_t pl = strlen(dir) + strlen(f) + 2;
    char *fp = malloc(pl);
    if (!fp) return cl1_err_set(err, "%s:%d: out of memory", path, line);
    if (f[0] == '/') snprintf(fp, pl, "%s", f);
    else snprintf(fp, pl, "%s/%s", dir, f);
    size_t n;
    if (cl1_file_read_text(fp, 1ll << 30, &e.content, &n, err)) {
      cl1_err_wrap(err, "%s:%d: cannot read \"file\"", path, line);
      free(fp);
      return -1;
    }
    free(fp);
  } else {
    e.content = strdup(content->valuestring);
  }
  if (reasoning) e.reasoning = strdup(reasoning->valuestring);
  rp_task *t = task_group(s, task->valuestring);
  if (t && t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 8;
    rp_entry *ne = realloc(t->e, (size_t)cap * sizeof *ne);
    if (ne) t->e = ne, t->cap = cap;
  }
  if (!t || t->n == t->cap || !e.content || (reasoning && !e.reasoning)) {
    free(e.content);
    free(e.reasoning);
    return cl1_err_set(err, "%s:%d: out of memory", path, line);
  }
  t->e[t->n++] = e;
  return 0;
}

static int rp_load(rp_state *s, const char *path, cl1_err *err) {
  FILE *f = fopen(path, "r");
  if (!f) return cl1_err_set(err, "policy replay: cannot open %s: %s", path, strerror(errno));
  char *dir = dir_of(path), *ln = NULL;
  size_t lcap = 0;
  ssize_t len;
  int line = 0, rc = dir ? 0 : cl1_err_set(err, "policy replay: out of memory");
  int entries = 0;
  while (!rc && (len = getline(&ln, &lcap, f)) >= 0) {
    line++;
    while (len > 0 && isspace((unsigned char)ln[len - 1])) ln[--len] = 0;
    const char *b = ln;
    while (isspace((unsigned char)*b)) b++;
    if (!*b) continue;
    if (strlen(ln) != (size_t)len) {
      rc = cl1_err_set(err, "%s:%d: the line contains a NUL byte", path, line);
      break;
    }
    const char *end = NULL;
    cJSON *o = cJSON_ParseWithOpts(b, &end, 1);
    if (!o) {
      size_t at = end && end >= b ? (size_t)(end - b) : 0;
      rc = cl1_err_set(err, "%s:%d: not valid JSON (at column %zu)", path, line, at + 1 + (size_t)(b - ln));
    } else {
      rc = add_line(s, o, path, dir, line, err);
      entries++;
    }
    cJSON_Delete(o);
  }
  if (!rc && ferror(f)) rc = cl1_err_set(err, "policy replay: read error in %s", path);
  if (!rc && !entries) rc = cl1_err_set(err, "policy replay: %s holds no completions", path);
  free(ln);
  free(dir);
  fclose(f);
  return rc;
}

static void rp_close(cl1_policy *p) {
  rp_state *s = p->state;
  if (!s) return;
  for (int i = 0; i < s->n; i++) {
    for (int j = 0; j < s->t[i].n; j++) {
      free(s->t[i].e[j].content);
      free(s->t[i].e[j].reasoning);
    }
    free(s->t[i].e);
    free(s->t[i].task);
  }
  free(s->t);
  pthread_mutex_destroy(&s->mu);
  free(s);
  p->state = NULL;
}

static int rp_open(cl1_policy *p, cl1_err *err) {
  rp_state *s = calloc(1, sizeof *s);
  if (!s) return cl1_err_set(err, "policy replay: out of memory");
  pthread_mutex_init(&s->mu, NULL);
  p->state = s;
  if (rp_load(s, p->o.replay_path, err)) {
    rp_close(p);
    return -1;
  }
  return 0;
}

static int rp_generate(cl1_policy *p, const char *task_id, const char *system, const char *user,
                       int n, cl1_completion *out, cl1_err *err) {
  (void)system;
  (void)user;
  (void)err;
  rp_state *s = p->state;
  pthread_mutex_lock(&s->mu);
  rp_task *t = find_task(s, task_id);
  for (int i = 0; i < n; i++) {
    cl1_completion *c = &out[i];
    c->replayed = 1;
    if (!t || t->next >= t->n) {
      cl1_policy_fail(c, "replay: no more completions for %s in %s", task_id, p->o.replay_path);
      continue;
    }
    const rp_entry *e = &t->e[t->next++];
    cl1_strcpy(c->finish_reason, sizeof c->finish_reason, e->finish_reason);
    if (!*e->content) {
      cl1_policy_fail(c, "replay: empty content for %s at %s:%d", task_id, p->o.replay_path, e->line);
      continue;
    }
    c->content = strdup(e->content);
    c->reasoning = e->reasoning ? strdup(e->reasoning) : NULL;
    if (!c->content || (e->reasoning && !c->reasoning)) {
      free(c->content);
      free(c->reasoning);
      c->content = c->reasoning = NULL;
      cl1_policy_fail(c, "replay: out of memory");
      continue;
    }
    c->ok = 1;
  }
  pthread_mutex_unlock(&s->mu);
  return 0;
}

const cl1_policy_backend cl1_policy_replay_backend = {rp_open, rp_generate, rp_close, NULL};
