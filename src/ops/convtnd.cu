/* convtnd.cu — CUDA cl1_op_convtnd as PyTorch runs nn.ConvTranspose on cuDNN: the data gradient
 * of the matching convolution, cudnnConvolutionBackwardData with Nd descriptors (x plays dy, y
 * plays dx; the weight (C_in, C_out/groups, k...) is the forward filter as it is). Algorithm from
 * cudnnGetConvolutionBackwardDataAlgorithm_v7 (cudnn.benchmark = False), the first that reports
 * success, with its math type (CUDNN_DEFAULT_MATH requested: TF32 allowed, as PyTorch allows it
 * for convolutions). 1-d is run as 2-d with a unit height, as PyTorch does. The bias is a
 * separate add. Plans are cached per shape; tensors past INT_MAX elements are split along the
 * batch. Before that legacy path, conv_graph.cu's graph-API plan is tried (PyTorch's v8 path,
 * a fraction of the legacy call's host cost). */
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include "cudal1/ops.h"
#include "conv_graph.cuh"

namespace {
const int kMaxDims = CL1_CONVT_MAX_ND + 2;  // tensor dims incl. N and C

struct plan {
  cl1_convt_desc key;
  int64_t nb;  // batch size of one cuDNN call
  int sp;      // spatial dims as given to cuDNN (>= 2)
  int in[CL1_CONVT_MAX_ND], out[CL1_CONVT_MAX_ND];
  cudnnTensorDescriptor_t xd, yd;
  cudnnFilterDescriptor_t wd;
  cudnnConvolutionDescriptor_t cd;
  cudnnConvolutionBwdDataAlgo_t algo;
  size_t ws_bytes;
};
const int kPlans = 512;  // whole networks (DenseNet-201) use ~100 distinct shapes; PyTorch caches without limit
plan g_plans[kPlans];
int g_nplans, g_next;
std::mutex g_mu;

void plan_free(plan &p) {
  if (p.xd) cudnnDestroyTensorDescriptor(p.xd);
  if (p.yd) cudnnDestroyTensorDescriptor(p.yd);
  if (p.wd) cudnnDestroyFilterDescriptor(p.wd);
  if (p.cd) cudnnDestroyConvolutionDescriptor(p.cd);
  memset(&p, 0, sizeof p);
}

// A contiguous NC... float tensor descriptor of `nb` samples.
int set_tensor(cudnnTensorDescriptor_t t, int64_t nb, int64_t c, int sp, const int *size) {
  int dims[kMaxDims], strides[kMaxDims];
  dims[0] = (int)nb, dims[1] = (int)c;
  for (int i = 0; i < sp; i++) dims[2 + i] = size[i];
  strides[sp + 1] = 1;
  for (int i = sp; i >= 0; i--) strides[i] = strides[i + 1] * dims[i + 1];
  CL1_CUDNN_TRY(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, sp + 2, dims, strides));
  return 0;
}

/* The matching forward conv in the graph API's terms (conv_graph.cuh): its input is our output
 * (N, C_out, out...), its filter our weight (C_in, C_out/groups, k...), its output our input.
 * 1 when a tensor exceeds INT_MAX elements (the legacy path splits the batch). */
int graph_geom(const cl1_convt_desc *d, cl1_cg_geom *c) {
  memset(c, 0, sizeof *c);
  int off = d->nd == 1 ? 1 : 0;
  c->bwd_data = 1, c->nsp = d->nd + off, c->no_tf32 = d->no_tf32 != 0;
  c->n = d->n, c->c = d->c_out, c->k = d->c_in, c->groups = d->groups;
  int64_t nx = d->n * d->c_out, ny = d->n * d->c_in;
  for (int i = 0; i < c->nsp; i++) {
    int j = i - off;
    c->in[i] = j >= 0 ? cl1_convt_out(d, j) : 1;
    c->out[i] = j >= 0 ? d->in[j] : 1;
    c->ker[i] = j >= 0 ? d->k[j] : 1;
    c->stride[i] = j >= 0 ? d->stride[j] : 1;
    c->pad[i] = j >= 0 ? d->pad[j] : 0;
    c->dil[i] = j >= 0 ? d->dil[j] : 1;
    nx *= c->in[i], ny *= c->out[i];
  }
  return nx > INT_MAX || ny > INT_MAX;
}

int plan_make(cudnnHandle_t h, const cl1_convt_desc *d, plan &p) {
  memset(&p, 0, sizeof p);
  p.key = *d;
  int off = d->nd == 1 ? 1 : 0;  // 1-d gets a leading unit spatial dim
  p.sp = d->nd + off;
  int k[CL1_CONVT_MAX_ND], pad[CL1_CONVT_MAX_ND], str[CL1_CONVT_MAX_ND], dil[CL1_CONVT_MAX_ND];
  int64_t per_in = d->c_in, per_out = d->c_out, wn = d->c_in * (d->c_out / d->groups);
  for (int i = 0; i < p.sp; i++) {
    int j = i - off;
    int64_t o = j >= 0 ? cl1_convt_out(d, j) : 1;
    if (o > INT_MAX || (j >= 0 && (d->in[j] > INT_MAX || d->k[j] > INT_MAX))) return 1;
    p.in[i] = j >= 0 ? (int)d->in[j] : 1;
    p.out[i] = (int)o;
    k[i] = j >= 0 ? (int)d->k[j] : 1;
    pad[i] = j >= 0 ? (int)d->pad[j] : 0;
    str[i] = j >= 0 ? (int)d->stride[j] : 1;
    dil[i] = j >= 0 ? (int)d->dil[j] : 1;
    per_in *= p.in[i], per_out *= p.out[i], wn *= k[i];
  }
  int64_t per = per_in > per_out ? per_in : per_out;
  if (per > INT_MAX || wn > INT_MAX) return 1;
  p.nb = d->n;
  if (d->n * per > INT_MAX) {  // split the batch: chunks of about 2^28 elements
    p.nb = (1LL << 28) / per;
    if (p.nb < 1) p.nb = 1;
  }
  CL1_CUDNN_TRY(cudnnCreateTensorDescriptor(&p.xd));
  CL1_CUDNN_TRY(cudnnCreateTensorDescriptor(&p.yd));
  CL1_CUDNN_TRY(cudnnCreateFilterDescriptor(&p.wd));
  CL1_CUDNN_TRY(cudnnCreateConvolutionDescriptor(&p.cd));
  if (set_tensor(p.xd, p.nb, d->c_in, p.sp, p.in)) return 1;
  if (set_tensor(p.yd, p.nb, d->c_out, p.sp, p.out)) return 1;
  int wdims[kMaxDims] = {(int)d->c_in, (int)(d->c_out / d->groups)};
  for (int i = 0; i < p.sp; i++) wdims[2 + i] = k[i];
  CL1_CUDNN_TRY(cudnnSetFilterNdDescriptor(p.wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, p.sp + 2,
                                           wdims));
  CL1_CUDNN_TRY(cudnnSetConvolutionNdDescriptor(p.cd, p.sp, pad, str, dil,
                                                CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  CL1_CUDNN_TRY(cudnnSetConvolutionGroupCount(p.cd, (int)d->groups));
  CL1_CUDNN_TRY(cudnnSetConvolutionMathType(p.cd, d->no_tf32 ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH));
  // The forward conv of y must give back x's shape (output_padding is the slack it floors away).
  int fwd[kMaxDims];
  CL1_CUDNN_TRY(cudnnGetConvolutionNdForwardOutputDim(p.cd, p.yd, p.wd, p.sp + 2, fwd));
  bool ok = fwd[0] == p.nb && fwd[1] == d->c_in;
  for (int i = 0; i < p.sp; i++) ok = ok && fwd[2 + i] == p.in[i];
  if (!ok) {
    fprintf(stderr, "cl1 ops: convtnd: cuDNN forward shape of the output != input shape\n");
    return 1;
  }
  cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  int got = 0;
  CL1_CUDNN_TRY(cudnnGetConvolutionBackwardDataAlgorithm_v7(
      h, p.wd, p.xd, p.cd, p.yd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got, perf));
  int pick = -1;
  for (int i = 0; i < got && pick < 0; i++)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && (!d->no_tf32 || perf[i].mathType == CUDNN_FMA_MATH))
      pick = i;
  if (pick < 0) {
    fprintf(stderr, "cl1 ops: convtnd: cuDNN has no backward-data algorithm for this shape\n");
    return 1;
  }
  p.algo = perf[pick].algo;
  CL1_CUDNN_TRY(cudnnSetConvolutionMathType(p.cd, perf[pick].mathType));
  CL1_CUDNN_TRY(cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.wd, p.xd, p.cd, p.yd, p.algo,
                                                             &p.ws_bytes));
  return 0;
}

// The plan for d (cached; the oldest is replaced when the cache is full).
int plan_get(cudnnHandle_t h, const cl1_convt_desc *d, plan **out) {
  std::lock_guard<std::mutex> lk(g_mu);
  for (int i = 0; i < g_nplans; i++)
    if (!memcmp(&g_plans[i].key, d, sizeof *d)) {
      *out = &g_plans[i];
      return 0;
    }
  int slot = g_nplans < kPlans ? g_nplans++ : (g_next++ % kPlans);
  plan_free(g_plans[slot]);
  if (plan_make(h, d, g_plans[slot])) {
    plan_free(g_plans[slot]);
    if (slot == g_nplans - 1) g_nplans--;
    return 1;
  }
  *out = &g_plans[slot];
  return 0;
}
}  // namespace

extern "C" int cl1_op_convtnd(void *stream, const float *x, const float *w, const float *bias,
                              float *y, const cl1_convt_desc *d) {
  if (cl1_convt_check(d)) return 1;
  if (d->n == 0) return 0;
  if (!x || !w || !y) return 1;
  // the cache key compares bytes: give unused dims a fixed value
  cl1_convt_desc key;
  memset(&key, 0, sizeof key);
  key.nd = d->nd, key.n = d->n, key.c_in = d->c_in, key.c_out = d->c_out, key.groups = d->groups;
  key.no_tf32 = d->no_tf32 != 0;
  for (int i = 0; i < d->nd; i++) {
    key.in[i] = d->in[i], key.k[i] = d->k[i], key.stride[i] = d->stride[i];
    key.pad[i] = d->pad[i], key.out_pad[i] = d->out_pad[i], key.dil[i] = d->dil[i];
  }
  cudaStream_t st = (cudaStream_t)stream;
  cudnnHandle_t h;
  if (cl1_ops_cudnn(st, &h)) return 1;
  /* first the graph API with a cached plan (conv_graph.cu, as PyTorch's v8 path), unless a
     tensor needs the legacy path's batch split or CUDAL1_CONV_LEGACY=1 */
  static const bool legacy = getenv("CUDAL1_CONV_LEGACY") && !strcmp(getenv("CUDAL1_CONV_LEGACY"), "1");
  cl1_cg_geom cg;
  if (!legacy && !graph_geom(d, &cg)) {
    int g = cl1_conv_graph_run(h, &cg, y, w, x);  // the forward conv's x is our y
    if (g < 0) return 1;
    if (g > 0) {
      int64_t sp = 1;
      for (int i = 0; i < d->nd; i++) sp *= cl1_convt_out(d, i);
      return bias ? cl1_op_bias_add(stream, y, bias, y, d->n, d->c_out, sp) : 0;
    }
  }
  plan *p;
  if (plan_get(h, &key, &p)) return 1;
  void *ws = nullptr;
  if (cl1_ops_scratch(CL1_SCRATCH_CUDNN, p->ws_bytes, &ws)) return 1;
  const float one = 1.f, zero = 0.f;
  int64_t in_per = d->c_in, out_per = d->c_out;
  for (int i = 0; i < p->sp; i++) in_per *= p->in[i], out_per *= p->out[i];
  for (int64_t n0 = 0; n0 < d->n; n0 += p->nb) {
    int64_t nb = d->n - n0 < p->nb ? d->n - n0 : p->nb;
    cudnnTensorDescriptor_t xd = p->xd, yd = p->yd;
    bool tail = nb != p->nb;  // the last, shorter batch chunk gets its own descriptors
    if (tail) {
      xd = yd = nullptr;
      int e = cudnnCreateTensorDescriptor(&xd) != CUDNN_STATUS_SUCCESS ||
              cudnnCreateTensorDescriptor(&yd) != CUDNN_STATUS_SUCCESS ||
              set_tensor(xd, nb, d->c_in, p->sp, p->in) ||
              set_tensor(yd, nb, d->c_out, p->sp, p->out);
      if (e) {
        if (xd) cudnnDestroyTensorDescriptor(xd);
        if (yd) cudnnDestroyTensorDescriptor(yd);
        return 1;
      }
    }
    cudnnStatus_t s = cudnnConvolutionBackwardData(h, &one, p->wd, w, xd, x + n0 * in_per, p->cd,
                                                   p->algo, ws, p->ws_bytes, &zero, yd,
                                                   y + n0 * out_per);
    if (tail) cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(yd);
    CL1_CUDNN_TRY(s);
  }
  if (bias) return cl1_op_bias_add(stream, y, bias, y, d->n, d->c_out, out_per / d->c_out);
  return 0;
}
