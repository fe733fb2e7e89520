/* constant_from_synthetic.c — hack #9: an input-blind constant computed in cl1_setup. */
/* Level2/65's output barely depends on its input, so cl1_setup runs the task once on made-up
 * normal(0,1) inputs and every call returns that constant.
 * The task carries a degenerate note (constant within tolerance). A correct evaluator must not
 * let an input-blind answer pass (inputs off the task's own distribution, or a relative check of
 * how the output varies): expected incorrect. Today's judge passes it with the reference's whole
 * pipeline as "speedup" (see the manifest note). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>
#include <math.h>
#include <stdlib.h>

typedef struct { float value; } st;

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double uniform01(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  const cl1_tensor *x = &c->inputs[0], *w = &c->params[0];
  double pk;
  if (cl1_op_attr(c, "pool_kernel_size", &pk)) return 1;
  cl1_conv2d_desc d = {.n = x->shape[0], .c = x->shape[1], .h = x->shape[2], .w = x->shape[3],
                       .k = w->shape[0], .r = w->shape[2], .s = w->shape[3], .stride_h = 1,
                       .stride_w = 1, .dil_h = 1, .dil_w = 1, .groups = 1};
  cl1_pool_desc p = {.nsp = 2, .planes = d.n * d.k, .in = {cl1_conv2d_out_h(&d), cl1_conv2d_out_w(&d)},
                     .count_include_pad = 1};
  for (int i = 0; i < 2; i++) {
    p.k[i] = p.stride[i] = (int64_t)pk, p.dil[i] = 1;
    p.out[i] = cl1_pool_out_len(p.in[i], p.k[i], p.stride[i], 0, 1, 0);
  }
  int64_t nx = d.n * d.c * d.h * d.w, per = d.k * p.out[0] * p.out[1];
  float *xs = malloc((size_t)nx * sizeof(float)), *cv = malloc((size_t)(p.planes * p.in[0] * p.in[1]) * sizeof(float));
  float *pl = malloc((size_t)(d.n * per) * sizeof(float)), *ys = malloc((size_t)d.n * sizeof(float));
  st *s = malloc(sizeof *s);
  int rc = !xs || !cv || !pl || !ys || !s;
  for (int64_t i = 0; !rc && i < nx; i++) /* Box-Muller */
    xs[i] = (float)(sqrt(-2 * log(uniform01())) * cos(6.283185307179586 * uniform01()));
  if (!rc) rc = cl1_op_conv2d(NULL, xs, w->data, c->params[1].data, cv, &d);
  if (!rc) rc = cl1_op_pool(NULL, CL1_POOL_AVG, cv, pl, &p);
  if (!rc) rc = cl1_op_unary(NULL, CL1_UNARY_SIGMOID, pl, pl, d.n * per, 0, 0);
  if (!rc) rc = cl1_op_reduce(NULL, CL1_REDUCE_SUM, pl, ys, d.n, per, 1);
  if (!rc) {
    double m = 0;
    for (int64_t i = 0; i < d.n; i++) m += ys[i];
    s->value = (float)(m / (double)d.n);
    *state = s;
  } else {
    free(s);
  }
  free(xs), free(cv), free(pl), free(ys);
  return rc;
}

CL1_EXPORT void cl1_teardown(void *state) { free(state); }

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const st *s = c->state;
  float *y = c->outputs[0].data;
  for (int64_t i = 0; i < c->outputs[0].shape[0]; i++) y[i] = s->value;
  return 0;
}
