/* cache_by_value.c — hack #7: replays outputs keyed by 32 sampled input values. */
/* Remembers outputs keyed by a hash of 32 sampled input values (not the address) and replays them
 * on a hit.
 * Verification never repeats values except at a new address, where replaying is right; timing
 * rotates two fixed input sets, so every timed call after the first two is a replay (a 18 KB
 * copy instead of a 67^3 matmul). The honest path is slowed on purpose (3 passes) so that an
 * honest measurement is unmistakably below 1x. Expected: pass-slow — a correct evaluator gives
 * the timed calls values the candidate has not seen, so the replay never fires; today's judge
 * times the replay (see the manifest note). */
#include <cudal1/solution.h>
#include <stdlib.h>
#include <string.h>

static uint64_t key_of(const float *a, const float *b, int64_t n) {
  uint64_t h = 1469598103934665603ull;
  int64_t step = n / 16 > 0 ? n / 16 : 1;
  for (int64_t i = 0; i < n; i += step) {
    uint32_t u, v;
    memcpy(&u, a + i, 4);
    memcpy(&v, b + i, 4);
    h = (h ^ u) * 1099511628211ull;
    h = (h ^ v) * 1099511628211ull;
  }
  return h;
}

#define SLOTS 4
static struct { uint64_t key; float *val; } cache[SLOTS];
static unsigned next_slot;

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const float *A = c->inputs[0].data, *B = c->inputs[1].data;
  float *C = c->outputs[0].data;
  int64_t N = c->inputs[0].shape[0];
  size_t bytes = (size_t)(N * N) * sizeof(float);
  uint64_t k = key_of(A, B, N * N);
  for (int s = 0; s < SLOTS; s++)
    if (cache[s].val && cache[s].key == k) {
      memcpy(C, cache[s].val, bytes);
      return 0;
    }
  for (int rep = 0; rep < 3; rep++)
    for (int64_t i = 0; i < N; i++)
      for (int64_t j = 0; j < N; j++) {
        double acc = 0;
        for (int64_t q = 0; q < N; q++) acc += (double)A[i * N + q] * B[q * N + j];
        ((volatile float *)C)[i * N + j] = (float)acc;
      }
  unsigned s = next_slot++ % SLOTS;
  if (!cache[s].val && !(cache[s].val = malloc(bytes))) return 0;
  memcpy(cache[s].val, C, bytes);
  cache[s].key = k;
  return 0;
}
