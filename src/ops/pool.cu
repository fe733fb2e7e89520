/* pool.cu — CUDA cl1_op_pool: N-d max/average pooling, one thread per output element in a
 * grid-stride loop, as PyTorch's own CUDA pooling kernels (it does not use cuDNN for eager
 * pooling, and cuDNN has no dilation). The spatial dims are brought to a 3-d normal form
 * (size-1 leading dims, 1-wide windows); indices are 32-bit when every offset fits, else 64-bit
 * (task 45's input has 2^32 elements). Float accumulation for the average, as PyTorch. */
#include <math.h>
#include "cudal1/ops.h"
#include "cuda_common.cuh"

namespace {

struct geom {
  int64_t in[3], out[3], k[3], s[3], p[3], dl[3];
  int count_include_pad;
};

// Output index -> one value. I: the index type; every offset into x and y fits in it.
template <int KIND, typename I>
__global__ void pool_kernel(const float *__restrict__ x, float *__restrict__ y, I total,
                            geom g) {
  const I in0 = (I)g.in[0], in1 = (I)g.in[1], in2 = (I)g.in[2];
  const I out0 = (I)g.out[0], out1 = (I)g.out[1], out2 = (I)g.out[2];
  for (I idx = (I)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (I)gridDim.x * blockDim.x) {
    I c = idx % out2, r = idx / out2;
    I b = r % out1;
    r /= out1;
    I a = r % out0, pl = r / out0;
    const float *xp = x + pl * (in0 * in1 * in2);
    I st[3] = {a * (I)g.s[0] - (I)g.p[0], b * (I)g.s[1] - (I)g.p[1], c * (I)g.s[2] - (I)g.p[2]};
    I lo[3], hi[3], padded = 1;
    const I ins[3] = {in0, in1, in2};
#pragma unroll
    for (int d = 0; d < 3; d++) {
      I dl = (I)g.dl[d], end = st[d] + ((I)g.k[d] - 1) * dl + 1;
      I pend = end < ins[d] + (I)g.p[d] ? end : ins[d] + (I)g.p[d];
      padded *= pend - st[d];
      lo[d] = st[d] < 0 ? st[d] + ((-st[d] + dl - 1) / dl) * dl : st[d];
      hi[d] = end < ins[d] ? end : ins[d];
    }
    float acc = KIND == CL1_POOL_MAX ? -INFINITY : 0.f;
    I cnt = 0;
    for (I i0 = lo[0]; i0 < hi[0]; i0 += (I)g.dl[0])
      for (I i1 = lo[1]; i1 < hi[1]; i1 += (I)g.dl[1]) {
        const float *row = xp + (i0 * in1 + i1) * in2;
        for (I i2 = lo[2]; i2 < hi[2]; i2 += (I)g.dl[2]) {
          float v = __ldg(row + i2);
          if (KIND == CL1_POOL_MAX) {
            if (v > acc || isnan(v)) acc = v;
          } else {
            acc += v;
          }
          cnt++;
        }
      }
    if (KIND == CL1_POOL_AVG) acc /= (float)(g.count_include_pad ? padded : cnt);
    y[idx] = acc;
  }
}

template <int KIND, typename I>
int launch(cudaStream_t st, const float *x, float *y, int64_t total, const geom &g) {
  const int block = 256;
  pool_kernel<KIND, I><<<cl1_ops_grid(total, block), block, 0, st>>>(x, y, (I)total, g);
  CL1_LAUNCH_CHECK();
  return 0;
}

}  // namespace

extern "C" int cl1_op_pool(void *stream, int kind, const float *x, float *y,
                           const cl1_pool_desc *d) {
  if (cl1_pool_desc_check(kind, d)) return 1;
  geom g;
  for (int i = 0; i < 3; i++)
    g.in[i] = g.out[i] = g.k[i] = g.s[i] = g.dl[i] = 1, g.p[i] = 0;
  int off = 3 - d->nsp;
  for (int i = 0; i < d->nsp; i++) {
    g.in[off + i] = d->in[i], g.out[off + i] = d->out[i], g.k[off + i] = d->k[i];
    g.s[off + i] = d->stride[i], g.p[off + i] = d->pad[i], g.dl[off + i] = d->dil[i];
  }
  g.count_include_pad = d->count_include_pad;
  int64_t in_n = d->planes * g.in[0] * g.in[1] * g.in[2];
  int64_t total = d->planes * g.out[0] * g.out[1] * g.out[2];
  if (total == 0) return 0;
  if (!x || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  // 32-bit math when every index, offset and padded coordinate (plus a grid stride) fits.
  const int64_t lim = (1LL << 31) - 1 - 65535LL * 32 * 256;
  bool small = in_n < lim && total < lim;
  for (int i = 0; i < 3; i++)
    small = small && g.out[i] * g.s[i] + g.k[i] * g.dl[i] + g.p[i] < lim;
  if (kind == CL1_POOL_MAX)
    return small ? launch<CL1_POOL_MAX, int32_t>(st, x, y, total, g)
                 : launch<CL1_POOL_MAX, int64_t>(st, x, y, total, g);
  return small ? launch<CL1_POOL_AVG, int32_t>(st, x, y, total, g)
               : launch<CL1_POOL_AVG, int64_t>(st, x, y, total, g);
}
