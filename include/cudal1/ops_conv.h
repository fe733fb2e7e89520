/* ops_conv.h — part of the op library API (ops.h includes it); see ops.h for the conventions.
 * Standard (forward) convolutions over 1, 2 or 3 spatial dims, as nn.Conv1d/2d/3d. */
#ifndef CUDAL1_OPS_CONV_H
#define CUDAL1_OPS_CONV_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#define CL1_CONVND_MAX 3
/* Spatial entries [0, nd) are used, in the tensor's dim order (e.g. D, H, W). */
typedef struct {
  int32_t nd;                      /* spatial dims: 1, 2 or 3 */
  int64_t n, c, k, groups;         /* batch, in channels, out channels, groups */
  int64_t in[CL1_CONVND_MAX];      /* input spatial sizes */
  int64_t ker[CL1_CONVND_MAX];     /* kernel spatial sizes */
  int64_t stride[CL1_CONVND_MAX], pad[CL1_CONVND_MAX], dil[CL1_CONVND_MAX];
  /* 0 (default): TF32 allowed, as PyTorch's cudnn.allow_tf32 = True; 1: full FP32 (FMA math),
   * for networks whose outputs TF32 rounding would swamp (their tasks say so) */
  int32_t no_tf32;
} cl1_convnd_desc;

/* Output size along spatial dim i (PyTorch's formula). */
static inline int64_t cl1_convnd_out(const cl1_convnd_desc *d, int i) {
  return (d->in[i] + 2 * d->pad[i] - d->dil[i] * (d->ker[i] - 1) - 1) / d->stride[i] + 1;
}

/* 1 when d describes a valid convolution with every output size >= 1, else 0. */
static inline int cl1_convnd_valid(const cl1_convnd_desc *d) {
  if (!d || d->nd < 1 || d->nd > CL1_CONVND_MAX || d->n < 0 || d->c < 1 || d->k < 1 ||
      d->groups < 1 || d->c % d->groups || d->k % d->groups)
    return 0;
  for (int i = 0; i < d->nd; i++)
    if (d->in[i] < 1 || d->ker[i] < 1 || d->stride[i] < 1 || d->pad[i] < 0 || d->dil[i] < 1 ||
        cl1_convnd_out(d, i) < 1)
      return 0;
  return 1;
}

/* Cross-correlation with zero padding, as nn.ConvNd; bias (K) may be NULL.
 * x: (N, C, *in), w: (K, C/groups, *ker), y: (N, K, *out) */
int cl1_op_convnd(void *stream, const float *x, const float *w, const float *bias, float *y,
                  const cl1_convnd_desc *d);

#ifdef CUDAL1_OPS_H /* cl1_op_attr and the ABI types come from ops.h, which includes this file */
/* The whole forward of a standard-conv task: input x (N, C, spatial...), params w (K, C/groups,
 * k...) and an optional bias (K); kernel sizes from the weight; per spatial axis i the stride,
 * padding and dilation come from the attrs named stride[i], pad[i], dil[i]; groups from the attr
 * "groups". Non-zero on any shape, dtype or attr mismatch. */
static inline int cl1_op_convnd_task(const cl1_call *call, int nd, const char *const *stride,
                                     const char *const *pad, const char *const *dil) {
  if (call->n_inputs != 1 || call->n_params < 1 || call->n_params > 2 || call->n_outputs != 1)
    return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *y = &call->outputs[0];
  const cl1_tensor *b = call->n_params == 2 ? &call->params[1] : NULL;
  if (x->ndim != nd + 2 || w->ndim != nd + 2 || y->ndim != nd + 2) return 1;
  if (x->dtype != CL1_F32 || w->dtype != CL1_F32 || y->dtype != CL1_F32) return 1;
  if (b && (b->ndim != 1 || b->dtype != CL1_F32 || b->shape[0] != w->shape[0])) return 1;
  double groups;
  if (cl1_op_attr(call, "groups", &groups)) return 1;
  cl1_convnd_desc d = {0};
  d.nd = nd, d.n = x->shape[0], d.c = x->shape[1], d.k = w->shape[0];
  d.groups = (int64_t)groups;
  for (int i = 0; i < nd; i++) {
    double s, p, l;
    if (cl1_op_attr(call, stride[i], &s) || cl1_op_attr(call, pad[i], &p) ||
        cl1_op_attr(call, dil[i], &l))
      return 1;
    d.in[i] = x->shape[2 + i], d.ker[i] = w->shape[2 + i];
    d.stride[i] = (int64_t)s, d.pad[i] = (int64_t)p, d.dil[i] = (int64_t)l;
  }
  if (!cl1_convnd_valid(&d) || w->shape[1] != d.c / d.groups) return 1;
  if (y->shape[0] != d.n || y->shape[1] != d.k) return 1;
  for (int i = 0; i < nd; i++)
    if (y->shape[2 + i] != cl1_convnd_out(&d, i)) return 1;
  return cl1_op_convnd(call->stream, (const float *)x->data, (const float *)w->data,
                       b ? (const float *)b->data : NULL, (float *)y->data, &d);
}
#endif

#ifdef __cplusplus
}
#endif
#endif
