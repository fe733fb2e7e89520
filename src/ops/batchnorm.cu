/* batchnorm.cu — CUDA cl1_op_batchnorm_train: channel c's set is the n planes x[s, c, :].
 * Long planes (hw >= CL1_BN_COL_HW) go through the shared chunked Welford statistics
 * (norm_common.cu: segments of hw elements, stride c * hw; at KernelBench 33's large size,
 * 64 x 64 x 512 x 512, 64 sets of 16.7M elements in 4096-element chunks). Short planes — the
 * Gemm_..._BatchNorm tasks normalise (N, C) with hw = 1 — are reduced as columns of an
 * (n, c * hw) matrix, coalesced across adjacent channels, as PyTorch's channels-last statistics
 * kernel does. Then one affine pass. */
#include "cudal1/ops.h"
#include "norm_common.cuh"

#define CL1_BN_COL_HW 256

extern "C" int cl1_op_batchnorm_train(void *stream, const float *x, const float *w,
                                      const float *b, float *y, int64_t n, int64_t c,
                                      int64_t hw, double eps) {
  if (n < 0 || c < 0 || hw < 0 || !(eps >= 0)) return 1;
  if (n * c * hw == 0) return 0;
  if (!x || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  bool cols = hw < CL1_BN_COL_HW;
  int64_t nparts = cols ? cl1_norm_col_parts(n, c * hw) : c * n * cl1_norm_chunks(hw);
  size_t part_bytes = sizeof(cl1_wfd) * (size_t)nparts;
  part_bytes = (part_bytes + 255) & ~(size_t)255;
  void *scratch = nullptr;
  if (cl1_norm_scratch(CL1_NSCRATCH_STATS, part_bytes + sizeof(float4) * (size_t)c, &scratch))
    return 1;
  cl1_wfd *part = (cl1_wfd *)scratch;
  float4 *stats = (float4 *)((char *)scratch + part_bytes);  // (c)
  int rc = cols ? cl1_norm_stats_cols(st, x, n, c, hw, eps, part, stats)
                : cl1_norm_stats(st, x, c, n, hw, hw, c * hw, eps, part, stats);
  if (rc) return 1;
  return cl1_norm_apply(st, x, w, b, stats, y, n * c, c, hw, 1, c);
}
