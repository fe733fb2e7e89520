/* find.c — where a task lives: the suite folder, and a task id ("level1/19_ReLU", "19_ReLU",
 * "level1/19", "1/19") or a path (a task folder or its task.json) resolved to the folder holding
 * its task.json; cl1_task_resolve, the one way every command reads what a user named as a task.
 * Suite folders are named exactly after the task: suite/level1/19_ReLU/. */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../base/proc.h"
#include "task.h"

#define FIND_LEVELS 3

static bool has_task(const char *dir) {
  char p[PATH_MAX];
  struct stat st;
  if (snprintf(p, sizeof p, "%s/task.json", dir) >= (int)sizeof p) return false;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool all_digits(const char *s) {
  if (!*s) return false;
  for (; *s; s++)
    if (!isdigit((unsigned char)*s)) return false;
  return true;
}

/* Only a file named task.json stands for its folder: any other file there would silently be
 * traded for the folder's task.json. */
static bool is_task_json(const char *path) {
  const char *base = strrchr(path, '/');
  return !strcmp(base ? base + 1 : path, "task.json");
}

/* What was tried, for the error message. */
typedef struct {
  char buf[640];
  size_t n;
} tried_list;

static void tried_add(tried_list *t, const char *fmt, const char *a, const char *b) {
  if (t->n >= sizeof t->buf) return;
  if (t->n) t->n += (size_t)snprintf(t->buf + t->n, sizeof t->buf - t->n, "; ");
  if (t->n < sizeof t->buf) t->n += (size_t)snprintf(t->buf + t->n, sizeof t->buf - t->n, fmt, a, b);
  if (t->n > sizeof t->buf) t->n = sizeof t->buf;
}

typedef struct {
  int n;
  char first[PATH_MAX], second[PATH_MAX];
} matches;

static void match_add(matches *m, const char *dir) {
  if (m->n == 0) snprintf(m->first, sizeof m->first, "%s", dir);
  else if (m->n == 1) snprintf(m->second, sizeof m->second, "%s", dir);
  m->n++;
}

/* Looks in root/levelL for `name` exactly, or for folders "<name>_*" when name is a number. */
static void find_in_level(const char *root, int level, const char *name, matches *m,
                          tried_list *tried) {
  char lv[PATH_MAX], p[PATH_MAX];
  snprintf(lv, sizeof lv, "%s/level%d", root, level);
  if (snprintf(p, sizeof p, "%s/%s", lv, name) < (int)sizeof p) {
    tried_add(tried, "%s%s", p, "");
    if (has_task(p)) {
      match_add(m, p);
      return;
    }
  }
  if (!all_digits(name)) return;
  tried_add(tried, "%s/%s_*", lv, name);
  DIR *d = opendir(lv);
  if (!d) return;
  char prefix[64];
  snprintf(prefix, sizeof prefix, "%d_", atoi(name)); /* "019" and "19" both mean 19_ */
  struct dirent *e;
  while ((e = readdir(d)))
    if (!strncmp(e->d_name, prefix, strlen(prefix)) &&
        snprintf(p, sizeof p, "%s/%s", lv, e->d_name) < (int)sizeof p && has_task(p))
      match_add(m, p);
  closedir(d);
}

int cl1_task_find(const char *suite_root, const char *id_or_path, char *out, size_t n,
                  cl1_err *err) {
  tried_list tried = {{0}, 0};
  matches m = {0, "", ""};
  char q[PATH_MAX];
  if (!id_or_path || !*id_or_path) return cl1_err_set(err, "empty task id");
  if (snprintf(q, sizeof q, "%s", id_or_path) >= (int)sizeof q)
    return cl1_err_set(err, "task id too long: %.64s...", id_or_path);
  size_t ql = strlen(q);
  while (ql > 1 && q[ql - 1] == '/') q[--ql] = 0;

  struct stat st;
  tried_add(&tried, "path %s%s", q, "");
  if (stat(q, &st) == 0) {
    if (S_ISDIR(st.st_mode) && has_task(q)) match_add(&m, q);
    else if (S_ISREG(st.st_mode) && is_task_json(q)) {
      char *slash = strrchr(q, '/');
      if (!slash) snprintf(m.first, sizeof m.first, ".");
      else if (slash == q) snprintf(m.first, sizeof m.first, "/");
      else snprintf(m.first, sizeof m.first, "%.*s", (int)(slash - q), q);
      m.n = 1;
    }
  }
  if (!m.n) {
    const char *slash = strchr(q, '/');
    if (slash && !strchr(slash + 1, '/')) { /* "level1/x" or "1/x" */
      char lv[32];
      size_t ll = (size_t)(slash - q);
      if (ll < sizeof lv) {
        memcpy(lv, q, ll);
        lv[ll] = 0;
        const char *num = !strncmp(lv, "level", 5) ? lv + 5 : lv;
        int level = all_digits(num) ? atoi(num) : 0;
        if (level >= 1 && level <= FIND_LEVELS)
          find_in_level(suite_root, level, slash + 1, &m, &tried);
      }
    } else if (!slash) {
      for (int level = 1; level <= FIND_LEVELS; level++)
        find_in_level(suite_root, level, q, &m, &tried);
    }
  }
  if (m.n > 1)
    return cl1_err_set(err, "task '%s' is ambiguous: %s and %s%s (name the level or the full "
                            "folder)", id_or_path, m.first, m.second, m.n > 2 ? " and more" : "");
  if (m.n == 0) {
    cl1_err_set(err, "task '%s' not found (suite %s); tried: %s", id_or_path, suite_root,
                tried.buf);
    return 1;
  }
  if (strlen(m.first) + 1 > n)
    return cl1_err_set(err, "task folder path too long: %s", m.first);
  memcpy(out, m.first, strlen(m.first) + 1);
  return 0;
}

int cl1_task_resolve(const char *suite_root, const char *arg, cl1_task_ref *ref, cl1_err *err) {
  memset(ref, 0, sizeof *ref);
  int rc = cl1_task_find(suite_root, arg, ref->dir, sizeof ref->dir, err);
  if (rc) return rc;
  if (cl1_task_load(ref->dir, &ref->task, err)) return -1;
  /* the suite's own copy: a folder elsewhere (a copy being edited) may carry the same id, and
     whatever stores the id alone would find the suite's task again, not that one */
  char own[PATH_MAX], a[PATH_MAX], b[PATH_MAX];
  ref->in_suite = snprintf(own, sizeof own, "%s/%s", suite_root, ref->task->id) < (int)sizeof own &&
                  realpath(ref->dir, a) && realpath(own, b) && !strcmp(a, b);
  return 0;
}

void cl1_task_ref_release(cl1_task_ref *ref) {
  cl1_task_free(ref->task);
  ref->task = NULL;
}

const char *cl1_suite_root(void) {
  static char root[PATH_MAX];
  cl1_proc_share_dir("CUDAL1_SUITE", "suite", root, sizeof root);
  return root;
}
