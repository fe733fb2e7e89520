/* policy_int.h — what the policy's files share (policy.c: options, dispatch, the concurrency
 * limit; openai.c and replay.c: the backends). Private to src/policy. */
#ifndef CL1_POLICY_INT_H
#define CL1_POLICY_INT_H
#include <pthread.h>
#include "policy.h"

typedef struct {
  /* Fills p->state from p->o (already validated in common); non-zero + err on failure. */
  int (*open)(cl1_policy *p, cl1_err *err);
  /* out[0..n) are zeroed; n >= 1. Same contract as cl1_policy_generate. */
  int (*generate)(cl1_policy *p, const char *task_id, const char *system, const char *user,
                  int n, cl1_completion *out, cl1_err *err);
  void (*close)(cl1_policy *p);
  /* cl1_policy_check's work; NULL: nothing to check. */
  int (*check)(cl1_policy *p, cl1_err *err);
} cl1_policy_backend;

struct cl1_policy {
  cl1_policy_opts o;           /* its strings point at the owned copies below */
  char *own_kind, *own_base_url, *own_model, *own_api_key, *own_replay_path;
  const cl1_policy_backend *be;
  void *state;                 /* the backend's */
  pthread_mutex_t mu;          /* guards in_flight (the shared concurrency limit) and fatal */
  pthread_cond_t cv;
  int in_flight;
  int fatal_rc;                /* cl1_policy_fatal: 0, or the exit status its message carries */
  char fatal_msg[1024];
};

extern const cl1_policy_backend cl1_policy_openai_backend;
extern const cl1_policy_backend cl1_policy_replay_backend;

/* Blocks until fewer than o.concurrency requests are in flight, then counts one more. */
void cl1_policy_slot_take(cl1_policy *p);
void cl1_policy_slot_give(cl1_policy *p);

/* Records why no further request can succeed (cl1_policy_fatal); the first one stays. */
void cl1_policy_set_fatal(cl1_policy *p, int rc, const char *msg);

/* Sets c->ok = 0 and c->error from a format. */
void cl1_policy_fail(cl1_completion *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
