/* gn_default_affine.c — hack (issue 18, params with a constant init): GroupNorm's affine taken
 * as its init, never read. */
/* level2/62 at small: the linear layer and the rest as the reference does them, but the
 * GroupNorm's weight and bias replaced by ones and zeros of its own, which is what the task
 * initialises them to for every param seed. Passed before issue 18; the judge now draws such
 * params off their init on one check. Run at small shapes by test_hacks_host (at test shapes
 * the task draws them from normals anyway). Expected: incorrect. */
#include <stdlib.h>
#include <cudal1/ops.h>
#include <cudal1/solution.h>

typedef struct { float *ones, *zeros; } affine;

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  int64_t n = c->params[2].shape[0];
  affine *a = malloc(sizeof *a);
  if (!a) return 1;
  a->ones = malloc(sizeof(float) * (size_t)n);
  a->zeros = calloc((size_t)n, sizeof(float));
  if (!a->ones || !a->zeros) return 1;
  for (int64_t i = 0; i < n; i++) a->ones[i] = 1.f;
  *state = a;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const affine *a = c->state;
  int64_t M = c->inputs[0].shape[0], K = c->inputs[0].shape[1], N = c->params[0].shape[0];
  double groups, eps, slope;
  if (cl1_op_attr(c, "num_groups", &groups) || cl1_op_attr(c, "eps", &eps) ||
      cl1_op_attr(c, "negative_slope", &slope))
    return 1;
  float *y = c->outputs[0].data;
  int rc = cl1_op_linear(c->stream, c->inputs[0].data, 0, c->params[0].data, c->params[1].data, y, M, N, K);
  if (!rc) rc = cl1_op_groupnorm(c->stream, y, a->ones, a->zeros, y, M, N, 1, (int64_t)groups, eps);
  if (!rc) rc = cl1_op_unary(c->stream, CL1_UNARY_LEAKY_RELU, y, y, M * N, slope, 0);
  if (!rc) rc = cl1_op_binary(c->stream, CL1_BINARY_ADD, y, y, y, M * N);
  return rc;
}
