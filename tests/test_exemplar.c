/* test_exemplar.c — the exemplar sampler (src/loop/exemplar.h): bucket boundaries; the bucket
 * frequencies of 20000 draws against the exact softmax probabilities (chi-square), for one pick
 * and for ordered pairs drawn without replacement; uniform choice within a bucket; distinct
 * buckets and solutions; k above the number of buckets; n = 0 and 1; the temperature's effect;
 * bad arguments and a broken generator refused with a sentence. Draws use a fixed seed, so the
 * test is reproducible; the chi-square bounds are at p ~ 1e-6 so a correct sampler passes under
 * any seed. */
#include "harness.h"
#include <math.h>
#include "loop/exemplar.h"

#define DRAWS 20000

/* Buckets (width 0.25 on log2): 0.5 -> -4; 1.0, 1.02 -> 0; 1.5, 1.55 -> 2; 3.0 -> 6. */
static const double S6[] = {1.0, 1.02, 1.5, 1.55, 3.0, 0.5};
static const int S6_BUCKET[] = {1, 1, 2, 2, 3, 0}; /* dense bucket number of each solution */
#define S6_NB 4

/* The exact probabilities exp((mean_b - mean_all) / tau) / Z, computed directly. */
static void exact_probs(const double *s, const int *bucket_of, int n, int nb, double tau,
                        double *p) {
  double mean_all = 0, sum[16] = {0}, cnt[16] = {0}, z = 0;
  for (int i = 0; i < n; i++) mean_all += s[i], sum[bucket_of[i]] += s[i], cnt[bucket_of[i]]++;
  mean_all /= n;
  for (int b = 0; b < nb; b++) z += p[b] = exp((sum[b] / cnt[b] - mean_all) / tau);
  for (int b = 0; b < nb; b++) p[b] /= z;
}

static double chi_square(const long *obs, const double *p, int m, long total) {
  double c = 0;
  for (int i = 0; i < m; i++) {
    double e = p[i] * (double)total;
    assert_true(e > 5); /* the approximation needs it; the fixtures are chosen so */
    c += (obs[i] - e) * (obs[i] - e) / e;
  }
  return c;
}

static void test_bucket_edges(void **st) {
  (void)st;
  assert_int_equal(cl1_exemplar_bucket(1.0, 0.25), 0);
  assert_int_equal(cl1_exemplar_bucket(1.1, 0.25), 0);
  assert_int_equal(cl1_exemplar_bucket(0.99, 0.25), -1); /* slower than the reference: apart */
  assert_int_equal(cl1_exemplar_bucket(2.0, 0.25), 4);
  assert_int_equal(cl1_exemplar_bucket(0.5, 0.25), -4);
  assert_int_equal(cl1_exemplar_bucket(1.25, 0.25), 1);
  assert_int_equal(cl1_exemplar_bucket(3.0, 1.0), 1);
  for (int i = 0; i < 6; i++) { /* the fixture's bucket layout is what the test assumes */
    long b = cl1_exemplar_bucket(S6[i], CL1_EXEMPLAR_BIN_WIDTH);
    static const long want[] = {0, 0, 2, 2, 6, -4};
    assert_int_equal(b, want[i]);
  }
}

static void test_distribution_one(void **st) {
  (void)st;
  const double tau = 0.5;
  double p[S6_NB];
  exact_probs(S6, S6_BUCKET, 6, S6_NB, tau, p);
  long obs[S6_NB] = {0}, per_sol[6] = {0};
  cl1_exemplar_rng r = {42, 0};
  cl1_err err = {{0}};
  for (int t = 0; t < DRAWS; t++) {
    int idx = -1;
    assert_int_equal(cl1_exemplar_pick(S6, 6, 1, tau, cl1_exemplar_rng_u01, &r, &idx, &err), 1);
    assert_in_range(idx, 0, 5);
    obs[S6_BUCKET[idx]]++;
    per_sol[idx]++;
  }
  double c = chi_square(obs, p, S6_NB, DRAWS);
  /* 3 degrees of freedom: P(chi2 > 33) ~ 3e-7 */
  assert_true(c < 33.0);
  /* within a bucket, uniform: 1.0 and 1.02 share bucket 0 */
  long a = per_sol[0], b = per_sol[1], nb0 = a + b;
  double sd = sqrt(nb0 * 0.25);
  assert_true(fabs(a - nb0 / 2.0) < 5 * sd);
  a = per_sol[2], b = per_sol[3], nb0 = a + b;
  sd = sqrt(nb0 * 0.25);
  assert_true(fabs(a - nb0 / 2.0) < 5 * sd);
  /* a wrong rule (uniform over buckets) would be far off: the test can fail */
  double uni[S6_NB] = {0.25, 0.25, 0.25, 0.25};
  assert_true(chi_square(obs, uni, S6_NB, DRAWS) > 100.0);
}

/* k = 2: ordered bucket pairs, each P(a) * P(b) / (1 - P(a)); always distinct. */
static void test_distribution_pairs(void **st) {
  (void)st;
  const double tau = 1.0;
  double p[S6_NB], pp[S6_NB * S6_NB] = {0};
  exact_probs(S6, S6_BUCKET, 6, S6_NB, tau, p);
  int cells[S6_NB * S6_NB], m = 0;
  for (int a = 0; a < S6_NB; a++)
    for (int b = 0; b < S6_NB; b++)
      if (a != b) pp[m] = p[a] * p[b] / (1 - p[a]), cells[a * S6_NB + b] = m++;
  long obs[S6_NB * S6_NB] = {0};
  cl1_exemplar_rng r = {7, 0};
  cl1_err err = {{0}};
  for (int t = 0; t < DRAWS; t++) {
    int idx[2] = {-1, -1};
    assert_int_equal(cl1_exemplar_pick(S6, 6, 2, tau, cl1_exemplar_rng_u01, &r, idx, &err), 2);
    int ba = S6_BUCKET[idx[0]], bb = S6_BUCKET[idx[1]];
    assert_int_not_equal(idx[0], idx[1]);
    assert_int_not_equal(ba, bb);
    obs[cells[ba * S6_NB + bb]]++;
  }
  /* 11 degrees of freedom: P(chi2 > 50) ~ 6e-7 */
  assert_true(chi_square(obs, pp, m, DRAWS) < 50.0);
}

static void test_more_than_buckets(void **st) {
  (void)st;
  const double s[] = {1.0, 1.01, 1.02, 2.0, 2.05};
  cl1_exemplar_rng r = {1, 0};
  cl1_err err = {{0}};
  for (int t = 0; t < 200; t++) {
    int idx[5] = {-1, -1, -1, -1, -1};
    int got = cl1_exemplar_pick(s, 5, 5, 0.3, cl1_exemplar_rng_u01, &r, idx, &err);
    assert_int_equal(got, 2);
    assert_int_not_equal(idx[0], idx[1]);
    /* one from {1.0, 1.01, 1.02}, one from {2.0, 2.05} */
    assert_true((idx[0] < 3) != (idx[1] < 3));
    assert_int_equal(idx[2], -1); /* nothing written past the count */
  }
}

static void test_fewer_solutions_than_asked_returns_what_there_is(void **st) {
  (void)st;
  cl1_exemplar_rng r = {3, 0};
  cl1_err err = {{0}};
  int idx[2] = {-1, -1};
  assert_int_equal(cl1_exemplar_pick(NULL, 0, 2, 1.0, cl1_exemplar_rng_u01, &r, idx, &err), 0);
  assert_int_equal(idx[0], -1);
  const double one = 1.7;
  assert_int_equal(cl1_exemplar_pick(&one, 1, 2, 1.0, cl1_exemplar_rng_u01, &r, idx, &err), 1);
  assert_int_equal(idx[0], 0);
  assert_int_equal(idx[1], -1);
  /* k = 0: nothing, and no generator needed */
  assert_int_equal(cl1_exemplar_pick(&one, 1, 0, 1.0, NULL, NULL, idx, &err), 0);
}

static void test_temperature_sharpens_or_flattens_the_bucket_choice(void **st) {
  (void)st;
  cl1_err err = {{0}};
  long obs[S6_NB] = {0};
  cl1_exemplar_rng r = {11, 0};
  /* tiny tau: only the best bucket (3.0x, index 4) */
  for (int t = 0; t < 2000; t++) {
    int idx;
    assert_int_equal(cl1_exemplar_pick(S6, 6, 1, 0.01, cl1_exemplar_rng_u01, &r, &idx, &err), 1);
    assert_int_equal(idx, 4);
  }
  /* tau so small the logits overflow a double: still the best, no NaN */
  for (int t = 0; t < 200; t++) {
    int idx[2];
    assert_int_equal(cl1_exemplar_pick(S6, 6, 2, 1e-310, cl1_exemplar_rng_u01, &r, idx, &err), 2);
    assert_int_equal(idx[0], 4);
    assert_in_range(idx[1], 2, 3); /* then the second-best bucket (1.5x, 1.55x) */
  }
  /* huge tau: close to uniform over the four buckets */
  for (int t = 0; t < DRAWS; t++) {
    int idx;
    assert_int_equal(cl1_exemplar_pick(S6, 6, 1, 1e6, cl1_exemplar_rng_u01, &r, &idx, &err), 1);
    obs[S6_BUCKET[idx]]++;
  }
  double uni[S6_NB] = {0.25, 0.25, 0.25, 0.25};
  assert_true(chi_square(obs, uni, S6_NB, DRAWS) < 33.0);
  /* the best bucket's share grows as tau falls */
  double p_hot[S6_NB], p_cold[S6_NB];
  exact_probs(S6, S6_BUCKET, 6, S6_NB, 2.0, p_hot);
  exact_probs(S6, S6_BUCKET, 6, S6_NB, 0.2, p_cold);
  long best_hot = 0, best_cold = 0;
  for (int t = 0; t < DRAWS; t++) {
    int a, b;
    cl1_exemplar_pick(S6, 6, 1, 2.0, cl1_exemplar_rng_u01, &r, &a, &err);
    cl1_exemplar_pick(S6, 6, 1, 0.2, cl1_exemplar_rng_u01, &r, &b, &err);
    best_hot += a == 4, best_cold += b == 4;
  }
  assert_true(p_cold[3] > p_hot[3]);
  assert_true(fabs(best_hot - p_hot[3] * DRAWS) < 5 * sqrt(DRAWS * p_hot[3] * (1 - p_hot[3])));
  assert_true(fabs(best_cold - p_cold[3] * DRAWS) < 5 * sqrt(DRAWS * p_cold[3] * (1 - p_cold[3])));
  assert_true(best_cold > best_hot);
}

static void test_same_seed_same_picks_other_seed_other_picks(void **st) {
  (void)st;
  cl1_err err = {{0}};
  int a[40], b[40];
  cl1_exemplar_rng r1 = {99, 0}, r2 = {99, 0}, r3 = {100, 0};
  for (int t = 0; t < 20; t++) {
    assert_int_equal(cl1_exemplar_pick(S6, 6, 2, 1.0, cl1_exemplar_rng_u01, &r1, a + 2 * t, &err), 2);
    assert_int_equal(cl1_exemplar_pick(S6, 6, 2, 1.0, cl1_exemplar_rng_u01, &r2, b + 2 * t, &err), 2);
  }
  assert_memory_equal(a, b, sizeof a);
  int diff = 0;
  for (int t = 0; t < 20; t++) {
    cl1_exemplar_pick(S6, 6, 2, 1.0, cl1_exemplar_rng_u01, &r3, b + 2 * t, &err);
  }
  for (int i = 0; i < 40; i++) diff += a[i] != b[i];
  assert_true(diff > 0); /* another seed, another sequence */
  /* the generator itself stays in [0, 1) */
  cl1_exemplar_rng r = {5, 0};
  for (int i = 0; i < 10000; i++) {
    double u = cl1_exemplar_rng_u01(&r);
    assert_true(u >= 0 && u < 1);
  }
}

static double broken_rng(void *st) {
  (void)st;
  return 1.0;
}

static void test_bad_speedups_and_arguments_are_refused_by_name(void **st) {
  (void)st;
  cl1_err err = {{0}};
  cl1_exemplar_rng r = {1, 0};
  int idx[2];
  const double bad[] = {1.0, -2.0};
  assert_int_equal(cl1_exemplar_pick(bad, 2, 1, 1.0, cl1_exemplar_rng_u01, &r, idx, &err), -1);
  assert_non_null(strstr(err.msg, "speedups[1]"));
  const double nan_s[] = {NAN};
  assert_int_equal(cl1_exemplar_pick(nan_s, 1, 1, 1.0, cl1_exemplar_rng_u01, &r, idx, &err), -1);
  assert_non_null(strstr(err.msg, "speedups[0]"));
  assert_int_equal(cl1_exemplar_pick(S6, 6, 1, 0.0, cl1_exemplar_rng_u01, &r, idx, &err), -1);
  assert_non_null(strstr(err.msg, "tau"));
  assert_int_equal(cl1_exemplar_pick(S6, 6, -1, 1.0, cl1_exemplar_rng_u01, &r, idx, &err), -1);
  assert_int_equal(cl1_exemplar_pick(S6, -3, 1, 1.0, cl1_exemplar_rng_u01, &r, idx, &err), -1);
  assert_int_equal(cl1_exemplar_pick(S6, 6, 1, 1.0, NULL, NULL, idx, &err), -1);
  assert_non_null(strstr(err.msg, "rng"));
  assert_int_equal(cl1_exemplar_pick(S6, 6, 1, 1.0, broken_rng, NULL, idx, &err), -1);
  assert_non_null(strstr(err.msg, "[0, 1)"));
  assert_int_equal(cl1_exemplar_pick_width(S6, 6, 1, 1.0, 0.0, cl1_exemplar_rng_u01, &r, idx,
                                           &err), -1);
  assert_non_null(strstr(err.msg, "width"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bucket_edges),      cmocka_unit_test(test_distribution_one),
      cmocka_unit_test(test_distribution_pairs), cmocka_unit_test(test_more_than_buckets),
      cmocka_unit_test(test_fewer_solutions_than_asked_returns_what_there_is),           cmocka_unit_test(test_temperature_sharpens_or_flattens_the_bucket_choice),
      cmocka_unit_test(test_same_seed_same_picks_other_seed_other_picks),     cmocka_unit_test(test_bad_speedups_and_arguments_are_refused_by_name),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
