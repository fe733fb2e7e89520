/* l2_63_gemm_relu_div_lt_epilogue.cu — level2/63_Gemm_ReLU_Divide: y = relu(x W^T + b) / d.
 * Technique: one cuBLASLt matmul (full FP32, CUBLAS_COMPUTE_32F) with bias and ReLU in its
 * epilogue, the division folded in by algebra and a weight pre-transformation: for d > 0,
 * relu(z) / d = relu(z / d), so alpha = 1/d and the bias is pre-scaled to b/d once in
 * cl1_setup (params are fixed until the next cl1_setup, which rebuilds it; for d = 2 both
 * scalings are exact). The reference runs the GEMM, then relu and the divide as two more passes
 * over y. cl1_setup also times the heuristic's candidate algorithms on scratch operands of the
 * task's shape and keeps the fastest (at 128 x 512 x 1024 the split-K variants win). d <= 0
 * keeps the plain BIAS epilogue and divides after a ReLU in a small kernel (never the task's
 * case, kept so the solution is right for every divisor). */
#include <cudal1/solution.h>
#include <cublasLt.h>
#include <string.h>

#define MAX_ALGOS 8
#define WS_BYTES (32u << 20)

struct st_t {
  cublasLtHandle_t lt;
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t la, lb, lc;  // W as col-major (K, N) op T; x^T (K, M); y^T (N, M)
  cublasLtMatmulAlgo_t algo;
  void *ws;
  float *bias;  // b / d (fused path) or b
  float alpha, inv_d;
  bool fused;
  int M, N, K;
};

__global__ static void scale_bias(const float *__restrict__ b, float *__restrict__ out, int n,
                                  float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = b[i] * s;
}

__global__ static void relu_scale(float *y, long long n, float s) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    y[i] = fmaxf(y[i], 0.f) * s;
}

CL1_EXPORT void cl1_teardown(void *state) {
  st_t *s = (st_t *)state;
  if (!s) return;
  if (s->ws) cudaFree(s->ws);
  if (s->bias) cudaFree(s->bias);
  if (s->la) cublasLtMatrixLayoutDestroy(s->la);
  if (s->lb) cublasLtMatrixLayoutDestroy(s->lb);
  if (s->lc) cublasLtMatrixLayoutDestroy(s->lc);
  if (s->op) cublasLtMatmulDescDestroy(s->op);
  if (s->lt) cublasLtDestroy(s->lt);
  delete s;
}

static int matmul(st_t *s, const cublasLtMatmulAlgo_t *algo, const float *x, const float *W,
                  float *y, cudaStream_t st) {
  const float beta = 0.f;
  return cublasLtMatmul(s->lt, s->op, &s->alpha, W, s->la, x, s->lb, &beta, y, s->lc, y, s->lc,
                        algo, s->ws, WS_BYTES, st) != CUBLAS_STATUS_SUCCESS;
}

// index of the fastest algorithm (median of 7 after 2 warm-ups), -1 if none ran
static int fastest(st_t *s, const cublasLtMatmulHeuristicResult_t *h, int n, const float *W,
                   cudaStream_t st) {
  float *x = nullptr, *y = nullptr;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  int best = -1;
  float best_ms = 0.f;
  if (cudaMalloc(&x, sizeof(float) * s->M * s->K) == cudaSuccess &&
      cudaMalloc(&y, sizeof(float) * s->M * s->N) == cudaSuccess &&
      cudaMemsetAsync(x, 0, sizeof(float) * s->M * s->K, st) == cudaSuccess &&
      cudaEventCreate(&e0) == cudaSuccess && cudaEventCreate(&e1) == cudaSuccess) {
    for (int i = 0; i < n; i++) {
      float t[7];
      bool ok = !matmul(s, &h[i].algo, x, W, y, st) && !matmul(s, &h[i].algo, x, W, y, st);
      for (int r = 0; r < 7 && ok; r++)
        ok = cudaEventRecord(e0, st) == cudaSuccess && !matmul(s, &h[i].algo, x, W, y, st) &&
             cudaEventRecord(e1, st) == cudaSuccess && cudaEventSynchronize(e1) == cudaSuccess &&
             cudaEventElapsedTime(&t[r], e0, e1) == cudaSuccess;
      if (!ok) {
        cudaGetLastError();
        continue;
      }
      for (int a = 1; a < 7; a++)
        for (int b = a; b > 0 && t[b] < t[b - 1]; b--) {
          const float u = t[b];
          t[b] = t[b - 1], t[b - 1] = u;
        }
      if (best < 0 || t[3] < best_ms) best = i, best_ms = t[3];
    }
  }
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  if (x) cudaFree(x);
  if (y) cudaFree(y);
  return best;
}

#define TRY(e) do { if ((e) != CUBLAS_STATUS_SUCCESS) { cl1_teardown(s); return 1; } } while (0)

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  if (c->n_inputs != 1 || c->n_params != 2 || c->n_outputs != 1) return 1;
  double d = 0;
  bool have = false;
  for (int i = 0; i < c->n_attrs; i++)
    if (!strcmp(c->attrs[i].name, "divisor")) d = c->attrs[i].value, have = true;
  if (!have || d == 0) return 1;
  st_t *s = new st_t();
  s->M = (int)c->inputs[0].shape[0], s->K = (int)c->inputs[0].shape[1];
  s->N = (int)c->params[0].shape[0];
  s->fused = d > 0;
  s->inv_d = (float)(1.0 / d);
  s->alpha = s->fused ? s->inv_d : 1.f;
  cudaStream_t st = (cudaStream_t)c->stream;
  if (cudaMalloc(&s->bias, sizeof(float) * s->N) != cudaSuccess ||
      cudaMalloc(&s->ws, WS_BYTES) != cudaSuccess) {
    cl1_teardown(s);
    return 1;
  }
  // the pre-scaled bias from this params set (rebuilt by the next cl1_setup)
  scale_bias<<<(s->N + 255) / 256, 256, 0, st>>>((const float *)c->params[1].data, s->bias, s->N,
                                                 s->fused ? s->inv_d : 1.f);
  if (cudaGetLastError() != cudaSuccess) {
    cl1_teardown(s);
    return 1;
  }
  const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  const cublasLtEpilogue_t epi = s->fused ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
  const size_t ws = WS_BYTES;
  TRY(cublasLtCreate(&s->lt));
  TRY(cublasLtMatmulDescCreate(&s->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  TRY(cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  TRY(cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  TRY(cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
  TRY(cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &s->bias,
                                     sizeof s->bias));
  TRY(cublasLtMatrixLayoutCreate(&s->la, CUDA_R_32F, s->K, s->N, s->K));
  TRY(cublasLtMatrixLayoutCreate(&s->lb, CUDA_R_32F, s->K, s->M, s->K));
  TRY(cublasLtMatrixLayoutCreate(&s->lc, CUDA_R_32F, s->N, s->M, s->N));
  cublasLtMatmulPreference_t pref;
  TRY(cublasLtMatmulPreferenceCreate(&pref));
  cublasLtMatmulHeuristicResult_t h[MAX_ALGOS];
  int n = 0;
  cublasStatus_t hs = cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
  if (hs == CUBLAS_STATUS_SUCCESS)
    hs = cublasLtMatmulAlgoGetHeuristic(s->lt, s->op, s->la, s->lb, s->lc, s->lc, pref, MAX_ALGOS,
                                        h, &n);
  cublasLtMatmulPreferenceDestroy(pref);
  TRY(hs);
  const int best = fastest(s, h, n, (const float *)c->params[0].data, st);
  if (best < 0) {
    cl1_teardown(s);
    return 1;
  }
  s->algo = h[best].algo;
  *state = s;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  st_t *s = (st_t *)c->state;
  if (!s || c->inputs[0].shape[0] != s->M || c->inputs[0].shape[1] != s->K) return 1;
  cudaStream_t st = (cudaStream_t)c->stream;
  float *y = (float *)c->outputs[0].data;
  if (matmul(s, &s->algo, (const float *)c->inputs[0].data, (const float *)c->params[0].data, y,
             st))
    return 1;
  if (!s->fused) {
    const long long n = (long long)s->M * s->N;
    relu_scale<<<(unsigned)((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096), 256, 0, st>>>(
        y, n, s->inv_d);
    return cudaGetLastError() != cudaSuccess;
  }
  return 0;
}
