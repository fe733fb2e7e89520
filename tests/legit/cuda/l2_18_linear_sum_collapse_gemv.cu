/* l2_18_linear_sum_collapse_gemv.cu — level2/18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp:
 * t = x W^T + b, s = sum(t, dim 1, keepdim), then max / mean / logsumexp / logsumexp over dim 1.
 * Technique: algebraic simplification valid for every finite input, with a weight
 * pre-transformation. After the row sum every op runs over a dim of size 1, where max, mean and
 * logsumexp (m + log(exp(v - m)) = v + log 1 = v) are exactly the identity; and the row sum of
 * a linear layer is x . (sum_j W[j, :]) + sum_j b[j]. cl1_setup forms the column sums of W and
 * the bias sum once per params set (double, rounded once); cl1_forward is a single launch, a
 * warp per batch row with an xor-shuffle reduction. The reference runs an SGEMM and five more
 * kernels. */
#include <cudal1/solution.h>

#define WARPS 8

struct st_t { float *wsum; int M, K; };  // wsum[0..K): column sums; wsum[K]: sum of the bias

__global__ static void collapse(const float *__restrict__ W, const float *__restrict__ b,
                                float *__restrict__ wsum, int N, int K) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k > K) return;
  double s = 0;
  if (k < K)
    for (int j = 0; j < N; j++) s += W[(long long)j * K + k];
  else
    for (int j = 0; j < N; j++) s += b[j];
  wsum[k] = (float)s;
}

__global__ static void __launch_bounds__(WARPS * 32)
rows_dot_bias(const float *__restrict__ x, const float *__restrict__ wsum, float *__restrict__ y,
              int M, int K, bool vec) {
  const int lane = threadIdx.x & 31;
  const int m = blockIdx.x * WARPS + (threadIdx.x >> 5);
  if (m >= M) return;
  const float *xr = x + (long long)m * K;
  float s = 0.f;
  if (vec) {
    const float4 *x4 = (const float4 *)xr, *w4 = (const float4 *)wsum;
    for (int i = lane; i < K / 4; i += 32) {
      const float4 a = x4[i], w = w4[i];
      s += a.x * w.x + a.y * w.y + a.z * w.z + a.w * w.w;
    }
  } else {
    for (int i = lane; i < K; i += 32) s += xr[i] * wsum[i];
  }
#pragma unroll
  for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(~0u, s, o);
  if (lane == 0) y[m] = s + wsum[K];
}

CL1_EXPORT void cl1_teardown(void *state) {
  st_t *s = (st_t *)state;
  if (!s) return;
  if (s->wsum) cudaFree(s->wsum);
  delete s;
}

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  if (c->n_inputs != 1 || c->n_params != 2 || c->n_outputs != 1) return 1;
  const cl1_tensor *x = &c->inputs[0], *W = &c->params[0], *b = &c->params[1];
  if (x->ndim != 2 || W->ndim != 2 || b->ndim != 1 || W->shape[1] != x->shape[1] ||
      b->shape[0] != W->shape[0])
    return 1;
  st_t *s = new st_t();
  s->M = (int)x->shape[0], s->K = (int)x->shape[1];
  const int N = (int)W->shape[0];
  if (cudaMalloc(&s->wsum, sizeof(float) * (s->K + 4)) != cudaSuccess) {
    s->wsum = nullptr;
    cl1_teardown(s);
    return 1;
  }
  collapse<<<(s->K + 1 + 127) / 128, 128, 0, (cudaStream_t)c->stream>>>(
      (const float *)W->data, (const float *)b->data, s->wsum, N, s->K);
  if (cudaGetLastError() != cudaSuccess) {
    cl1_teardown(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const st_t *s = (const st_t *)c->state;
  if (!s || c->inputs[0].shape[0] != s->M || c->inputs[0].shape[1] != s->K) return 1;
  if (s->M == 0) return 0;
  const float *x = (const float *)c->inputs[0].data;
  const bool vec = s->K % 4 == 0 && (((unsigned long long)x | (unsigned long long)s->wsum) & 15) == 0;
  rows_dot_bias<<<(s->M + WARPS - 1) / WARPS, WARPS * 32, 0, (cudaStream_t)c->stream>>>(
      x, s->wsum, (float *)c->outputs[0].data, s->M, s->K, vec);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
