/* policy.c — the policy interface: option defaults and checks, backend dispatch, completions'
 * memory, and the concurrency limit every backend's requests share. */
#include "policy_int.h"
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cl1_policy_opts_default(cl1_policy_opts *o) {
  memset(o, 0, sizeof *o);
  o->temperature = 1.0;
  o->top_p = 1.0;
  o->concurrency = 4;
  o->timeout_s = 600;
  o->retries = 5;
  o->backoff_s = 1.0;
}

static int check_opts(const cl1_policy_opts *o, cl1_err *err) {
  if (!o->kind || !*o->kind) return cl1_err_set(err, "policy: no backend kind (openai or replay)");
  if (strcmp(o->kind, "openai") && strcmp(o->kind, "replay"))
    return cl1_err_set(err, "policy: unknown backend '%s' (openai or replay)", o->kind);
  if (!strcmp(o->kind, "openai")) {
    if (!o->base_url || !*o->base_url)
      return cl1_err_set(err, "policy openai: no base URL (e.g. http://127.0.0.1:8000/v1)");
    if (strncmp(o->base_url, "http://", 7) && strncmp(o->base_url, "https://", 8))
      return cl1_err_set(err, "policy openai: base URL '%s' is not http:// or https://", o->base_url);
    if (!o->model || !*o->model) return cl1_err_set(err, "policy openai: no model name");
  } else if (!o->replay_path || !*o->replay_path) {
    return cl1_err_set(err, "policy replay: no JSONL file");
  }
  if (o->concurrency < 1)
    return cl1_err_set(err, "policy: concurrency %d must be at least 1", o->concurrency);
  if (!(o->timeout_s > 0) || !isfinite(o->timeout_s))
    return cl1_err_set(err, "policy: timeout %g s must be positive", o->timeout_s);
  if (o->retries < 0) return cl1_err_set(err, "policy: retries %d must be >= 0", o->retries);
  if (!(o->backoff_s >= 0) || !isfinite(o->backoff_s))
    return cl1_err_set(err, "policy: backoff %g s must be >= 0", o->backoff_s);
  if (!(o->temperature >= 0) || !isfinite(o->temperature))
    return cl1_err_set(err, "policy: temperature %g must be >= 0", o->temperature);
  if (!(o->top_p > 0 && o->top_p <= 1))
    return cl1_err_set(err, "policy: top_p %g must be in (0, 1]", o->top_p);
  if (o->max_tokens < 0) return cl1_err_set(err, "policy: max_tokens %d must be >= 0", o->max_tokens);
  return 0;
}

/* strdup that keeps NULL. */
static int dup_opt(const char *s, char **out) {
  *out = NULL;
  if (!s) return 0;
  *out = strdup(s);
  return *out ? 0 : -1;
}

int cl1_policy_open(const cl1_policy_opts *o, cl1_policy **out, cl1_err *err) {
  assert(o && out);
  *out = NULL;
  if (check_opts(o, err)) return -1;
  cl1_policy *p = calloc(1, sizeof *p);
  if (!p) return cl1_err_set(err, "policy: out of memory");
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  p->o = *o;
  if (dup_opt(o->kind, &p->own_kind) || dup_opt(o->base_url, &p->own_base_url) ||
      dup_opt(o->model, &p->own_model) || dup_opt(o->api_key, &p->own_api_key) ||
      dup_opt(o->replay_path, &p->own_replay_path)) {
    cl1_policy_close(p);
    return cl1_err_set(err, "policy: out of memory");
  }
  p->o.kind = p->own_kind;
  p->o.base_url = p->own_base_url;
  p->o.model = p->own_model;
  p->o.api_key = p->own_api_key;
  p->o.replay_path = p->own_replay_path;
  p->be = !strcmp(o->kind, "openai") ? &cl1_policy_openai_backend : &cl1_policy_replay_backend;
  if (p->be->open(p, err)) {
    p->be = NULL; /* the backend cleaned up after itself */
    cl1_policy_close(p);
    return -1;
  }
  *out = p;
  return 0;
}

int cl1_policy_generate(cl1_policy *p, const char *task_id, const char *system, const char *user,
                        int n, cl1_completion *out, cl1_err *err) {
  if (!p || !p->be) return cl1_err_set(err, "policy: generate on a policy that is not open");
  if (n < 1) return cl1_err_set(err, "policy: asked for %d completions (at least 1)", n);
  if (!out) return cl1_err_set(err, "policy: no room for the completions");
  if (!user) return cl1_err_set(err, "policy: no user message");
  if (!task_id) task_id = "";
  memset(out, 0, (size_t)n * sizeof *out);
  return p->be->generate(p, task_id, system, user, n, out, err);
}

int cl1_policy_check(cl1_policy *p, cl1_err *err) {
  if (!p || !p->be) return cl1_err_set(err, "policy: check on a policy that is not open"), 2;
  return p->be->check ? p->be->check(p, err) : 0;
}

int cl1_policy_fatal(cl1_policy *p, cl1_err *err) {
  if (!p) return 0;
  pthread_mutex_lock(&p->mu);
  int rc = p->fatal_rc;
  if (rc) cl1_err_set(err, "%s", p->fatal_msg);
  pthread_mutex_unlock(&p->mu);
  return rc;
}

void cl1_policy_set_fatal(cl1_policy *p, int rc, const char *msg) {
  pthread_mutex_lock(&p->mu);
  if (!p->fatal_rc) {
    p->fatal_rc = rc;
    cl1_strcpy(p->fatal_msg, sizeof p->fatal_msg, msg);
  }
  pthread_mutex_unlock(&p->mu);
}

void cl1_completion_clear(cl1_completion *c) {
  if (!c) return;
  free(c->content);
  free(c->reasoning);
  memset(c, 0, sizeof *c);
}

void cl1_policy_close(cl1_policy *p) {
  if (!p) return;
  if (p->be) p->be->close(p);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->cv);
  if (p->own_api_key) /* the key does not linger in freed memory */
    memset(p->own_api_key, 0, strlen(p->own_api_key));
  free(p->own_kind);
  free(p->own_base_url);
  free(p->own_model);
  free(p->own_api_key);
  free(p->own_replay_path);
  free(p);
}

void cl1_policy_slot_take(cl1_policy *p) {
  pthread_mutex_lock(&p->mu);
  while (p->in_flight >= p->o.concurrency) pthread_cond_wait(&p->cv, &p->mu);
  p->in_flight++;
  pthread_mutex_unlock(&p->mu);
}

void cl1_policy_slot_give(cl1_policy *p) {
  pthread_mutex_lock(&p->mu);
  assert(p->in_flight > 0);
  p->in_flight--;
  pthread_cond_signal(&p->cv);
  pthread_mutex_unlock(&p->mu);
}

void cl1_policy_fail(cl1_completion *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->error, sizeof c->error, fmt, ap);
  va_end(ap);
  c->ok = 0;
}
