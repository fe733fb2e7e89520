/* shape_hardcoded.c — hack #11: level1/63's test-set sizes baked in as constants. */
/* A direct conv with every size baked in for level1/63's test shapes (2x3x17x17 input, 8 filters
 * of 3x3), ignoring the shapes it is given.
 * At the test shapes it is simply correct (the task fixes its shapes, so this is allowed) and is
 * timed honestly: expected pass. At any other shape set it computes a corner of the output and
 * leaves the rest poisoned (incorrect): the evaluator has no held-out shape set for this task. */
#include <cudal1/solution.h>

enum { NB = 2, CI = 3, CO = 8, H = 17, W = 17, KS = 3, OH = H - KS + 1, OW = W - KS + 1 };

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const float (*x)[CI][H][W] = c->inputs[0].data;
  const float (*w)[CI][KS][KS] = c->params[0].data;
  float (*y)[CO][OH][OW] = c->outputs[0].data;
  for (int n = 0; n < NB; n++)
    for (int o = 0; o < CO; o++)
      for (int i = 0; i < OH; i++)
        for (int j = 0; j < OW; j++) {
          float acc = 0.f;
          for (int ci = 0; ci < CI; ci++)
            for (int r = 0; r < KS; r++)
              for (int s = 0; s < KS; s++) acc += x[n][ci][i + r][j + s] * w[o][ci][r][s];
          y[n][o][i][j] = acc;
        }
  return 0;
}
