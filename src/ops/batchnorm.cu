/* batchnorm.cu — CUDA cl1_op_batchnorm_train: channel c's set is the n planes x[s, c, :]
 * (segments of hw elements, stride c * hw), reduced by the shared chunked Welford statistics
 * (norm_common.cu) in double partials, then one affine pass. At KernelBench 33's large size
 * (64 x 64 x 512 x 512) that is 64 sets of 16.7M elements split into 4096-element chunks. */
#include "cudal1/ops.h"
#include "norm_common.cuh"

extern "C" int cl1_op_batchnorm_train(void *stream, const float *x, const float *w,
                                      const float *b, float *y, int64_t n, int64_t c,
                                      int64_t hw, double eps) {
  if (n < 0 || c < 0 || hw < 0 || !(eps >= 0)) return 1;
  if (n * c * hw == 0) return 0;
  if (!x || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  size_t part_bytes = sizeof(cl1_wfd) * (size_t)(c * n * cl1_norm_chunks(hw));
  part_bytes = (part_bytes + 255) & ~(size_t)255;
  void *scratch = nullptr;
  if (cl1_norm_scratch(CL1_NSCRATCH_STATS, part_bytes + sizeof(float4) * (size_t)c, &scratch))
    return 1;
  cl1_wfd *part = (cl1_wfd *)scratch;
  float4 *stats = (float4 *)((char *)scratch + part_bytes);  // (c)
  if (cl1_norm_stats(st, x, c, n, hw, hw, c * hw, eps, part, stats)) return 1;
  return cl1_norm_apply(st, x, w, b, stats, y, n * c, c, hw, 1, c);
}
