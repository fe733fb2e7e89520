/* reference.c — level3/19_MobileNetV1 (alpha = 1), PyTorch eager order, one op call per
 * PyTorch op: conv_bn then 13 depthwise-separable blocks from a table, AvgPool2d, fc.
 * BatchNorm in training mode (batch statistics), as KernelBench runs the module. */
#include <stdlib.h>
#include <string.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

/* The network as one walk over its layers, made twice: the sizing pass (run == 0, in
 * cl1_setup, where the input carries its shape only) checks every shape and finds the largest
 * activation; the run pass (cl1_forward) makes the op calls. Activations ping-pong between two
 * buffers; the last layer writes the output. */
typedef struct {
  const cl1_call *call;
  int run, pi, rc;       /* pass; next param (state_dict order); first error */
  int64_t n, c, h, w;    /* current activation (n, c, h, w); after a linear h = w = 1 */
  float *cur;            /* its data: the input (read only), a buffer or the output */
  int at_input, at_output;
  float *buf[2];
  int64_t most;          /* largest intermediate, in floats */
} net;

static void net_begin(net *t, const cl1_call *call, float *const *buf, int run) {
  memset(t, 0, sizeof *t);
  t->call = call, t->run = run, t->at_input = 1;
  if (buf) t->buf[0] = buf[0], t->buf[1] = buf[1];
  const cl1_tensor *x = &call->inputs[0];
  if (call->n_inputs != 1 || call->n_outputs != 1 || x->ndim != 4 || x->dtype != CL1_F32 ||
      call->outputs[0].dtype != CL1_F32) {
    t->rc = 1;
    return;
  }
  t->n = x->shape[0], t->c = x->shape[1], t->h = x->shape[2], t->w = x->shape[3];
  t->cur = (float *)x->data;
}

/* Where the next layer's (n, c, h, w) result goes: the output for the last layer, else the
 * buffer that does not hold the current activation. */
static float *net_dst(net *t, int64_t c, int64_t h, int64_t w, int last) {
  float *d;
  if (last) {
    d = (float *)t->call->outputs[0].data;
    t->at_output = 1;
  } else {
    int64_t sz = t->n * c * h * w;
    if (sz > t->most) t->most = sz;
    d = t->buf[!t->at_input && t->cur == t->buf[0] ? 1 : 0];
  }
  t->at_input = 0, t->c = c, t->h = h, t->w = w;
  return d;
}

/* The next param if it is f32 with shape (d[0], ..., d[nd-1]); else records an error. */
static const float *net_param(net *t, int nd, int64_t d0, int64_t d1, int64_t d2, int64_t d3) {
  const int64_t d[4] = {d0, d1, d2, d3};
  if (t->rc || t->pi >= t->call->n_params) return t->rc = 1, NULL;
  const cl1_tensor *p = &t->call->params[t->pi++];
  if (p->ndim != nd || p->dtype != CL1_F32) return t->rc = 1, NULL;
  for (int i = 0; i < nd; i++)
    if (p->shape[i] != d[i]) return t->rc = 1, NULL;
  return (const float *)p->data;
}

/* The output is (n, c) after a linear, else (n, c, h, w); every param was used. */
static int net_end(net *t) {
  const cl1_tensor *y = &t->call->outputs[0];
  if (t->rc || !t->at_output || t->pi != t->call->n_params) return 1;
  if (y->ndim == 2) return y->shape[0] != t->n || y->shape[1] != t->c * t->h * t->w;
  return y->ndim != 4 || y->shape[0] != t->n || y->shape[1] != t->c || y->shape[2] != t->h ||
         y->shape[3] != t->w;
}

/* nn.Conv2d(c, k, r, stride, pad, groups=groups, bias=bias): params weight (k, c/groups, r, r)
 * then, with bias, bias (k). */
static void net_conv(net *t, int64_t k, int64_t r, int64_t stride, int64_t pad, int64_t groups,
                     int bias, int last) {
  if (t->rc) return;
  cl1_conv2d_desc d = {t->n, t->c, t->h, t->w, k, r, r, stride, stride, pad, pad, 1, 1, groups};
  if (groups < 1 || t->c % groups || k % groups) return (void)(t->rc = 1);
  int64_t oh = cl1_conv2d_out_h(&d), ow = cl1_conv2d_out_w(&d);
  const float *w = net_param(t, 4, k, t->c / groups, r, r);
  const float *b = bias ? net_param(t, 1, k, 0, 0, 0) : NULL;
  if (t->rc || oh < 1 || ow < 1) return (void)(t->rc = 1);
  const float *x = t->cur;
  float *y = net_dst(t, k, oh, ow, last);
  if (t->run) t->rc = cl1_op_conv2d(t->call->stream, x, w, b, y, &d);
  t->cur = y;
}

/* An activation in place (ReLU(inplace=True) / F.relu on a fresh tensor alike): relu, or
 * ReLU6 as hardtanh(0, 6), which is how PyTorch defines it. */
static void net_act(net *t, int relu6) {
  if (t->rc || t->at_input) return (void)(t->rc = 1);
  int64_t n = t->n * t->c * t->h * t->w;
  if (!t->run) return;
  t->rc = relu6 ? cl1_op_unary(t->call->stream, CL1_UNARY_HARDTANH, t->cur, t->cur, n, 0.0, 6.0)
                : cl1_op_relu(t->call->stream, t->cur, t->cur, n);
}

/* nn.BatchNorm2d(c) in training mode, in place: params weight (c), bias (c). */
static void net_bn(net *t, double eps) {
  const float *w = net_param(t, 1, t->c, 0, 0, 0), *b = net_param(t, 1, t->c, 0, 0, 0);
  if (t->rc || t->at_input) return (void)(t->rc = 1);
  if (t->run)
    t->rc = cl1_op_batchnorm_train(t->call->stream, t->cur, w, b, t->cur, t->n, t->c,
                                   t->h * t->w, eps);
}

/* MaxPool2d / AvgPool2d(kernel, stride, pad), floor mode (AvgPool counts padding, PyTorch's
 * default; the pools here have none). */
static void net_pool(net *t, int kind, int64_t k, int64_t s, int64_t p, int last) {
  if (t->rc) return;
  cl1_pool_desc d;
  memset(&d, 0, sizeof d);
  d.nsp = 2, d.planes = t->n * t->c, d.count_include_pad = 1;
  d.in[0] = t->h, d.in[1] = t->w;
  for (int i = 0; i < 2; i++) {
    d.k[i] = k, d.stride[i] = s, d.pad[i] = p, d.dil[i] = 1;
    d.out[i] = cl1_pool_out_len(d.in[i], k, s, p, 1, 0);
  }
  if (cl1_pool_desc_check(kind, &d)) return (void)(t->rc = 1);
  const float *x = t->cur;
  float *y = net_dst(t, t->c, d.out[0], d.out[1], last);
  if (t->run) t->rc = cl1_op_pool(t->call->stream, kind, x, y, &d);
  t->cur = y;
}

/* nn.Linear(c*h*w, k) on the flattened activation (torch.flatten(x, 1) / x.view(n, -1) of a
 * contiguous tensor is free): params weight (k, c*h*w), bias (k); k < 0 takes k from the
 * weight (num_classes). */
static void net_linear(net *t, int64_t k, int last) {
  if (t->rc || t->pi >= t->call->n_params) return (void)(t->rc = 1);
  if (k < 0) k = t->call->params[t->pi].shape[0];
  int64_t in = t->c * t->h * t->w;
  const float *w = net_param(t, 2, k, in, 0, 0), *b = net_param(t, 1, k, 0, 0, 0);
  if (t->rc) return;
  const float *x = t->cur;
  float *y = net_dst(t, k, 1, 1, last);
  if (t->run) t->rc = cl1_op_linear(t->call->stream, x, w, b, y, t->n, k, in);
  t->cur = y;
}

/* (out channels, stride) of the 13 conv_dw blocks; each block's in channels are the previous
 * block's out channels (alpha = 1) */
static const int64_t blocks[13][2] = {{64, 1},  {128, 2}, {128, 1}, {256, 2}, {256, 1},
                                      {512, 2}, {512, 1}, {512, 1}, {512, 1}, {512, 1},
                                      {512, 1}, {1024, 2}, {1024, 1}};

/* conv_bn(input_channels, 32, 2); conv_dw x13: depthwise 3x3 conv, bn, relu, pointwise 1x1
 * conv, bn, relu; AvgPool2d(avgpool_kernel) to (1024, 1, 1); view(n, -1); fc */
static int walk(net *t) {
  double eps, pool;
  if (cl1_op_attr(t->call, "eps", &eps) || cl1_op_attr(t->call, "avgpool_kernel", &pool))
    return 1;
  net_conv(t, 32, 3, 2, 1, 1, 0, 0), net_bn(t, eps), net_act(t, 0);
  for (int i = 0; i < 13; i++) {
    net_conv(t, t->c, 3, blocks[i][1], 1, t->c, 0, 0), net_bn(t, eps), net_act(t, 0);
    net_conv(t, blocks[i][0], 1, 1, 0, 1, 0, 0), net_bn(t, eps), net_act(t, 0);
  }
  net_pool(t, CL1_POOL_AVG, (int64_t)pool, (int64_t)pool, 0, 0);
  if (t->h != 1 || t->w != 1) return 1; /* fc takes exactly the 1024 pooled channels */
  net_linear(t, -1, 1);
  return net_end(t);
}

typedef struct {
  float *buf[2];
  int64_t most; /* floats in each buffer */
} net_state;

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  net t;
  net_begin(&t, call, NULL, 0);
  if (walk(&t)) return 1;
  net_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  for (int i = 0; i < 2; i++)
    if (!(s->buf[i] = cl1_op_alloc((size_t)(t.most > 0 ? t.most : 1) * sizeof(float)))) {
      cl1_op_free(s->buf[0]);
      return free(s), 1;
    }
  s->most = t.most;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  net_state *s = state;
  if (!s) return;
  cl1_op_free(s->buf[0]), cl1_op_free(s->buf[1]);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  const net_state *s = call->state;
  if (!s) return 1;
  net t;
  net_begin(&t, call, NULL, 0); /* shapes first: nothing runs unless all of them hold */
  if (walk(&t) || t.most > s->most) return 1;
  net_begin(&t, call, s->buf, 1);
  return walk(&t);
}
