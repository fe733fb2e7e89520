/* l1_4_gemv_float4_shuffle.cu — level1/4_Matrix_vector_multiplication_: C = A @ B, A (M, K),
 * B (K, 1). Technique: float4 streaming + warp-shuffle reduction. Memory-bound (A is 128 MB at
 * the small shape, read once): one 512-thread block per row, each thread keeps four float4
 * loads of A in flight (evict-first: A is touched once) against B's float4 (read through the
 * read-only path; B is shared by every row and stays in L2), four independent accumulators,
 * then xor-shuffle butterflies and one warp over the 16 warp sums — a fixed order, so results
 * are deterministic. 64-bit offsets (A has 2^31 elements at large); rows whose length is not a
 * multiple of 4, or unaligned pointers, use scalar loads. */
#include <cudal1/solution.h>

#define THREADS 512

static __device__ float block_sum(float v, float *sh) {
#pragma unroll
  for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(~0u, v, o);
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  float t = 0.f;
  if (threadIdx.x < 32) {
    t = threadIdx.x < THREADS / 32 ? sh[threadIdx.x] : 0.f;
#pragma unroll
    for (int o = 16; o; o >>= 1) t += __shfl_xor_sync(~0u, t, o);
  }
  __syncthreads();  // sh is rewritten by the next row
  return t;         // valid in thread 0
}

template <bool VEC>
__global__ static void __launch_bounds__(THREADS)
gemv_rows(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
          long long M, long long K) {
  __shared__ float sh[THREADS / 32];
  for (long long m = blockIdx.x; m < M; m += gridDim.x) {
    const float *a = A + m * K;
    float s0 = 0.f, s1 = 0.f, s2 = 0.f, s3 = 0.f;
    if constexpr (VEC) {
      const float4 *a4 = (const float4 *)a, *b4 = (const float4 *)B;
      const long long k4 = K / 4;
      long long i = threadIdx.x;
      for (; i + 3 * THREADS < k4; i += 4 * THREADS) {
        const float4 u0 = __ldcs(a4 + i), u1 = __ldcs(a4 + i + THREADS);
        const float4 u2 = __ldcs(a4 + i + 2 * THREADS), u3 = __ldcs(a4 + i + 3 * THREADS);
        const float4 v0 = __ldg(b4 + i), v1 = __ldg(b4 + i + THREADS);
        const float4 v2 = __ldg(b4 + i + 2 * THREADS), v3 = __ldg(b4 + i + 3 * THREADS);
        s0 += u0.x * v0.x + u0.y * v0.y + u0.z * v0.z + u0.w * v0.w;
        s1 += u1.x * v1.x + u1.y * v1.y + u1.z * v1.z + u1.w * v1.w;
        s2 += u2.x * v2.x + u2.y * v2.y + u2.z * v2.z + u2.w * v2.w;
        s3 += u3.x * v3.x + u3.y * v3.y + u3.z * v3.z + u3.w * v3.w;
      }
      for (; i < k4; i += THREADS) {
        const float4 u = __ldcs(a4 + i), v = __ldg(b4 + i);
        s0 += u.x * v.x + u.y * v.y + u.z * v.z + u.w * v.w;
      }
    } else {
      for (long long i = threadIdx.x; i < K; i += THREADS) s0 += a[i] * __ldg(B + i);
    }
    const float t = block_sum((s0 + s1) + (s2 + s3), sh);
    if (threadIdx.x == 0) C[m] = t;
  }
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const cl1_tensor *A = &c->inputs[0], *B = &c->inputs[1];
  if (A->ndim != 2 || B->ndim != 2 || B->shape[0] != A->shape[1] || B->shape[1] != 1) return 1;
  const long long M = A->shape[0], K = A->shape[1];
  if (M == 0) return 0;
  const float *a = (const float *)A->data, *b = (const float *)B->data;
  float *out = (float *)c->outputs[0].data;
  const unsigned grid = (unsigned)(M < (1LL << 30) ? M : (1LL << 30));
  cudaStream_t st = (cudaStream_t)c->stream;
  if (K % 4 == 0 && (((unsigned long long)a | (unsigned long long)b) & 15) == 0)
    gemv_rows<true><<<grid, THREADS, 0, st>>>(a, b, out, M, K);
  else
    gemv_rows<false><<<grid, THREADS, 0, st>>>(a, b, out, M, K);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
