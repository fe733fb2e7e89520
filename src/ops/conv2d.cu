/* conv2d.cu — CUDA cl1_op_conv2d through cuDNN's legacy API, as PyTorch with
 * cudnn.benchmark = False: cudnnGetConvolutionForwardAlgorithm_v7 heuristics, the first algorithm
 * that reports success, its math type (CUDNN_DEFAULT_MATH requested, so TF32 is allowed as
 * PyTorch allows it for convolutions), then cudnnConvolutionForward; the bias is a separate add.
 * Descriptors and the chosen algorithm are cached per shape; the workspace is cached and grown.
 * Tensors past INT_MAX elements are split along the batch, as PyTorch does for cuDNN. */
#include <climits>
#include <cstring>
#include <mutex>
#include "cudal1/ops.h"
#include "cuda_common.cuh"

namespace {
struct plan {
  cl1_conv2d_desc key;
  int64_t nb;  // batch size of one cuDNN call
  cudnnTensorDescriptor_t xd, yd;
  cudnnFilterDescriptor_t wd;
  cudnnConvolutionDescriptor_t cd;
  cudnnConvolutionFwdAlgo_t algo;
  size_t ws_bytes;
};
const int kPlans = 512;  // whole networks (DenseNet-201) use ~100 distinct shapes; PyTorch caches without limit
plan g_plans[kPlans];
int g_nplans, g_next;
std::mutex g_mu;

bool same(const cl1_conv2d_desc &a, const cl1_conv2d_desc &b) {
  return !memcmp(&a, &b, sizeof a);
}

void plan_free(plan &p) {
  cudnnDestroyTensorDescriptor(p.xd), cudnnDestroyTensorDescriptor(p.yd);
  cudnnDestroyFilterDescriptor(p.wd), cudnnDestroyConvolutionDescriptor(p.cd);
  memset(&p, 0, sizeof p);
}

int plan_make(cudnnHandle_t h, const cl1_conv2d_desc *d, int64_t oh, int64_t ow, plan &p) {
  memset(&p, 0, sizeof p);
  p.key = *d;
  int64_t per_in = d->c * d->h * d->w, per_out = d->k * oh * ow;
  int64_t per = per_in > per_out ? per_in : per_out;
  if (per > INT_MAX || d->k * (d->c / d->groups) * d->r * d->s > INT_MAX) return 1;
  p.nb = d->n;
  if (d->n * per > INT_MAX) {  // split the batch: chunks of about 2^28 elements
    p.nb = (1LL << 28) / per;
    if (p.nb < 1) p.nb = 1;
  }
  CL1_CUDNN_TRY(cudnnCreateTensorDescriptor(&p.xd));
  CL1_CUDNN_TRY(cudnnCreateTensorDescriptor(&p.yd));
  CL1_CUDNN_TRY(cudnnCreateFilterDescriptor(&p.wd));
  CL1_CUDNN_TRY(cudnnCreateConvolutionDescriptor(&p.cd));
  CL1_CUDNN_TRY(cudnnSetTensor4dDescriptor(p.xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)p.nb,
                                           (int)d->c, (int)d->h, (int)d->w));
  CL1_CUDNN_TRY(cudnnSetFilter4dDescriptor(p.wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, (int)d->k,
                                           (int)(d->c / d->groups), (int)d->r, (int)d->s));
  CL1_CUDNN_TRY(cudnnSetConvolution2dDescriptor(p.cd, (int)d->pad_h, (int)d->pad_w,
                                                (int)d->stride_h, (int)d->stride_w,
                                                (int)d->dil_h, (int)d->dil_w,
                                                CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  CL1_CUDNN_TRY(cudnnSetConvolutionGroupCount(p.cd, (int)d->groups));
  CL1_CUDNN_TRY(cudnnSetConvolutionMathType(p.cd, CUDNN_DEFAULT_MATH));
  int n, c, hh, ww;
  CL1_CUDNN_TRY(cudnnGetConvolution2dForwardOutputDim(p.cd, p.xd, p.wd, &n, &c, &hh, &ww));
  if (n != p.nb || c != d->k || hh != oh || ww != ow) {
    fprintf(stderr, "cl1 ops: conv2d: cuDNN output (%d,%d,%d,%d) != expected\n", n, c, hh, ww);
    return 1;
  }
  CL1_CUDNN_TRY(cudnnSetTensor4dDescriptor(p.yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, hh,
                                           ww));
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int got = 0;
  CL1_CUDNN_TRY(cudnnGetConvolutionForwardAlgorithm_v7(h, p.xd, p.wd, p.cd, p.yd,
                                                       CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got,
                                                       perf));
  int pick = -1;
  for (int i = 0; i < got && pick < 0; i++)
    if (perf[i].status == CUDNN_STATUS_SUCCESS) pick = i;
  if (pick < 0) {
    fprintf(stderr, "cl1 ops: conv2d: cuDNN has no forward algorithm for this shape\n");
    return 1;
  }
  p.algo = perf[pick].algo;
  CL1_CUDNN_TRY(cudnnSetConvolutionMathType(p.cd, perf[pick].mathType));
  CL1_CUDNN_TRY(cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd, p.algo,
                                                        &p.ws_bytes));
  return 0;
}

// The plan for d (cached; the oldest is replaced when the cache is full).
int plan_get(cudnnHandle_t h, const cl1_conv2d_desc *d, int64_t oh, int64_t ow, plan **out) {
  std::lock_guard<std::mutex> lk(g_mu);
  for (int i = 0; i < g_nplans; i++)
    if (same(g_plans[i].key, *d)) {
      *out = &g_plans[i];
      return 0;
    }
  int slot = g_nplans < kPlans ? g_nplans++ : (g_next++ % kPlans);
  if (g_plans[slot].xd) plan_free(g_plans[slot]);
  if (plan_make(h, d, oh, ow, g_plans[slot])) {
    plan_free(g_plans[slot]);
    if (slot == g_nplans - 1) g_nplans--;
    return 1;
  }
  *out = &g_plans[slot];
  return 0;
}
}  // namespace

extern "C" int cl1_op_conv2d(void *stream, const float *x, const float *w, const float *bias,
                             float *y, const cl1_conv2d_desc *d) {
  if (!d || d->n < 0 || d->c < 1 || d->h < 1 || d->w < 1 || d->k < 1 || d->r < 1 || d->s < 1 ||
      d->stride_h < 1 || d->stride_w < 1 || d->pad_h < 0 || d->pad_w < 0 || d->dil_h < 1 ||
      d->dil_w < 1 || d->groups < 1 || d->c % d->groups || d->k % d->groups)
    return 1;
  int64_t oh = cl1_conv2d_out_h(d), ow = cl1_conv2d_out_w(d);
  if (oh < 1 || ow < 1) return 1;
  if (d->n == 0) return 0;
  if (!x || !w || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  cudnnHandle_t h;
  if (cl1_ops_cudnn(st, &h)) return 1;
  plan *p;
  if (plan_get(h, d, oh, ow, &p)) return 1;
  void *ws = nullptr;
  if (cl1_ops_scratch(CL1_SCRATCH_CUDNN, p->ws_bytes, &ws)) return 1;
  const float one = 1.f, zero = 0.f;
  int64_t in_per = d->c * d->h * d->w, out_per = d->k * oh * ow;
  for (int64_t n0 = 0; n0 < d->n; n0 += p->nb) {
    int64_t nb = d->n - n0 < p->nb ? d->n - n0 : p->nb;
    cudnnTensorDescriptor_t xd = p->xd, yd = p->yd;
    bool tail = nb != p->nb;  // the last, shorter batch chunk gets its own descriptors
    if (tail) {
      CL1_CUDNN_TRY(cudnnCreateTensorDescriptor(&xd));
      CL1_CUDNN_TRY(cudnnCreateTensorDescriptor(&yd));
      CL1_CUDNN_TRY(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)nb,
                                               (int)d->c, (int)d->h, (int)d->w));
      CL1_CUDNN_TRY(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)nb,
                                               (int)d->k, (int)oh, (int)ow));
    }
    cudnnStatus_t s = cudnnConvolutionForward(h, &one, xd, x + n0 * in_per, p->wd, w, p->cd,
                                              p->algo, ws, p->ws_bytes, &zero, yd,
                                              y + n0 * out_per);
    if (tail) cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(yd);
    CL1_CUDNN_TRY(s);
  }
  if (bias) return cl1_op_bias_add(stream, y, bias, y, d->n, d->k, oh * ow);
  return 0;
}
