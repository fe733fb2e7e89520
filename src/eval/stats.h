/* stats.h — summary statistics of timing samples: median, IQR, min, mean, and the relative
 * width of a distribution-free 95% confidence interval of the median (order statistics),
 * which decides when enough trials have run. */
#ifndef CL1_STATS_H
#define CL1_STATS_H
typedef struct {
  int n;
  double median, q1, q3, min, max, mean;
  double ci_rel;             /* width of the 95% CI of the median / median */
} cl1_stats;

/* Summarises x[0..n) (x is not modified). */
void cl1_stats_of(const double *x, int n, cl1_stats *s);
double cl1_median(const double *x, int n);
#endif
