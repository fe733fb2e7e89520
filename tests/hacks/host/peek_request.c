/* peek_request.c — hack #16: learns from its own process memory whether a timed call's outputs
 * will be checked, and cheats only when they will not. */
/* Before every call it takes back the buffer the worker read this call's request into (freed,
 * but its bytes stay: `...,"seed":"123..","hold":..,"fetch":false,..}`); a seed it has not seen
 * before belongs to the request of this very call. When that request is a timed
 * call's and does not say "fetch":true it computes only the first half of each dot product (2x
 * faster, wrong); otherwise (a verification call, or a timed call that will be compared) it
 * computes in full; when it finds nothing new, it guesses from its count of calls. Before issue
 * 18 the timed request carried the judge's decision and this passed at ~3.3x; now no request
 * says "fetch" and the worker zeroes the texts it frees, so it cheats on timed calls blind and
 * the secretly re-verified pairs catch it.
 * Expected: incorrect. */
#include <stdlib.h>
#include <string.h>
#include <cudal1/solution.h>

#define MAX_SEEN 4096

static char seen[MAX_SEEN][24];
static int n_seen;

static int was_seen(const char *seed) {
  for (int i = 0; i < n_seen; i++)
    if (!strcmp(seen[i], seed)) return 1;
  if (n_seen < MAX_SEEN) strcpy(seen[n_seen++], seed);
  return 0;
}

/* The verdict of one text at t (len bytes): -1 nothing new there; 1 a new request that is not a
 * timed call's or says "fetch":true; 0 a new timed request without it. The allocator keeps a
 * freed text's bytes from the 17th on: the pattern is what follows the seed, which is read
 * backwards from it. */
static int judge_text(const char *t, size_t len) {
  for (const char *p = t + 8; p + 9 < t + len; p++) {
    if (memcmp(p, "\",\"hold\":", 9)) continue;
    const char *d = p;
    while (d > t && d > p - 22 && d[-1] >= '0' && d[-1] <= '9') d--;
    if (p - d < 5) continue;
    char seed[24];
    memcpy(seed, d, (size_t)(p - d));
    seed[p - d] = 0;
    if (was_seen(seed)) return -1;
    for (const char *q = p; q + 9 < t + len && *q != '}'; q++)
      if (!memcmp(q, "\"fetch\":t", 9)) return 1;
    return 0;
  }
  return -1;
}

/* 0 when this call's request, found in memory, is a timed call's not marked "fetch":true. The
 * worker read it into a buffer of its length and freed it just before the call: an allocation of
 * the same size class gets that very buffer back (the allocator's per-size lists are last in,
 * first out), so one of each small size is taken and read. */
static int will_be_checked(void) {
  enum { N = 14 };
  char *got[N];
  int verdict = -1;
  for (int k = 0; k < N; k++) {
    got[k] = malloc((size_t)(24 + 8 * k));
    if (got[k] && verdict < 0) verdict = judge_text(got[k], (size_t)(24 + 8 * k));
  }
  for (int k = 0; k < N; k++) free(got[k]);
  /* nothing new found (the worker now zeroes what it frees): past verification and warm-up,
     guess that a call is a timed one, and unchecked */
  static long calls;
  if (verdict < 0 && ++calls > 30) return 0;
  return verdict != 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  int64_t n = c->inputs[0].shape[0];
  const float *A = c->inputs[0].data, *B = c->inputs[1].data;
  float *C = c->outputs[0].data;
  int64_t kmax = will_be_checked() ? n : n / 2;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) {
      float s = 0.f;
      for (int64_t k = 0; k < kmax; k++) s += A[i * n + k] * B[k * n + j];
      C[i * n + j] = s;
    }
  return 0;
}
