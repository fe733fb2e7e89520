/* reference.c — level3/13_DenseNet121TransitionLayer, PyTorch eager order: batch_norm (batch
 * statistics) into scratch `t`, relu in place, 1x1 conv into scratch `u`, avg_pool2d(2, 2) into
 * the output. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/net.h>

typedef struct {
  float *t;  // (N, C, H, W)
  float *u;  // (N, K, H, W)
} state13;

/* The conv and pool descriptors from the shapes; 0 when every tensor matches them. */
static int describe(const cl1_call *call, cl1_conv2d_desc *cv, cl1_pool_desc *pl) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *p = call->params;
  if (x->ndim != 4 || x->dtype != CL1_F32 || p[2].ndim != 4) return 1;
  int64_t n = x->shape[0], c = x->shape[1], h = x->shape[2], w = x->shape[3], k = p[2].shape[0];
  if (cl1_net_bad(&p[0], 1, c, 0, 0, 0) || cl1_net_bad(&p[1], 1, c, 0, 0, 0) ||
      cl1_net_bad(&p[2], 4, k, c, 1, 1))
    return 1;
  *cv = (cl1_conv2d_desc){.n = n, .c = c, .h = h, .w = w, .k = k, .r = 1, .s = 1,
                          .stride_h = 1, .stride_w = 1, .dil_h = 1, .dil_w = 1, .groups = 1};
  *pl = (cl1_pool_desc){.nsp = 2, .planes = n * k};
  for (int i = 0; i < 2; i++) {
    pl->in[i] = x->shape[2 + i], pl->k[i] = 2, pl->stride[i] = 2, pl->dil[i] = 1;
    pl->out[i] = cl1_pool_out_len(pl->in[i], 2, 2, 0, 1, 0);
  }
  if (cl1_pool_desc_check(CL1_POOL_AVG, pl)) return 1;
  return cl1_net_bad(&call->outputs[0], 4, n, k, pl->out[0], pl->out[1]);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_conv2d_desc cv;
  cl1_pool_desc pl;
  if (describe(call, &cv, &pl)) return 1;
  state13 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)(cv.n * cv.c * cv.h * cv.w) * sizeof(float));
  s->u = cl1_op_alloc((size_t)(cv.n * cv.k * cv.h * cv.w) * sizeof(float));
  if (!s->t || !s->u) return cl1_op_free(s->t), cl1_op_free(s->u), free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state13 *s = state;
  if (!s) return;
  cl1_op_free(s->t), cl1_op_free(s->u);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_conv2d_desc cv;
  cl1_pool_desc pl;
  if (!call->state || describe(call, &cv, &pl)) return 1;
  double eps;
  if (cl1_op_attr(call, "eps", &eps)) return 1;
  const state13 *s = call->state;
  const cl1_tensor *p = call->params;
  void *st = call->stream;
  int64_t hw = cv.h * cv.w;
  int rc = cl1_op_batchnorm_train(st, (const float *)call->inputs[0].data, (const float *)p[0].data,
                                  (const float *)p[1].data, s->t, cv.n, cv.c, hw, eps);
  if (!rc) rc = cl1_op_relu(st, s->t, s->t, cv.n * cv.c * hw);
  if (!rc) rc = cl1_op_conv2d(st, s->t, (const float *)p[2].data, NULL, s->u, &cv);
  if (!rc) rc = cl1_op_pool(st, CL1_POOL_AVG, s->u, (float *)call->outputs[0].data, &pl);
  return rc;
}
