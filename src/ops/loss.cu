/* loss.cu — CUDA cl1_op_loss and cl1_op_cross_entropy. Pass 1: a fixed grid of NBLK blocks, each
 * thread accumulating its grid-stride terms in float (as PyTorch), block partials merged and
 * stored in double; pass 2: one block sums the NBLK partials in a fixed order and divides. The
 * partials live in a small buffer this file allocates once (the ops have no workspace). Row
 * losses (triplet, cross entropy) use one block per row, grid-stride over rows. */
#include <math.h>
#include "cudal1/ops.h"
#include "cuda_common.cuh"

#define NBLK 1024
#define NT 256

static double *g_part;  // (NBLK), device

static int partials(double **out) {
  if (!g_part) CL1_CUDA_TRY(cudaMalloc((void **)&g_part, sizeof(double) * NBLK));
  *out = g_part;
  return 0;
}

// Block-wide double sum; every thread gets the total.
static __device__ double block_sum(double v) {
  __shared__ double sh[32];
  __shared__ double tot;
  for (int k = 16; k > 0; k >>= 1) v += __shfl_xor_sync(0xffffffffu, v, k);
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < (blockDim.x >> 5) ? sh[threadIdx.x] : 0.0;
    for (int k = 16; k > 0; k >>= 1) v += __shfl_xor_sync(0xffffffffu, v, k);
    if (threadIdx.x == 0) tot = v;
  }
  __syncthreads();
  v = tot;
  __syncthreads();
  return v;
}

template <int K>
__global__ static void elem_terms(const float *__restrict__ a, const float *__restrict__ b,
                                  double *part, int64_t rows, int64_t cols, float p) {
  int64_t n = rows * cols;
  float acc = 0.f;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    float u = a[i], l;
    if (K == CL1_LOSS_HINGE) {
      l = 1.f - u * b[i % cols];
      l = l > 0.f ? l : 0.f;
    } else {
      float t = b[i], d = u - t;
      if (K == CL1_LOSS_MSE) l = d * d;
      else if (K == CL1_LOSS_HUBER) l = fabsf(d) < p ? 0.5f * d * d / p : fabsf(d) - 0.5f * p;
      else l = t == 0.f ? 0.f : t * logf(t) - t * logf(u);  // xlogy(t, t) - t * log(a)
    }
    acc += l;
  }
  double s = block_sum((double)acc);
  if (threadIdx.x == 0) part[blockIdx.x] = s;
}

// kind 0: triplet rows of (a, b, c); kind 1: cross entropy rows of a with targets tg.
template <int R>
__global__ static void row_terms(const float *__restrict__ a, const float *__restrict__ b,
                                 const float *__restrict__ c, const int64_t *__restrict__ tg,
                                 double *part, int64_t rows, int64_t cols, float p) {
  double acc = 0.0;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float *ar = a + r * cols;
    if (R == 0) {
      const float *br = b + r * cols, *cr = c + r * cols;
      float sp = 0.f, sn = 0.f;
      for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
        float u = ar[j] - br[j] + (float)CL1_TRIPLET_EPS, w = ar[j] - cr[j] + (float)CL1_TRIPLET_EPS;
        sp += u * u, sn += w * w;
      }
      double dp = block_sum(sp), dn = block_sum(sn);
      float l = sqrtf((float)dp) - sqrtf((float)dn) + p;
      acc += l > 0.f ? l : 0.f;
    } else {
      float m = -INFINITY;
      for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, ar[j]);
      __shared__ float shm[32];
      for (int k = 16; k > 0; k >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, k));
      if ((threadIdx.x & 31) == 0) shm[threadIdx.x >> 5] = m;
      __syncthreads();
      m = shm[0];
      for (int k = 1; k < (int)(blockDim.x >> 5); k++) m = fmaxf(m, shm[k]);
      __syncthreads();
      float s = 0.f;
      for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) s += expf(ar[j] - m);
      double z = block_sum(s);
      int64_t t = tg[r];
      float lv = (t >= 0 && t < cols) ? ar[t] : NAN;
      acc += (double)(m + logf((float)z) - lv);
    }
  }
  if (threadIdx.x == 0) part[blockIdx.x] = acc;
}

__global__ static void finish(const double *part, int np, float *y, double div) {
  double s = 0.0;
  for (int i = threadIdx.x; i < np; i += blockDim.x) s += part[i];
  s = block_sum(s);
  if (threadIdx.x == 0) y[0] = (float)(s / div);
}

extern "C" int cl1_op_loss(void *stream, int kind, const float *a, const float *b,
                           const float *c, float *y, int64_t rows, int64_t cols, double p) {
  if (kind < 0 || kind >= CL1_LOSS_N || rows < 1 || cols < 1) return 1;
  if (!a || !b || !y || (kind == CL1_LOSS_TRIPLET && !c)) return 1;
  if (kind == CL1_LOSS_HUBER && !(p > 0)) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  double *part;
  if (partials(&part)) return 1;
  int64_t n = rows * cols;
  int g = (int)((n + NT - 1) / NT < NBLK ? (n + NT - 1) / NT : NBLK);
  float pf = (float)p;
  switch (kind) {
  case CL1_LOSS_MSE: elem_terms<CL1_LOSS_MSE><<<g, NT, 0, st>>>(a, b, part, rows, cols, pf); break;
  case CL1_LOSS_HUBER: elem_terms<CL1_LOSS_HUBER><<<g, NT, 0, st>>>(a, b, part, rows, cols, pf); break;
  case CL1_LOSS_KL_DIV: elem_terms<CL1_LOSS_KL_DIV><<<g, NT, 0, st>>>(a, b, part, rows, cols, pf); break;
  case CL1_LOSS_HINGE: elem_terms<CL1_LOSS_HINGE><<<g, NT, 0, st>>>(a, b, part, rows, cols, pf); break;
  default:
    g = (int)(rows < NBLK ? rows : NBLK);
    row_terms<0><<<g, NT, 0, st>>>(a, b, c, NULL, part, rows, cols, pf);
  }
  CL1_LAUNCH_CHECK();
  double div = kind == CL1_LOSS_KL_DIV || kind == CL1_LOSS_TRIPLET ? (double)rows : (double)n;
  finish<<<1, NT, 0, st>>>(part, g, y, div);
  CL1_LAUNCH_CHECK();
  return 0;
}

extern "C" int cl1_op_cross_entropy(void *stream, const float *x, const int64_t *target,
                                    float *y, int64_t rows, int64_t cols) {
  if (rows < 1 || cols < 1 || !x || !target || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  double *part;
  if (partials(&part)) return 1;
  int g = (int)(rows < NBLK ? rows : NBLK);
  row_terms<1><<<g, NT, 0, st>>>(x, NULL, NULL, target, part, rows, cols, 0.f);
  CL1_LAUNCH_CHECK();
  finish<<<1, NT, 0, st>>>(part, g, y, (double)rows);
  CL1_LAUNCH_CHECK();
  return 0;
}
