/* conv2d.cu — CUDA cl1_op_conv2d: the 2-d descriptor restated as a cl1_convnd_desc and run by
 * cl1_op_convnd (cuDNN as PyTorch with cudnn.benchmark = False, TF32 allowed; depthwise convs
 * through the direct kernel, as PyTorch). */
#include "cudal1/ops.h"

extern "C" int cl1_op_conv2d(void *stream, const float *x, const float *w, const float *bias,
                             float *y, const cl1_conv2d_desc *d) {
  if (!d) return 1;
  cl1_convnd_desc n = {};
  n.nd = 2, n.n = d->n, n.c = d->c, n.k = d->k, n.groups = d->groups;
  n.in[0] = d->h, n.in[1] = d->w, n.ker[0] = d->r, n.ker[1] = d->s;
  n.stride[0] = d->stride_h, n.stride[1] = d->stride_w;
  n.pad[0] = d->pad_h, n.pad[1] = d->pad_w, n.dil[0] = d->dil_h, n.dil[1] = d->dil_w;
  return cl1_op_convnd(stream, x, w, bias, y, &n);
}
