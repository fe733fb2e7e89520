/* attention.c — host reference for cl1_op_sdpa: per query row, scores and softmax in double. */
#include <math.h>
#include <stdlib.h>
#include "cudal1/ops.h"

int cl1_op_sdpa(void *stream, const float *Q, const float *K, const float *V, float *out,
                int64_t batch, int64_t L, int64_t S, int64_t E, int64_t Ev, double scale) {
  (void)stream;
  if (batch < 0 || L < 0 || S < 1 || E < 1 || Ev < 0) return 1;
  if (batch * L * Ev == 0) return 0;
  if (!Q || !K || !V || !out) return 1;
  double *p = malloc(sizeof(double) * (size_t)S);      // (S)
  double *acc = malloc(sizeof(double) * (size_t)Ev);   // (Ev)
  if (!p || !acc) return free(p), free(acc), 1;
  for (int64_t b = 0; b < batch; b++)
    for (int64_t l = 0; l < L; l++) {
      const float *q = Q + (b * L + l) * E;
      double m = -INFINITY, z = 0.0;
      for (int64_t s = 0; s < S; s++) {
        const float *k = K + (b * S + s) * E;
        double d = 0.0;
        for (int64_t e = 0; e < E; e++) d += (double)q[e] * k[e];
        p[s] = d * scale;
        m = p[s] > m ? p[s] : m;
      }
      for (int64_t s = 0; s < S; s++) z += p[s] = exp(p[s] - m);
      for (int64_t e = 0; e < Ev; e++) acc[e] = 0.0;
      for (int64_t s = 0; s < S; s++) {
        const float *v = V + (b * S + s) * Ev;
        for (int64_t e = 0; e < Ev; e++) acc[e] += p[s] * v[e];
      }
      float *o = out + (b * L + l) * Ev;
      for (int64_t e = 0; e < Ev; e++) o[e] = (float)(acc[e] / z);
    }
  free(p), free(acc);
  return 0;
}
