/* conv_graph.cu — forward convolution through cuDNN's graph (backend) API with cached execution
 * plans, as PyTorch's cuDNN v8 path does: an operation graph of one convolution, the engine
 * configs of the instant heuristic (then the fallback list) filtered as PyTorch filters them
 * (no down-converted inputs; no tensor cores when TF32 is off), the first config that builds a
 * plan. A call then costs one variant pack and cudnnBackendExecute. The legacy
 * cudnnConvolutionForward re-derives its engine on every call: measured on the H200, a 4 us
 * conv cost ~50 us of host time and a network of 20 convs ran 1.45x PyTorch's time. Plans are
 * keyed by the geometry and the data pointers' alignment (cuDNN specialises on it). The
 * transposed conv is the same graph with a backward-data operation (dx from dy), as PyTorch. */
#include <cstring>
#include <mutex>
#include <cstdio>
#include "conv_graph.cuh"

namespace {
typedef cudnnBackendDescriptor_t bdesc;

/* Descriptors a plan was built from. They live as long as the plan: whether a finalized plan
 * still refers to its engine config or graph is not documented. */
struct owned {
  bdesc d[64];
  int n;
  int make(cudnnBackendDescriptorType_t t, bdesc *out) {
    if (n == 64 || cudnnBackendCreateDescriptor(t, out) != CUDNN_STATUS_SUCCESS) return 1;
    d[n++] = *out;
    return 0;
  }
  void release() {
    for (int i = 0; i < n; i++) cudnnBackendDestroyDescriptor(d[i]);
    n = 0;
  }
};

struct gplan {
  cl1_cg_geom key;
  int64_t align;
  bool built;  // false: no engine config built (cached so that it is not retried)
  bdesc plan;
  int64_t ws;
  owned o;
};
const int kGPlans = 512;
gplan g_gp[kGPlans];
int g_ngp, g_gnext;
std::mutex g_gmu;

const int64_t UID_X = 'x', UID_W = 'w', UID_Y = 'y';

struct op_attrs {
  cudnnBackendDescriptorType_t type;
  cudnnBackendAttributeName_t operand[4];  // x, w, y, conv descriptor
  cudnnBackendAttributeName_t alpha, beta;
};
const op_attrs kFwd = {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
                       {CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
                        CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
                        CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
                        CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC},
                       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
                       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA};
const op_attrs kBwdData = {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
                           {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
                            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
                            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
                            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC},
                           CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
                           CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA};

#define BK(call)                                  \
  do {                                            \
    if ((call) != CUDNN_STATUS_SUCCESS) return 1; \
  } while (0)

// A packed (N, C, *sp) float tensor.
int tensor(owned &o, int64_t uid, int64_t n, int64_t c, int nsp, const int *sp, int64_t align,
           bdesc *out) {
  int64_t dims[2 + CL1_CONVND_MAX], strides[2 + CL1_CONVND_MAX], nd = 2 + nsp;
  dims[0] = n, dims[1] = c;
  for (int i = 0; i < nsp; i++) dims[2 + i] = sp[i];
  strides[nd - 1] = 1;
  for (int64_t i = nd - 2; i >= 0; i--) strides[i] = strides[i + 1] * dims[i + 1];
  cudnnDataType_t dt = CUDNN_DATA_FLOAT;
  if (o.make(CUDNN_BACKEND_TENSOR_DESCRIPTOR, out)) return 1;
  BK(cudnnBackendSetAttribute(*out, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt));
  BK(cudnnBackendSetAttribute(*out, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, nd, dims));
  BK(cudnnBackendSetAttribute(*out, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, nd, strides));
  BK(cudnnBackendSetAttribute(*out, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
  BK(cudnnBackendSetAttribute(*out, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align));
  BK(cudnnBackendFinalize(*out));
  return 0;
}

bool has_note(bdesc cfg, cudnnBackendNumericalNote_t note) {
  bdesc eng;
  if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &eng) != CUDNN_STATUS_SUCCESS)
    return true;  // unknown: treat as excluded
  int64_t got = 0;
  bool has = true;
  if (cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                               &got, &eng) == CUDNN_STATUS_SUCCESS) {
    cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
    int64_t nn = 0;
    if (cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                 CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &nn, notes) == CUDNN_STATUS_SUCCESS) {
      has = false;
      for (int64_t i = 0; i < nn; i++) has |= notes[i] == note;
    }
  }
  cudnnBackendDestroyDescriptor(eng);
  return has;
}

// Builds p.plan for p.key; 1 when no config builds.
int build(cudnnHandle_t h, gplan &p) {
  const cl1_cg_geom *d = &p.key;
  int nsp = d->nsp;
  int in[CL1_CG_MAX], ker[CL1_CG_MAX], out[CL1_CG_MAX];
  for (int i = 0; i < nsp; i++) in[i] = (int)d->in[i], ker[i] = (int)d->ker[i], out[i] = (int)d->out[i];
  const int64_t *st = d->stride, *pad = d->pad, *dil = d->dil;
  owned &o = p.o;
  bdesc xd, wd, yd, cd, op, graph, heur;
  if (tensor(o, UID_X, d->n, d->c, nsp, in, p.align, &xd) ||
      tensor(o, UID_W, d->k, d->c / d->groups, nsp, ker, p.align, &wd) ||
      tensor(o, UID_Y, d->n, d->k, nsp, out, p.align, &yd))
    return 1;
  int64_t ns = nsp;
  cudnnDataType_t comp = CUDNN_DATA_FLOAT;
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  if (o.make(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &cd)) return 1;
  BK(cudnnBackendSetAttribute(cd, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &ns));
  BK(cudnnBackendSetAttribute(cd, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp));
  BK(cudnnBackendSetAttribute(cd, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1,
                              &mode));
  BK(cudnnBackendSetAttribute(cd, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, ns, dil));
  BK(cudnnBackendSetAttribute(cd, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, ns, st));
  BK(cudnnBackendSetAttribute(cd, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, ns, pad));
  BK(cudnnBackendSetAttribute(cd, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, ns, pad));
  BK(cudnnBackendFinalize(cd));
  float one = 1.f, zero = 0.f;
  /* the forward op computes Y from X; the backward-data op X (dx) from Y (dy), same operands */
  const op_attrs &k = d->bwd_data ? kBwdData : kFwd;
  const bdesc operand[4] = {xd, wd, yd, cd};
  if (o.make(k.type, &op)) return 1;
  for (int i = 0; i < 4; i++)
    BK(cudnnBackendSetAttribute(op, k.operand[i], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &operand[i]));
  BK(cudnnBackendSetAttribute(op, k.alpha, CUDNN_TYPE_FLOAT, 1, &one));
  BK(cudnnBackendSetAttribute(op, k.beta, CUDNN_TYPE_FLOAT, 1, &zero));
  BK(cudnnBackendFinalize(op));
  if (o.make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &graph)) return 1;
  BK(cudnnBackendSetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                              &op));
  BK(cudnnBackendSetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
  BK(cudnnBackendFinalize(graph));
  const cudnnBackendHeurMode_t modes[2] = {CUDNN_HEUR_MODE_INSTANT, CUDNN_HEUR_MODE_FALLBACK};
  for (int m = 0; m < 2; m++) {
    if (o.make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur)) return 1;
    BK(cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
                                CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph));
    BK(cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1,
                                &modes[m]));
    if (cudnnBackendFinalize(heur) != CUDNN_STATUS_SUCCESS) continue;
    int64_t count = 0;
    if (cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                 0, &count, nullptr) != CUDNN_STATUS_SUCCESS || count < 1)
      continue;
    if (count > 16) count = 16;
    bdesc cfg[16];
    int ncfg = 0;
    for (; ncfg < count; ncfg++)
      if (o.make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg[ncfg])) break;
    int64_t got = 0;
    if (cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                 ncfg, &got, cfg) != CUDNN_STATUS_SUCCESS)
      continue;
    for (int64_t i = 0; i < got; i++) {
      if (has_note(cfg[i], CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS)) continue;
      if (d->no_tf32 && has_note(cfg[i], CUDNN_NUMERICAL_NOTE_TENSOR_CORE)) continue;
      bdesc plan;
      if (o.make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan)) return 1;
      int64_t ws = 0, wn = 0;
      if (cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1,
                                   &h) == CUDNN_STATUS_SUCCESS &&
          cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                   CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg[i]) == CUDNN_STATUS_SUCCESS &&
          cudnnBackendFinalize(plan) == CUDNN_STATUS_SUCCESS &&
          cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64,
                                   1, &wn, &ws) == CUDNN_STATUS_SUCCESS) {
        p.plan = plan, p.ws = ws, p.built = true;
        return 0;
      }
    }
  }
  return 1;
}

}  // namespace

int cl1_conv_graph_run(cudnnHandle_t h, const cl1_cg_geom *key, const float *x, const float *w,
                       const float *y) {
  int64_t align = cl1_ops_align(x, w, y);
  gplan *p = nullptr;
  {
    std::lock_guard<std::mutex> lk(g_gmu);
    for (int i = 0; i < g_ngp && !p; i++)
      if (g_gp[i].align == align && !memcmp(&g_gp[i].key, key, sizeof *key)) p = &g_gp[i];
    if (!p) {
      int slot = g_ngp < kGPlans ? g_ngp++ : (g_gnext++ % kGPlans);
      p = &g_gp[slot];
      p->o.release();
      memset(p, 0, sizeof *p);
      p->key = *key, p->align = align;
      if (build(h, *p)) p->o.release();
    }
  }
  if (!p->built) return 0;
  void *ws = nullptr;
  if (cl1_ops_scratch(CL1_SCRATCH_CUDNN, (size_t)p->ws, &ws)) return -1;
  bdesc vp;
  if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp) != CUDNN_STATUS_SUCCESS)
    return -1;
  void *ptrs[3] = {(void *)x, (void *)w, (void *)y};
  int64_t uids[3] = {UID_X, UID_W, UID_Y};
  cudnnStatus_t s = cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                                             CUDNN_TYPE_VOID_PTR, 3, ptrs);
  if (s == CUDNN_STATUS_SUCCESS)
    s = cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
  if (s == CUDNN_STATUS_SUCCESS)
    s = cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws);
  if (s == CUDNN_STATUS_SUCCESS) s = cudnnBackendFinalize(vp);
  if (s == CUDNN_STATUS_SUCCESS) s = cudnnBackendExecute(h, p->plan, vp);
  cudnnBackendDestroyDescriptor(vp);
  if (s != CUDNN_STATUS_SUCCESS) {
    fprintf(stderr, "cl1 ops: conv (graph API): cudnnBackendExecute: %s\n", cudnnGetErrorString(s));
    return -1;
  }
  return 1;
}
