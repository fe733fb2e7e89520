/* convnd.cu — CUDA cl1_op_convnd through cuDNN's legacy Nd API, as PyTorch with
 * cudnn.benchmark = False: cudnnGetConvolutionForwardAlgorithm_v7 heuristics, the first algorithm
 * that reports success, its math type (CUDNN_DEFAULT_MATH requested, so TF32 is allowed as
 * PyTorch allows it for convolutions), then cudnnConvolutionForward; the bias is a separate add.
 * 1-d convolutions run as 2-d with a leading size-1 spatial dim, as PyTorch does. Descriptors and
 * the chosen algorithm are cached per shape; the workspace is the shared cached cuDNN scratch.
 * Tensors past INT_MAX elements are split along the batch, as PyTorch does for cuDNN.
 * Depthwise 1-d/2-d convs go to conv_dw.cu's direct kernel instead, as PyTorch's do; the rest
 * first try conv_graph.cu (cuDNN's graph API, cached execution plans, PyTorch's v8 path), whose
 * per-call cost is a fraction of cudnnConvolutionForward's; this legacy path is the fallback. */
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include "cudal1/ops.h"
#include "conv_dw.cuh"
#include "conv_graph.cuh"

namespace {
struct plan {
  cl1_convnd_desc key;  // normalised: unused entries zero
  int64_t nb;           // batch size of one cuDNN call
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

// cuDNN's view: at least 2 spatial dims (a leading size-1 one for 1-d).
struct geom {
  int nsp;
  int in[CL1_CONVND_MAX], ker[CL1_CONVND_MAX], out[CL1_CONVND_MAX];
  int st[CL1_CONVND_MAX], pad[CL1_CONVND_MAX], dil[CL1_CONVND_MAX];
};

void geom_of(const cl1_convnd_desc *d, geom *g) {
  int off = d->nd < 2 ? 2 - d->nd : 0;
  g->nsp = d->nd + off;
  for (int i = 0; i < g->nsp; i++) {
    int j = i - off;
    g->in[i] = j < 0 ? 1 : (int)d->in[j];
    g->ker[i] = j < 0 ? 1 : (int)d->ker[j];
    g->out[i] = j < 0 ? 1 : (int)cl1_convnd_out(d, j);
    g->st[i] = j < 0 ? 1 : (int)d->stride[j];
    g->pad[i] = j < 0 ? 0 : (int)d->pad[j];
    g->dil[i] = j < 0 ? 1 : (int)d->dil[j];
  }
}

// A fully packed (N, C, *sp) tensor descriptor.
int set_tensor(cudnnTensorDescriptor_t t, int n, int c, int nsp, const int *sp) {
  int dims[2 + CL1_CONVND_MAX], strides[2 + CL1_CONVND_MAX], nd = 2 + nsp;
  dims[0] = n, dims[1] = c;
  for (int i = 0; i < nsp; i++) dims[2 + i] = sp[i];
  strides[nd - 1] = 1;
  for (int i = nd - 2; i >= 0; i--) strides[i] = strides[i + 1] * dims[i + 1];
  CL1_CUDNN_TRY(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, nd, dims, strides));
  return 0;
}

// The graph API's view (conv_graph.cuh), 1-d as 2-d as geom_of.
void graph_geom(const cl1_convnd_desc *d, cl1_cg_geom *c) {
  memset(c, 0, sizeof *c);
  geom g;
  geom_of(d, &g);
  c->bwd_data = 0, c->nsp = g.nsp, c->no_tf32 = d->no_tf32 != 0;
  c->n = d->n, c->c = d->c, c->k = d->k, c->groups = d->groups;
  for (int i = 0; i < g.nsp; i++) {
    c->in[i] = g.in[i], c->ker[i] = g.ker[i], c->out[i] = g.out[i];
    c->stride[i] = g.st[i], c->pad[i] = g.pad[i], c->dil[i] = g.dil[i];
  }
}

void key_of(const cl1_convnd_desc *d, cl1_convnd_desc *k) {
  memset(k, 0, sizeof *k);
  k->nd = d->nd, k->n = d->n, k->c = d->c, k->k = d->k, k->groups = d->groups;
  k->no_tf32 = d->no_tf32 != 0;
  for (int i = 0; i < d->nd; i++) {
    k->in[i] = d->in[i], k->ker[i] = d->ker[i], k->stride[i] = d->stride[i];
    k->pad[i] = d->pad[i], k->dil[i] = d->dil[i];
  }
}

void plan_free(plan &p) {
  if (p.xd) cudnnDestroyTensorDescriptor(p.xd);
  if (p.yd) cudnnDestroyTensorDescriptor(p.yd);
  if (p.wd) cudnnDestroyFilterDescriptor(p.wd);
  if (p.cd) cudnnDestroyConvolutionDescriptor(p.cd);
  memset(&p, 0, sizeof p);
}

int plan_make(cudnnHandle_t h, const cl1_convnd_desc *key, plan &p) {
  memset(&p, 0, sizeof p);
  p.key = *key;
  const cl1_convnd_desc *d = key;
  int64_t per_in = d->c, per_out = d->k, wnum = d->k * (d->c / d->groups);
  for (int i = 0; i < d->nd; i++)
    per_in *= d->in[i], per_out *= cl1_convnd_out(d, i), wnum *= d->ker[i];
  int64_t per = per_in > per_out ? per_in : per_out;
  if (per > INT_MAX || wnum > INT_MAX) {
    fprintf(stderr, "cl1 ops: convnd: one sample or the filter exceeds INT_MAX elements\n");
    return 1;
  }
  p.nb = d->n;
  if (d->n * per > INT_MAX) {  // split the batch: chunks of about 2^28 elements
    p.nb = (1LL << 28) / per;
    if (p.nb < 1) p.nb = 1;
  }
  geom g;
  geom_of(d, &g);
  CL1_CUDNN_TRY(cudnnCreateTensorDescriptor(&p.xd));
  CL1_CUDNN_TRY(cudnnCreateTensorDescriptor(&p.yd));
  CL1_CUDNN_TRY(cudnnCreateFilterDescriptor(&p.wd));
  CL1_CUDNN_TRY(cudnnCreateConvolutionDescriptor(&p.cd));
  if (set_tensor(p.xd, (int)p.nb, (int)d->c, g.nsp, g.in)) return 1;
  int fdims[2 + CL1_CONVND_MAX];
  fdims[0] = (int)d->k, fdims[1] = (int)(d->c / d->groups);
  for (int i = 0; i < g.nsp; i++) fdims[2 + i] = g.ker[i];
  CL1_CUDNN_TRY(cudnnSetFilterNdDescriptor(p.wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2 + g.nsp,
                                           fdims));
  CL1_CUDNN_TRY(cudnnSetConvolutionNdDescriptor(p.cd, g.nsp, g.pad, g.st, g.dil,
                                                CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  CL1_CUDNN_TRY(cudnnSetConvolutionGroupCount(p.cd, (int)d->groups));
  const cudnnMathType_t math = d->no_tf32 ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
  CL1_CUDNN_TRY(cudnnSetConvolutionMathType(p.cd, math));
  int odims[2 + CL1_CONVND_MAX];
  CL1_CUDNN_TRY(cudnnGetConvolutionNdForwardOutputDim(p.cd, p.xd, p.wd, 2 + g.nsp, odims));
  bool ok = odims[0] == p.nb && odims[1] == d->k;
  for (int i = 0; i < g.nsp; i++) ok = ok && odims[2 + i] == g.out[i];
  if (!ok) {
    fprintf(stderr, "cl1 ops: convnd: cuDNN output shape differs from PyTorch's formula\n");
    return 1;
  }
  if (set_tensor(p.yd, (int)p.nb, (int)d->k, g.nsp, g.out)) return 1;
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int got = 0;
  CL1_CUDNN_TRY(cudnnGetConvolutionForwardAlgorithm_v7(h, p.xd, p.wd, p.cd, p.yd,
                                                       CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got,
                                                       perf));
  int pick = -1;
  for (int i = 0; i < got && pick < 0; i++)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && (!d->no_tf32 || perf[i].mathType == CUDNN_FMA_MATH))
      pick = i;
  if (pick < 0) {
    fprintf(stderr, "cl1 ops: convnd: cuDNN has no forward algorithm for this shape\n");
    return 1;
  }
  p.algo = perf[pick].algo;
  CL1_CUDNN_TRY(cudnnSetConvolutionMathType(p.cd, perf[pick].mathType));
  CL1_CUDNN_TRY(cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd, p.algo,
                                                        &p.ws_bytes));
  return 0;
}

// The plan for key (cached; the oldest is replaced when the cache is full).
int plan_get(cudnnHandle_t h, const cl1_convnd_desc *key, plan **out) {
  std::lock_guard<std::mutex> lk(g_mu);
  for (int i = 0; i < g_nplans; i++)
    if (!memcmp(&g_plans[i].key, key, sizeof *key)) {
      *out = &g_plans[i];
      return 0;
    }
  int slot = g_nplans < kPlans ? g_nplans++ : (g_next++ % kPlans);
  if (g_plans[slot].xd) plan_free(g_plans[slot]);
  if (plan_make(h, key, g_plans[slot])) {
    plan_free(g_plans[slot]);
    if (slot == g_nplans - 1) g_nplans--;
    return 1;
  }
  *out = &g_plans[slot];
  return 0;
}
}  // namespace

extern "C" int cl1_op_convnd(void *stream, const float *x, const float *w, const float *bias,
                             float *y, const cl1_convnd_desc *d) {
  if (!cl1_convnd_valid(d)) return 1;
  if (d->n == 0) return 0;
  if (!x || !w || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  if (cl1_conv_dw_applies(d)) return cl1_conv_dw(st, x, w, bias, y, d);  // as PyTorch: not cuDNN
  cudnnHandle_t h;
  if (cl1_ops_cudnn(st, &h)) return 1;
  cl1_convnd_desc key;
  key_of(d, &key);
  const float one = 1.f, zero = 0.f;
  int64_t in_per = d->c, out_per = d->k, out_sp = 1;
  for (int i = 0; i < d->nd; i++) in_per *= d->in[i], out_sp *= cl1_convnd_out(d, i);
  out_per *= out_sp;
  /* the graph API with a cached plan (as PyTorch), unless a tensor needs the legacy path's
     batch split or CUDAL1_CONV_LEGACY=1 asks for the legacy API (to compare the two) */
  static const bool legacy = getenv("CUDAL1_CONV_LEGACY") && !strcmp(getenv("CUDAL1_CONV_LEGACY"), "1");
  if (!legacy && d->n * in_per <= INT_MAX && d->n * out_per <= INT_MAX) {
    cl1_cg_geom cg;
    graph_geom(d, &cg);
    int g = cl1_conv_graph_run(h, &cg, x, w, y);
    if (g < 0) return 1;
    if (g > 0) return bias ? cl1_op_bias_add(stream, y, bias, y, d->n, d->k, out_sp) : 0;
  }
  plan *p;
  if (plan_get(h, &key, &p)) return 1;
  void *ws = nullptr;
  if (cl1_ops_scratch(CL1_SCRATCH_CUDNN, p->ws_bytes, &ws)) return 1;
  geom g;
  geom_of(d, &g);
  for (int64_t n0 = 0; n0 < d->n; n0 += p->nb) {
    int64_t nb = d->n - n0 < p->nb ? d->n - n0 : p->nb;
    cudnnTensorDescriptor_t xd = p->xd, yd = p->yd;
    bool tail = nb != p->nb;  // the last, shorter batch chunk gets its own descriptors
    if (tail) {
      CL1_CUDNN_TRY(cudnnCreateTensorDescriptor(&xd));
      if (cudnnCreateTensorDescriptor(&yd) != CUDNN_STATUS_SUCCESS) {
        cudnnDestroyTensorDescriptor(xd);
        return 1;
      }
      if (set_tensor(xd, (int)nb, (int)d->c, g.nsp, g.in) ||
          set_tensor(yd, (int)nb, (int)d->k, g.nsp, g.out)) {
        cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(yd);
        return 1;
      }
    }
    cudnnStatus_t s = cudnnConvolutionForward(h, &one, xd, x + n0 * in_per, p->wd, w, p->cd,
                                              p->algo, ws, p->ws_bytes, &zero, yd,
                                              y + n0 * out_per);
    if (tail) cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(yd);
    CL1_CUDNN_TRY(s);
  }
  if (bias) return cl1_op_bias_add(stream, y, bias, y, d->n, d->k, out_sp);
  return 0;
}
