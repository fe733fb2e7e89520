/* gemm_tuned.cu — full-FP32 GEMMs through cuBLASLt with cached descriptors, two flavours:
 * cl1_gemm_nt_tuned: the algorithm is the fastest of the heuristic's first 8, timed (CUDA events,
 * 5 calls each) on the first call of a shape that is not inside a stream capture. Why: the RNN
 * ops run one small GEMM per time step (level3/39 GRU: 3072 steps of (10 x 768 x 256)), where
 * cublasSgemm's pick ran the GRU 2x slower than PyTorch's cuDNN GRU while the same loop for LSTM
 * (N = 1024) matched; timing the candidates makes the reference no slower than the best of
 * cuBLAS's own kernels. During a capture (the --graph protocol) the untimed first heuristic pick
 * runs and nothing is cached.
 * cl1_gemm_nt_bias: y = A W^T + bias with the bias in the matmul's epilogue
 * (CUBLASLT_EPILOGUE_BIAS) and the heuristic's first algorithm, untimed: what PyTorch's addmm
 * does for a Linear with a 1-D bias (gemm_and_bias). The addmm-as-cublasSgemm-with-beta-1 form
 * it replaces picked a 53 us kernel for level3/33's (8 x 256 x 1280) i2h where PyTorch's
 * split-K pick ran 7 us. */
#include <cublasLt.h>
#include <cassert>
#include <cstring>
#include <mutex>
#include "gemm_tuned.cuh"

namespace {
struct tuned {
  int64_t M, N, K, lda, align;
  bool bias;  // CUBLASLT_EPILOGUE_BIAS and the heuristic's first pick; else timed
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t a, b, c;  // a: W (K x N col-major), b: A (K x M, ld lda), c: C (N x M)
  cublasLtMatmulAlgo_t algo;
};
const int kTuned = 64;
tuned g_t[kTuned];
int g_nt, g_next;
std::mutex g_mu;
cublasLtHandle_t g_lt;
void *g_ws;
const size_t kWs = (size_t)4 << 20;


void drop(tuned &t) {
  if (t.op) cublasLtMatmulDescDestroy(t.op);
  if (t.a) cublasLtMatrixLayoutDestroy(t.a);
  if (t.b) cublasLtMatrixLayoutDestroy(t.b);
  if (t.c) cublasLtMatrixLayoutDestroy(t.c);
  memset(&t, 0, sizeof t);
}

#define LT(call)                                        \
  do {                                                  \
    if ((call) != CUBLAS_STATUS_SUCCESS) return 1;      \
  } while (0)

int describe(tuned &t) {
  LT(cublasLtMatmulDescCreate(&t.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  LT(cublasLtMatmulDescSetAttribute(t.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  LT(cublasLtMatmulDescSetAttribute(t.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  if (t.bias) {
    cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
    LT(cublasLtMatmulDescSetAttribute(t.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
  }
  LT(cublasLtMatrixLayoutCreate(&t.a, CUDA_R_32F, (uint64_t)t.K, (uint64_t)t.N, t.K));
  LT(cublasLtMatrixLayoutCreate(&t.b, CUDA_R_32F, (uint64_t)t.K, (uint64_t)t.M, t.lda));
  LT(cublasLtMatrixLayoutCreate(&t.c, CUDA_R_32F, (uint64_t)t.N, (uint64_t)t.M, t.N));
  return 0;
}

// the caller holds g_mu: the bias pointer is an attribute of the shared descriptor
int run(const tuned &t, const cublasLtMatmulAlgo_t *algo, cudaStream_t st, const float *A,
        const float *W, const float *bias, float *C) {
  const float one = 1.f, zero = 0.f;
  assert(t.bias == (bias != nullptr));
  if (bias)
    LT(cublasLtMatmulDescSetAttribute(t.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
  LT(cublasLtMatmul(g_lt, t.op, &one, W, t.a, A, t.b, &zero, C, t.c, C, t.c, algo, g_ws, kWs, st));
  return 0;
}

// Fills t.algo with the fastest candidate; 1 when none runs.
int tune(tuned &t, cudaStream_t st, const float *A, const float *W, float *C, bool timed) {
  cublasLtMatmulPreference_t pref;
  LT(cublasLtMatmulPreferenceCreate(&pref));
  uint64_t ws = kWs;
  uint32_t al = (uint32_t)t.align;
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &al, sizeof al);
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &al, sizeof al);
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &al, sizeof al);
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &al, sizeof al);
  cublasLtMatmulHeuristicResult_t res[8];
  int got = 0;
  cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(g_lt, t.op, t.a, t.b, t.c, t.c, pref, 8, res, &got);
  cublasLtMatmulPreferenceDestroy(pref);
  if (s != CUBLAS_STATUS_SUCCESS || got < 1) return 1;
  t.algo = res[0].algo;
  if (!timed || got == 1) return 0;
  cudaEvent_t e0, e1;
  if (cudaEventCreate(&e0) != cudaSuccess) return 0;
  if (cudaEventCreate(&e1) != cudaSuccess) { cudaEventDestroy(e0); return 0; }
  float best = 1e30f;
  for (int i = 0; i < got; i++) {
    if (res[i].state != CUBLAS_STATUS_SUCCESS || run(t, &res[i].algo, st, A, W, nullptr, C)) continue;
    cudaEventRecord(e0, st);
    bool ok = true;
    for (int r = 0; r < 5 && ok; r++) ok = !run(t, &res[i].algo, st, A, W, nullptr, C);
    cudaEventRecord(e1, st);
    float ms = 0;
    if (ok && cudaEventSynchronize(e1) == cudaSuccess && cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess &&
        ms < best)
      best = ms, t.algo = res[i].algo;
  }
  cudaEventDestroy(e0), cudaEventDestroy(e1);
  return 0;
}

// One cached GEMM: timed without a bias (cl1_gemm_nt_tuned), untimed with the bias epilogue
// (cl1_gemm_nt_bias).
int gemm_cached(cudaStream_t st, const float *A, int64_t lda, const float *W, const float *bias,
                float *C, int64_t M, int64_t N, int64_t K) {
  if (M <= 0 || N <= 0 || K <= 0 || lda < K) return 1;
  int64_t align = cl1_ops_align(A, W, C);
  if (bias) {
    int64_t ab = cl1_ops_align(bias, bias, bias);
    if (ab < align) align = ab;
  }
  cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(st, &cap) != cudaSuccess) return 1;
  const bool capturing = cap != cudaStreamCaptureStatusNone, has_bias = bias != nullptr;
  const bool timed = !has_bias;
  std::lock_guard<std::mutex> lk(g_mu);
  if (!g_lt) {
    if (cublasLtCreate(&g_lt) != CUBLAS_STATUS_SUCCESS) return 1;
    CL1_CUDA_TRY(cudaMalloc(&g_ws, kWs));
  }
  for (int i = 0; i < g_nt; i++) {
    const tuned &t = g_t[i];
    if (t.M == M && t.N == N && t.K == K && t.lda == lda && t.align == align &&
        t.bias == has_bias)
      return run(t, &t.algo, st, A, W, bias, C);
  }
  tuned t;
  memset(&t, 0, sizeof t);
  t.M = M, t.N = N, t.K = K, t.lda = lda, t.align = align, t.bias = has_bias;
  int rc = describe(t) || tune(t, st, A, W, C, timed && !capturing) ||
           run(t, &t.algo, st, A, W, bias, C);
  if (!rc && !(timed && capturing)) {  // an untimed pick is the same inside a capture: keep it
    int slot = g_nt < kTuned ? g_nt++ : (g_next++ % kTuned);
    drop(g_t[slot]);
    g_t[slot] = t;
    return 0;
  }
  drop(t);
  return rc;
}
}  // namespace

int cl1_gemm_nt_tuned(cudaStream_t st, const float *A, int64_t lda, const float *W, float *C,
                      int64_t M, int64_t N, int64_t K) {
  return gemm_cached(st, A, lda, W, nullptr, C, M, N, K);
}

int cl1_gemm_nt_bias(cudaStream_t st, const float *A, const float *W, const float *bias,
                     float *C, int64_t M, int64_t N, int64_t K) {
  if (!bias) return 1;
  return gemm_cached(st, A, K, W, bias, C, M, N, K);
}
