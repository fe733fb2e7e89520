/* store_fixture.h — the one store fixture of the tests that need a store: a fresh temp folder per
 * test with the store's path in it (opened by th_store_setup, left for the cudal1 binary or raw
 * SQL by th_store_setup_path), removed with everything in it by th_store_teardown even when the
 * test fails; and seeding helpers for the rows most store tests start from. Tests of open
 * failures (a corrupt file, a newer schema, a folder that does not exist) write those files next
 * to the fixture's store. */
#ifndef CL1_TEST_STORE_FIXTURE_H
#define CL1_TEST_STORE_FIXTURE_H
#include "harness.h"
#include <ftw.h>
#include "store/store.h"

#define TH_TASK "level1/19_ReLU"

typedef struct {
  char dir[256];  /* the test's own folder */
  char path[300]; /* dir/cudal1.db */
  cl1_store *s;   /* open, or NULL (th_store_setup_path, or after th_store_close) */
} th_store;

/* A fresh folder and the store's path in it; nothing is created at the path. */
static inline int th_store_setup_path(void **state) {
  th_store *f = calloc(1, sizeof *f);
  if (!f) return -1;
  const char *tmp = getenv("TMPDIR");
  snprintf(f->dir, sizeof f->dir, "%s/cl1store.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(f->dir)) {
    free(f);
    return -1;
  }
  snprintf(f->path, sizeof f->path, "%s/cudal1.db", f->dir);
  *state = f;
  return 0;
}

/* A fresh, empty store (the current schema, no rows) open in f->s. */
static inline int th_store_setup(void **state) {
  if (th_store_setup_path(state)) return -1;
  th_store *f = *state;
  cl1_err err = {{0}};
  if (cl1_store_open(f->path, &f->s, &err)) {
    fprintf(stderr, "store fixture: %s\n", err.msg);
    return -1;
  }
  return 0;
}

static inline int th_store_rm_(const char *p, const struct stat *sb, int type, struct FTW *ftw) {
  (void)sb;
  (void)ftw;
  return type == FTW_DP ? rmdir(p) : unlink(p);
}

/* Closes the store if open and removes the folder; a leftover file fails the test. */
static inline int th_store_teardown(void **state) {
  th_store *f = *state;
  if (!f) return 0;
  if (f->s) cl1_store_close(f->s);
  int rc = nftw(f->dir, th_store_rm_, 16, FTW_DEPTH | FTW_PHYS);
  if (rc) fprintf(stderr, "store fixture: cannot remove %s\n", f->dir);
  free(f);
  return rc ? -1 : 0;
}

/* Closes the fixture's store (to reopen it, or to let another process have the file). */
static inline void th_store_close(th_store *f) {
  if (f->s) cl1_store_close(f->s);
  f->s = NULL;
}

/* A task row (level 1, not degenerate). */
static inline void th_store_seed_task(cl1_store *s, const char *id, const char *name) {
  cl1_err err = {{0}};
  assert_int_equal(cl1_store_task_put(s, id, 1, name, false, &err), 0);
}

/* A run of the replay policy on cuda/small with config {"rounds":2}; returns its id. */
static inline int64_t th_store_seed_run(cl1_store *s) {
  cl1_err err = {{0}};
  int64_t run;
  assert_int_equal(cl1_store_run_create(s, "{\"rounds\":2}", "replay", NULL, "cuda", "small",
                                        &run, &err), 0);
  return run;
}

/* TH_TASK and one run (th_store_seed_run): what most store tests start from; returns the run. */
static inline int64_t th_store_seed_task_run(cl1_store *s) {
  th_store_seed_task(s, TH_TASK, "19_ReLU");
  return th_store_seed_run(s);
}

/* Round `round` of TH_TASK in run, opened; returns its id. */
static inline int64_t th_store_seed_round(cl1_store *s, int64_t run, int round) {
  cl1_err err = {{0}};
  int64_t rid;
  assert_int_equal(cl1_store_round_open(s, run, TH_TASK, round, &rid, &err), 0);
  return rid;
}

/* Unit tests of a group with the open store, or with the folder and path only. */
#define th_store_test(f) cmocka_unit_test_setup_teardown(f, th_store_setup, th_store_teardown)
#define th_store_path_test(f) \
  cmocka_unit_test_setup_teardown(f, th_store_setup_path, th_store_teardown)
#endif
