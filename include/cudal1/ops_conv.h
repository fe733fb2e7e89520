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

#ifdef __cplusplus
}
#endif
#endif
