/* reference.c — level1/41_Max_Pooling_1D: y = max_pool1d(x) as nn.MaxPool1d;
 * x: (N, C, sequence_length); window parameters from attrs, sizes from x. */
#include <string.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

#define NSP 1

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0];
  if (x->ndim != NSP + 2 || y->ndim != NSP + 2) return 1;
  double k, s, p, dil = 1, ceil_mode, cip = 1;
  if (cl1_op_attr(call, "kernel_size", &k) || cl1_op_attr(call, "stride", &s) ||
      cl1_op_attr(call, "padding", &p) || cl1_op_attr(call, "dilation", &dil) ||
      cl1_op_attr(call, "ceil_mode", &ceil_mode))
    return 1;
  cl1_pool_desc d = {.nsp = NSP, .planes = x->shape[0] * x->shape[1],
                     .ceil_mode = ceil_mode != 0, .count_include_pad = cip != 0};
  if (y->shape[0] != x->shape[0] || y->shape[1] != x->shape[1]) return 1;
  for (int i = 0; i < NSP; i++) {
    d.in[i] = x->shape[2 + i], d.k[i] = (int64_t)k, d.stride[i] = (int64_t)s;
    d.pad[i] = (int64_t)p, d.dil[i] = (int64_t)dil;
    d.out[i] = cl1_pool_out_len(d.in[i], d.k[i], d.stride[i], d.pad[i], d.dil[i], d.ceil_mode);
    if (d.out[i] < 1 || y->shape[2 + i] != d.out[i]) return 1;
  }
  return cl1_op_pool(call->stream, CL1_POOL_MAX, (const float *)x->data, (float *)y->data, &d);
}
