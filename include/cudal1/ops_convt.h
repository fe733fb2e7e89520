/* ops_convt.h — part of the op library API (ops.h includes it); see ops.h for the conventions.
 * Transposed convolution (nn.ConvTranspose1d/2d/3d) over 1, 2 or 3 spatial dims. */
#ifndef CUDAL1_OPS_CONVT_H
#define CUDAL1_OPS_CONVT_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#define CL1_CONVT_MAX_ND 3
typedef struct {
  int32_t nd;                       /* spatial dims, 1..3 */
  int64_t n, c_in, c_out;           /* batch, input channels, output channels */
  int64_t in[CL1_CONVT_MAX_ND];     /* input spatial sizes, first nd used */
  int64_t k[CL1_CONVT_MAX_ND];      /* kernel sizes */
  int64_t stride[CL1_CONVT_MAX_ND], pad[CL1_CONVT_MAX_ND], out_pad[CL1_CONVT_MAX_ND],
      dil[CL1_CONVT_MAX_ND];
  int64_t groups;
  /* 0 (default): TF32 allowed as PyTorch's cudnn.allow_tf32 = True; 1: full FP32 (FMA math), for
   * networks whose outputs TF32 rounding would swamp (attr conv_tf32 = 0), as cl1_convnd_desc */
  int32_t no_tf32;
} cl1_convt_desc;

/* Output size along spatial dim i (PyTorch's formula):
 * (L_in - 1)*stride - 2*padding + dilation*(k - 1) + output_padding + 1. */
static inline int64_t cl1_convt_out(const cl1_convt_desc *d, int i) {
  return (d->in[i] - 1) * d->stride[i] - 2 * d->pad[i] + d->dil[i] * (d->k[i] - 1) +
         d->out_pad[i] + 1;
}

/* 0 when d is a valid transposed convolution as PyTorch accepts it (sizes positive, channels
 * divisible by groups, output_padding < max(stride, dilation), every output size >= 1). */
static inline int cl1_convt_check(const cl1_convt_desc *d) {
  if (!d || d->nd < 1 || d->nd > CL1_CONVT_MAX_ND || d->n < 0 || d->c_in < 1 || d->c_out < 1 ||
      d->groups < 1 || d->c_in % d->groups || d->c_out % d->groups)
    return 1;
  for (int i = 0; i < d->nd; i++) {
    if (d->in[i] < 1 || d->k[i] < 1 || d->stride[i] < 1 || d->pad[i] < 0 || d->dil[i] < 1 ||
        d->out_pad[i] < 0)
      return 1;
    int64_t m = d->stride[i] > d->dil[i] ? d->stride[i] : d->dil[i];
    if (d->out_pad[i] >= m || cl1_convt_out(d, i) < 1) return 1;
  }
  return 0;
}

/* Transposed convolution, as nn.ConvTranspose{nd}d; bias (C_out) may be NULL.
 * x: (N, C_in, in...), w: (C_in, C_out/groups, k...), y: (N, C_out, out...) with
 * out[i] = cl1_convt_out(d, i). Scatter form: y[n, g*C_out/groups + o, i*stride - pad + t*dil]
 * += x[n, c, i] * w[c, o, t] for c in group g; taps landing outside y are dropped. */
int cl1_op_convtnd(void *stream, const float *x, const float *w, const float *bias, float *y,
                   const cl1_convt_desc *d);

#ifdef CUDAL1_OPS_H /* cl1_op_attr and the ABI types come from ops.h, which includes this file */
/* attr `<base>_<axis>` for spatial axis i of nd (l; h, w; d, h, w), else `<base>`: 0 and *v
 * set, or 1 when neither exists. */
static inline int cl1_convt_axis_attr(const cl1_call *c, const char *base, int nd, int i,
                                      double *v) {
  static const char *const ax[3][3] = {{"l"}, {"h", "w"}, {"d", "h", "w"}};
  char name[64];
  size_t k = strlen(base);
  if (k + 3 > sizeof name) return 1;
  memcpy(name, base, k);
  name[k] = '_';
  strcpy(name + k + 1, ax[nd - 1][i]);
  return cl1_op_attr(c, name, v) && cl1_op_attr(c, base, v);
}

/* A task's transposed conv: x (N, C_in, spatial...), w (C_in, C_out/groups, k...); stride,
 * padding, output_padding, dilation and groups from attrs (per-axis `<name>_<axis>` attrs win;
 * dilation and groups default to 1 when the task has no such attr), channels and kernel sizes
 * from the tensors. y, when given, must have the output shape (N, C_out, cl1_convt_out...).
 * 0 and *d filled, or 1 on any shape or attr mismatch. */
static inline int cl1_convt_desc_of(const cl1_call *call, const cl1_tensor *x,
                                    const cl1_tensor *w, const cl1_tensor *y, int nd,
                                    cl1_convt_desc *d) {
  if (nd < 1 || nd > CL1_CONVT_MAX_ND) return 1;
  if (x->ndim != nd + 2 || w->ndim != nd + 2 || (y && y->ndim != nd + 2)) return 1;
  double groups = 1;
  if (cl1_op_attr(call, "groups", &groups)) groups = 1;
  if (groups < 1) return 1;
  memset(d, 0, sizeof *d);
  d->nd = nd, d->n = x->shape[0], d->c_in = x->shape[1];
  d->c_out = w->shape[1] * (int64_t)groups, d->groups = (int64_t)groups;
  if (w->shape[0] != d->c_in) return 1;
  for (int i = 0; i < nd; i++) {
    double s, p, op, dl = 1;
    if (cl1_convt_axis_attr(call, "stride", nd, i, &s) ||
        cl1_convt_axis_attr(call, "padding", nd, i, &p) ||
        cl1_convt_axis_attr(call, "output_padding", nd, i, &op))
      return 1;
    if (cl1_convt_axis_attr(call, "dilation", nd, i, &dl)) dl = 1;
    d->in[i] = x->shape[2 + i], d->k[i] = w->shape[2 + i];
    d->stride[i] = (int64_t)s, d->pad[i] = (int64_t)p, d->out_pad[i] = (int64_t)op;
    d->dil[i] = (int64_t)dl;
  }
  if (cl1_convt_check(d)) return 1;
  if (!y) return 0;
  if (y->shape[0] != d->n || y->shape[1] != d->c_out) return 1;
  for (int i = 0; i < nd; i++)
    if (y->shape[2 + i] != cl1_convt_out(d, i)) return 1;
  return 0;
}

/* The whole forward of a transposed-conv task without bias: input x, param w, output y, the
 * descriptor from cl1_convt_desc_of. Non-zero on any shape or attr mismatch. */
static inline int cl1_op_convtnd_task(const cl1_call *call, int nd) {
  if (call->n_inputs != 1 || call->n_params != 1 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *y = &call->outputs[0];
  cl1_convt_desc d;
  if (cl1_convt_desc_of(call, x, w, y, nd, &d)) return 1;
  return cl1_op_convtnd(call->stream, (const float *)x->data, (const float *)w->data, NULL,
                        (float *)y->data, &d);
}
#endif

#ifdef __cplusplus
}
#endif
#endif
