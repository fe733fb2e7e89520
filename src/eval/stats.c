/* stats.c — timing statistics (see stats.h). */
#include "stats.h"
#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double quantile(const double *sorted, int n, double q) {
  double pos = q * (n - 1);
  int i = (int)floor(pos);
  if (i + 1 >= n) return sorted[n - 1];
  double f = pos - i;
  return sorted[i] * (1 - f) + sorted[i + 1] * f;
}

void cl1_stats_of(const double *x, int n, cl1_stats *s) {
  memset(s, 0, sizeof *s);
  s->n = n;
  if (n <= 0) { s->ci_rel = INFINITY; return; }
  double *v = malloc(sizeof(double) * (size_t)n);
  if (!v) { s->ci_rel = INFINITY; return; }
  memcpy(v, x, sizeof(double) * (size_t)n);
  qsort(v, (size_t)n, sizeof(double), cmp_d);
  double sum = 0;
  for (int i = 0; i < n; i++) sum += v[i];
  s->mean = sum / n;
  s->min = v[0];
  s->max = v[n - 1];
  s->median = quantile(v, n, 0.5);
  s->q1 = quantile(v, n, 0.25);
  s->q3 = quantile(v, n, 0.75);
  /* Ranks n/2 -+ 1.96 sqrt(n)/2 bound the median with ~95% confidence (binomial, normal approx). */
  double h = 1.96 * sqrt((double)n) / 2.0;
  int lo = (int)floor(n / 2.0 - h), hi = (int)ceil(n / 2.0 + h);
  if (lo < 0) lo = 0;
  if (hi > n - 1) hi = n - 1;
  s->ci_rel = s->median > 0 ? (v[hi] - v[lo]) / s->median : INFINITY;
  free(v);
}

double cl1_median(const double *x, int n) {
  cl1_stats s;
  cl1_stats_of(x, n, &s);
  return s.median;
}

int cl1_speedups_agree(double lo, double hi, double t_cand, double t_ref) {
  if (!(lo > 0)) return 1;
  double slack = t_cand > 0 && t_ref > 0 ? CL1_LAUNCH_JITTER_MS / t_cand + CL1_LAUNCH_JITTER_MS / t_ref : 0;
  return hi / lo <= 1.10 + slack;
}

cl1_remeasure cl1_remeasure_judge(double sp_first, double sp_lo, double sp_hi, double ref_lo,
                                  double ref_hi, double t_cand, double t_ref, int host) {
  assert(!(sp_first > 0) || (sp_lo <= sp_first && sp_first <= sp_hi));
  if (cl1_speedups_agree(sp_lo, sp_hi, t_cand, t_ref)) return CL1_REMEASURE_AGREE;
  if (host) return CL1_REMEASURE_NOISY;
  /* nothing fell short of the suspected speedup: only faster passes disagree */
  if (sp_first > 0 && cl1_speedups_agree(sp_lo, sp_first, t_cand, t_ref)) return CL1_REMEASURE_NOISY;
  /* the reference's median is one side of a ratio: its spread measured like the speedups' */
  bool ref_moved = ref_lo > 0 && !cl1_speedups_agree(ref_lo, ref_hi, t_ref, t_ref);
  return ref_moved ? CL1_REMEASURE_NOISY : CL1_REMEASURE_UNSTABLE;
}

double cl1_clock_confirm(const double *cut_ms, const bool *suspect, int n) {
  double cut = 0;
  int k = 0;
  for (int i = 0; i < n; i++)
    if (suspect[i] && (k++ == 0 || cut_ms[i] < cut)) cut = cut_ms[i];
  return 2 * k > n ? cut : 0;
}
