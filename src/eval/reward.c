/* reward.c — CUDA-L1-style reward from a verdict and its speedup (see reward.h). */
#include "reward.h"
#include <math.h>
#include <string.h>

void cl1_reward_cfg_default(cl1_reward_cfg *c) {
  c->log_speedup = false;
  c->clip = 1.5;
  c->floor = -(c->clip + 0.5);
  c->hack_penalty = -(c->clip + 1.5);
}

static bool is_pass(const char *v) { return !strcmp(v, "pass"); }

double cl1_reward_raw(const cl1_reward_cfg *c, const char *verdict, double speedup, bool *valid) {
  *valid = strcmp(verdict, "infra_error") != 0;
  if (!*valid) return 0;
  if (!strncmp(verdict, "hack:", 5)) return c->hack_penalty;
  if (!is_pass(verdict) || !(speedup > 0)) return c->floor;
  return c->log_speedup ? log(speedup) : speedup;
}

void cl1_reward_observe(cl1_reward_stats *s, double r) {
  s->n++;
  double d = r - s->mean;
  s->mean += d / (double)s->n;
  s->m2 += d * (r - s->mean);
}

double cl1_reward_normalize(const cl1_reward_cfg *c, const cl1_reward_stats *s,
                            const char *verdict, double speedup, bool *valid) {
  double r = cl1_reward_raw(c, verdict, speedup, valid);
  if (!*valid || !is_pass(verdict) || !(speedup > 0)) return r;
  double mu = s->n ? s->mean : 0, sigma = s->n >= 2 ? sqrt(s->m2 / (double)(s->n - 1)) : 1.0;
  if (sigma < 1e-6) sigma = 1e-6;
  double z = (r - mu) / sigma;
  return z > c->clip ? c->clip : z < -c->clip ? -c->clip : z;
}
