/* l3_1_mlp_gemv_cuda_graph.cu — level3/1_MLP: Linear-ReLU-Linear-ReLU-Linear at batch 1.
 * Technique: a CUDA graph captured on the harness stream in cl1_setup, replayed every call,
 * over warp-per-output GEMV kernels with bias and ReLU fused. At batch 1 every layer is a
 * matrix-vector product (weight-bandwidth bound, 4.5 MB of weights in all); the reference pays
 * three cuBLAS launches plus two ReLU launches. Here each layer is one kernel (a warp streams a
 * weight row with float4 loads, xor-shuffle reduce, bias + ReLU in the store), and the three
 * launches are captured once into a graph whose replay costs one launch. The graph's first and
 * last kernels read the input and write the output, whose addresses change every call: before
 * each replay their node parameters are re-pointed with cudaGraphExecKernelNodeSetParams (the
 * hidden activations live in buffers made in cl1_setup, so the middle nodes never change).
 * While the harness itself is capturing the call (--graph) the kernels are launched directly.
 * Batches above 4 (the large set's 128) are GEMM-shaped: there the op library's SGEMM chain
 * runs, as the reference. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

#define MAXM 4
#define WARPS 8
#define MAXL 16

struct layer_args {
  const float *in, *W, *b;
  float *out;
  int M, K, N, relu, vec;
};

struct st_t {
  int L, M;
  bool gemv;
  float *h[2];
  layer_args a[MAXL];
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaGraphNode_t first, last;
  const float *bound_in;  // the pointers the executable graph holds now
  float *bound_out;
};

// out[m, n] = act(b[n] + in[m, :] . W[n, :]) for m < M; a warp per n
__global__ static void __launch_bounds__(WARPS * 32) gemv_layer(layer_args a) {
  const int lane = threadIdx.x & 31, n = blockIdx.x * WARPS + (threadIdx.x >> 5);
  if (n >= a.N) return;
  float acc[MAXM];
#pragma unroll
  for (int m = 0; m < MAXM; m++) acc[m] = 0.f;
  const float *w = a.W + (long long)n * a.K;
  if (a.vec) {
    const float4 *w4 = (const float4 *)w;
    const int k4 = a.K / 4;
    for (int i = lane; i < k4; i += 32) {
      const float4 u = __ldg(w4 + i);
#pragma unroll
      for (int m = 0; m < MAXM; m++)
        if (m < a.M) {
          const float4 v = ((const float4 *)(a.in + (long long)m * a.K))[i];
          acc[m] += u.x * v.x + u.y * v.y + u.z * v.z + u.w * v.w;
        }
    }
  } else {
    for (int i = lane; i < a.K; i += 32) {
      const float u = __ldg(w + i);
#pragma unroll
      for (int m = 0; m < MAXM; m++)
        if (m < a.M) acc[m] += u * a.in[(long long)m * a.K + i];
    }
  }
#pragma unroll
  for (int m = 0; m < MAXM; m++) {
#pragma unroll
    for (int o = 16; o; o >>= 1) acc[m] += __shfl_xor_sync(~0u, acc[m], o);
  }
  if (lane == 0) {
    const float bias = __ldg(a.b + n);
#pragma unroll
    for (int m = 0; m < MAXM; m++)
      if (m < a.M) {
        const float v = acc[m] + bias;
        a.out[(long long)m * a.N + n] = a.relu ? fmaxf(v, 0.f) : v;
      }
  }
}

// args[0] must stay valid until cudaGraphExecKernelNodeSetParams returns (it copies the value)
static cudaKernelNodeParams node_params(layer_args *a, void **args) {
  cudaKernelNodeParams p = {};
  p.func = (void *)gemv_layer;
  p.gridDim = dim3((unsigned)((a->N + WARPS - 1) / WARPS));
  p.blockDim = dim3(WARPS * 32);
  p.sharedMemBytes = 0;
  args[0] = a;
  p.kernelParams = args;
  p.extra = nullptr;
  return p;
}

static int launch_direct(st_t *s, cudaStream_t st) {
  for (int l = 0; l < s->L; l++)
    gemv_layer<<<(s->a[l].N + WARPS - 1) / WARPS, WARPS * 32, 0, st>>>(s->a[l]);
  return cudaGetLastError() != cudaSuccess;
}

CL1_EXPORT void cl1_teardown(void *state) {
  st_t *s = (st_t *)state;
  if (!s) return;
  if (s->exec) cudaGraphExecDestroy(s->exec);
  if (s->graph) cudaGraphDestroy(s->graph);
  if (s->h[0]) cudaFree(s->h[0]);
  if (s->h[1]) cudaFree(s->h[1]);
  delete s;
}

// Captures the layer launches on st; on any failure the solution runs without a graph.
static void build_graph(st_t *s, cudaStream_t st) {
  if (cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  const int bad = launch_direct(s, st);  // recorded, not run (null input/output placeholders)
  cudaGraph_t g = nullptr;
  if (cudaStreamEndCapture(st, &g) != cudaSuccess || bad || !g) {
    if (g) cudaGraphDestroy(g);
    cudaGetLastError();
    return;
  }
  // the captured chain in launch order: the root, then each node's single dependent
  cudaGraphNode_t chain[MAXL];
  size_t n = 1;
  int len = 0;
  bool ok = cudaGraphGetRootNodes(g, chain, &n) == cudaSuccess && n == 1;
  for (len = 1; ok && len < s->L; len++) {
    size_t k = 1;
    ok = cudaGraphNodeGetDependentNodes(chain[len - 1], &chain[len], nullptr, &k) == cudaSuccess &&
         k == 1;
  }
  cudaGraphExec_t e = nullptr;
  if (!ok || len != s->L || cudaGraphInstantiate(&e, g, 0) != cudaSuccess) {
    cudaGraphDestroy(g);
    cudaGetLastError();
    return;
  }
  s->graph = g, s->exec = e, s->first = chain[0], s->last = chain[s->L - 1];
  s->bound_in = nullptr, s->bound_out = nullptr;
}

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  if (c->n_inputs != 1 || c->n_outputs != 1 || c->n_params < 2 || c->n_params % 2 ||
      c->n_params / 2 > MAXL)
    return 1;
  st_t *s = new st_t();
  s->L = c->n_params / 2;
  s->M = (int)c->inputs[0].shape[0];
  int k = (int)c->inputs[0].shape[1], wide = 1;
  for (int l = 0; l < s->L; l++) {
    const cl1_tensor *W = &c->params[2 * l], *b = &c->params[2 * l + 1];
    if (W->ndim != 2 || W->shape[1] != k || b->shape[0] != W->shape[0]) {
      delete s;
      return 1;
    }
    const int n = (int)W->shape[0];
    s->a[l] = layer_args{nullptr, (const float *)W->data, (const float *)b->data, nullptr,
                         s->M, k, n, l + 1 < s->L, k % 4 == 0};
    if (l + 1 < s->L && n > wide) wide = n;
    k = n;
  }
  if (c->outputs[0].shape[0] != s->M || c->outputs[0].shape[1] != k) {
    delete s;
    return 1;
  }
  for (int i = 0; i < 2; i++)
    if (cudaMalloc(&s->h[i], sizeof(float) * (size_t)s->M * wide) != cudaSuccess) {
      s->h[i] = nullptr;
      cl1_teardown(s);
      return 1;
    }
  for (int l = 0; l < s->L; l++) {  // hidden activations ping-pong between h[0] and h[1]
    if (l > 0) s->a[l].in = s->h[(l - 1) % 2];
    if (l + 1 < s->L) s->a[l].out = s->h[l % 2];
  }
  s->gemv = s->M >= 1 && s->M <= MAXM;
  if (s->gemv) build_graph(s, (cudaStream_t)c->stream);
  *state = s;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  st_t *s = (st_t *)c->state;
  if (!s || c->inputs[0].shape[0] != s->M) return 1;
  cudaStream_t st = (cudaStream_t)c->stream;
  const float *x = (const float *)c->inputs[0].data;
  float *y = (float *)c->outputs[0].data;
  if (!s->gemv) {  // GEMM-shaped batches: the op library, as the reference
    const float *h = x;
    for (int l = 0; l < s->L; l++) {
      layer_args &a = s->a[l];
      float *o = l + 1 < s->L ? a.out : y;
      if (cl1_op_linear(st, h, 0, a.W, a.b, o, a.M, a.N, a.K)) return 1;
      if (a.relu && cl1_op_relu(st, o, o, (int64_t)a.M * a.N)) return 1;
      h = o;
    }
    return 0;
  }
  s->a[0].in = x, s->a[s->L - 1].out = y;
  const bool aligned = ((unsigned long long)x & 15) == 0;
  s->a[0].vec = aligned && s->a[0].K % 4 == 0;
  cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(st, &cap) != cudaSuccess) return 1;
  if (!s->exec || cap != cudaStreamCaptureStatusNone) return launch_direct(s, st);
  if (x != s->bound_in || !aligned) {
    void *args[1];
    cudaKernelNodeParams p = node_params(&s->a[0], args);
    if (cudaGraphExecKernelNodeSetParams(s->exec, s->first, &p) != cudaSuccess) return 1;
    s->bound_in = aligned ? x : nullptr;  // an unaligned binding is redone next call
  }
  if (y != s->bound_out) {
    void *args[1];
    cudaKernelNodeParams p = node_params(&s->a[s->L - 1], args);
    if (cudaGraphExecKernelNodeSetParams(s->exec, s->last, &p) != cudaSuccess) return 1;
    s->bound_out = y;
  }
  return cudaGraphLaunch(s->exec, st) != cudaSuccess;
}
