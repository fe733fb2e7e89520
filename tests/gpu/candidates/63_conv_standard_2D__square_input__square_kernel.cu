/* 63_conv_standard_2D__square_input__square_kernel.cu — a correct CUDA candidate for level1/63:
 * cuDNN forward convolution planned once in cl1_setup (descriptors, heuristic algorithm with TF32
 * allowed as PyTorch allows it, workspace). Batches past INT_MAX elements run in chunks. */
#include <cudal1/solution.h>
#include <cudnn.h>
#include <climits>

struct st_t {
  cudnnHandle_t h;
  cudnnTensorDescriptor_t xd, yd, xt, yt;  // full chunk and tail chunk
  cudnnFilterDescriptor_t wd;
  cudnnConvolutionDescriptor_t cd;
  cudnnConvolutionFwdAlgo_t algo;
  void *ws;
  size_t ws_bytes;
  long long n, nb, in_per, out_per;
};

static int attr(const cl1_call *c, const char *name, int dflt) {
  for (int i = 0; i < c->n_attrs; i++) {
    const char *a = c->attrs[i].name, *b = name;
    while (*a && *a == *b) a++, b++;
    if (*a == *b) return (int)c->attrs[i].value;
  }
  return dflt;
}

CL1_EXPORT void cl1_teardown(void *state) {
  st_t *s = (st_t *)state;
  if (!s) return;
  if (s->ws) cudaFree(s->ws);
  cudnnDestroyTensorDescriptor(s->xd), cudnnDestroyTensorDescriptor(s->yd);
  cudnnDestroyTensorDescriptor(s->xt), cudnnDestroyTensorDescriptor(s->yt);
  cudnnDestroyFilterDescriptor(s->wd), cudnnDestroyConvolutionDescriptor(s->cd);
  if (s->h) cudnnDestroy(s->h);
  delete s;
}

#define TRY(e) do { if ((e) != CUDNN_STATUS_SUCCESS) { cl1_teardown(s); return 1; } } while (0)

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  st_t *s = new st_t();
  const cl1_tensor *x = &c->inputs[0], *w = &c->params[0], *y = &c->outputs[0];
  int C = (int)x->shape[1], H = (int)x->shape[2], W = (int)x->shape[3];
  int K = (int)w->shape[0], R = (int)w->shape[2], S = (int)w->shape[3];
  int OH = (int)y->shape[2], OW = (int)y->shape[3];
  int stride = attr(c, "stride", 1), pad = attr(c, "padding", 0), dil = attr(c, "dilation", 1),
      groups = attr(c, "groups", 1);
  s->n = x->shape[0];
  s->in_per = (long long)C * H * W, s->out_per = (long long)K * OH * OW;
  long long per = s->in_per > s->out_per ? s->in_per : s->out_per;
  s->nb = s->n * per <= INT_MAX ? s->n : ((1LL << 28) / per > 0 ? (1LL << 28) / per : 1);
  long long tail = s->n % s->nb ? s->n % s->nb : s->nb;
  TRY(cudnnCreate(&s->h));
  TRY(cudnnCreateTensorDescriptor(&s->xd));
  TRY(cudnnCreateTensorDescriptor(&s->yd));
  TRY(cudnnCreateTensorDescriptor(&s->xt));
  TRY(cudnnCreateTensorDescriptor(&s->yt));
  TRY(cudnnCreateFilterDescriptor(&s->wd));
  TRY(cudnnCreateConvolutionDescriptor(&s->cd));
  TRY(cudnnSetTensor4dDescriptor(s->xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)s->nb, C, H, W));
  TRY(cudnnSetTensor4dDescriptor(s->yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)s->nb, K, OH, OW));
  TRY(cudnnSetTensor4dDescriptor(s->xt, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)tail, C, H, W));
  TRY(cudnnSetTensor4dDescriptor(s->yt, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)tail, K, OH, OW));
  TRY(cudnnSetFilter4dDescriptor(s->wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C / groups, R, S));
  TRY(cudnnSetConvolution2dDescriptor(s->cd, pad, pad, stride, stride, dil, dil,
                                      CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  TRY(cudnnSetConvolutionGroupCount(s->cd, groups));
  TRY(cudnnSetConvolutionMathType(s->cd, CUDNN_DEFAULT_MATH));
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int got = 0, pick = -1;
  TRY(cudnnGetConvolutionForwardAlgorithm_v7(s->h, s->xd, s->wd, s->cd, s->yd,
                                             CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, perf));
  for (int i = 0; i < got && pick < 0; i++)
    if (perf[i].status == CUDNN_STATUS_SUCCESS) pick = i;
  if (pick < 0) { cl1_teardown(s); return 1; }
  s->algo = perf[pick].algo;
  TRY(cudnnSetConvolutionMathType(s->cd, perf[pick].mathType));
  TRY(cudnnGetConvolutionForwardWorkspaceSize(s->h, s->xd, s->wd, s->cd, s->yd, s->algo, &s->ws_bytes));
  if (s->ws_bytes && cudaMalloc(&s->ws, s->ws_bytes) != cudaSuccess) { s->ws = nullptr; cl1_teardown(s); return 1; }
  *state = s;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  st_t *s = (st_t *)c->state;
  if (!s || c->inputs[0].shape[0] != s->n) return 1;
  if (cudnnSetStream(s->h, (cudaStream_t)c->stream) != CUDNN_STATUS_SUCCESS) return 1;
  const float *x = (const float *)c->inputs[0].data, *w = (const float *)c->params[0].data;
  float *y = (float *)c->outputs[0].data;
  const float one = 1.f, zero = 0.f;
  for (long long n0 = 0; n0 < s->n; n0 += s->nb) {
    bool full = s->n - n0 >= s->nb;
    if (cudnnConvolutionForward(s->h, &one, full ? s->xd : s->xt, x + n0 * s->in_per, s->wd, w,
                                s->cd, s->algo, s->ws, s->ws_bytes, &zero, full ? s->yd : s->yt,
                                y + n0 * s->out_per) != CUDNN_STATUS_SUCCESS)
      return 1;
  }
  return 0;
}
