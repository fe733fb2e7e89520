/* l1_51_argmax_dim_smem_split.cu — level1/51_Argmax_over_a_dimension: y[b, i] = argmax_r
 * x[b, r, i] (int64, first index on ties; a NaN wins, the first NaN), x (B, R, I).
 * Technique: shared-memory split reduction over the middle dim. A block owns 32 output columns
 * of one batch row and its 256 threads split the reduced dim 32 ways (float4 loads, a warp
 * reads 4 rows x 128 contiguous bytes), each thread scans its rows in increasing order keeping
 * (value, first index), and the 32 candidates per column are merged through shared memory with
 * the explicit rule NaN > larger value > lower index — so the merge order cannot change the
 * answer and ties resolve exactly as PyTorch. Odd or unaligned widths use the scalar variant. */
#include <cudal1/solution.h>
#include <stdint.h>

struct cand { float v; long long i; };  // i < 0: no element seen

// does b beat a? (NaN first, then the larger value, then the lower index)
static __device__ __forceinline__ bool beats(cand b, cand a) {
  if (b.i < 0) return false;
  if (a.i < 0) return true;
  const bool bn = isnan(b.v), an = isnan(a.v);
  if (bn || an) return bn && (!an || b.i < a.i);
  return b.v > a.v || (b.v == a.v && b.i < a.i);
}

template <int VEC>
__global__ static void __launch_bounds__(256)
argmax_mid(const float *__restrict__ x, int64_t *__restrict__ y, long long B, long long R,
           long long I) {
  constexpr int TX = VEC == 4 ? 8 : 32, TY = 256 / TX, TC = 32;
  __shared__ float shv[TY][TC + 1];
  __shared__ long long shi[TY][TC + 1];
  const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
  const long long c0 = blockIdx.x * (long long)TC, col = c0 + tx * VEC;
  for (long long b = blockIdx.y; b < B; b += gridDim.y) {
    const float *xb = x + b * R * I;
    cand best[VEC];
#pragma unroll
    for (int q = 0; q < VEC; q++) best[q] = cand{0.f, -1};
    if (col < I) {
#pragma unroll 4
      for (long long r = ty; r < R; r += TY) {
        float v[VEC];
        if constexpr (VEC == 4) {
          const float4 u = __ldcs((const float4 *)(xb + r * I + col));
          v[0] = u.x, v[1] = u.y, v[2] = u.z, v[3] = u.w;
        } else {
          v[0] = __ldcs(xb + r * I + col);
        }
#pragma unroll
        for (int q = 0; q < VEC; q++)
          if (beats(cand{v[q], r}, best[q])) best[q] = cand{v[q], r};
      }
    }
#pragma unroll
    for (int q = 0; q < VEC; q++) shv[ty][tx * VEC + q] = best[q].v, shi[ty][tx * VEC + q] = best[q].i;
    __syncthreads();
    if (threadIdx.x < TC && c0 + threadIdx.x < I) {
      cand w{shv[0][threadIdx.x], shi[0][threadIdx.x]};
#pragma unroll
      for (int k = 1; k < TY; k++) {
        const cand o{shv[k][threadIdx.x], shi[k][threadIdx.x]};
        if (beats(o, w)) w = o;
      }
      y[b * I + c0 + threadIdx.x] = (int64_t)(w.i < 0 ? 0 : w.i);
    }
    __syncthreads();
  }
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const cl1_tensor *X = &c->inputs[0];
  if (X->ndim != 3) return 1;
  const long long B = X->shape[0], R = X->shape[1], I = X->shape[2];
  if (B == 0 || I == 0) return 0;
  if (R == 0) return 1;  // argmax of an empty dim is an error in PyTorch
  const float *x = (const float *)X->data;
  int64_t *y = (int64_t *)c->outputs[0].data;
  const dim3 grid((unsigned)((I + 31) / 32), (unsigned)(B < 65535 ? B : 65535));
  if (I % 4 == 0 && ((unsigned long long)x & 15) == 0)
    argmax_mid<4><<<grid, 256, 0, (cudaStream_t)c->stream>>>(x, y, B, R, I);
  else
    argmax_mid<1><<<grid, 256, 0, (cudaStream_t)c->stream>>>(x, y, B, R, I);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
