/* reference.c — level3/20_MobileNetV2, PyTorch eager order, one op call per PyTorch op: the
 * stem, 17 inverted-residual blocks (no residual add, as in KernelBench) from the settings
 * table, the 1x1 head, adaptive average pool, linear. BatchNorm in training mode. */
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

/* AdaptiveAvgPool2d((1, 1)): the mean over each (h, w) plane. */
static void net_mean_hw(net *t, int last) {
  if (t->rc) return;
  const float *x = t->cur;
  int64_t planes = t->n * t->c, hw = t->h * t->w;
  float *y = net_dst(t, t->c, 1, 1, last);
  if (t->run) t->rc = cl1_op_reduce(t->call->stream, CL1_REDUCE_MEAN, x, y, planes, hw, 1);
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

/* inverted-residual settings: expansion t, out channels c, repeats n, first stride s */
static const int64_t setting[7][4] = {{1, 16, 1, 1},  {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                      {6, 96, 3, 1},  {6, 160, 3, 2}, {6, 320, 1, 1}};

/* conv 3x3/2 + bn + relu6; per block: [1x1 expand conv + bn + relu6 when t != 1], depthwise
 * 3x3 conv + bn + relu6, 1x1 project conv + bn (KernelBench never adds the residual); 1x1 conv
 * to 1280 + bn + relu6; adaptive average pool to 1x1; view(n, -1); dropout(0) (a no-op); linear */
static int walk(net *t) {
  double eps;
  if (cl1_op_attr(t->call, "eps", &eps)) return 1;
  net_conv(t, 32, 3, 2, 1, 1, 0, 0), net_bn(t, eps), net_act(t, 1);
  for (int g = 0; g < 7; g++)
    for (int64_t i = 0; i < setting[g][2]; i++) {
      int64_t hid = t->c * setting[g][0], stride = i == 0 ? setting[g][3] : 1;
      if (setting[g][0] != 1) net_conv(t, hid, 1, 1, 0, 1, 0, 0), net_bn(t, eps), net_act(t, 1);
      net_conv(t, hid, 3, stride, 1, hid, 0, 0), net_bn(t, eps), net_act(t, 1);
      net_conv(t, setting[g][1], 1, 1, 0, 1, 0, 0), net_bn(t, eps);
    }
  net_conv(t, 1280, 1, 1, 0, 1, 0, 0), net_bn(t, eps), net_act(t, 1);
  net_mean_hw(t, 0);
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
