/* groupnorm.cu — CUDA cl1_op_groupnorm: the set of (sample, group) r is one contiguous run of
 * c/groups * hw elements at r * c/groups * hw, reduced by the shared chunked Welford statistics
 * (norm_common.cu), then one per-channel affine pass (plane p = s * c + ch uses set p / cg).
 * InstanceNorm is groups == c. Short sets (GroupNorm after a GEMM: hw = 1, c/groups channels)
 * take the fused warp-per-set kernel instead: a block per set of a few dozen elements, then a
 * block per one-element plane, was 6-29x slower than PyTorch. */
#include "cudal1/ops.h"
#include "norm_common.cuh"

extern "C" int cl1_op_groupnorm(void *stream, const float *x, const float *w, const float *b,
                                float *y, int64_t n, int64_t c, int64_t hw, int64_t groups,
                                double eps) {
  if (n < 0 || c < 0 || hw < 0 || groups <= 0 || c % groups || !(eps >= 0)) return 1;
  if (n * c * hw == 0) return 0;
  if (!x || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  int64_t cg = c / groups, len = cg * hw, R = n * groups;
  if (len <= CL1_NORM_SHORT) return cl1_norm_short_sets(st, x, w, b, y, R, len, groups, cg, hw, eps);
  size_t part_bytes = sizeof(cl1_wfd) * (size_t)(R * cl1_norm_chunks(len));
  part_bytes = (part_bytes + 255) & ~(size_t)255;
  void *scratch = nullptr;
  if (cl1_norm_scratch(CL1_NSCRATCH_STATS, part_bytes + sizeof(float4) * (size_t)R, &scratch))
    return 1;
  cl1_wfd *part = (cl1_wfd *)scratch;
  float4 *stats = (float4 *)((char *)scratch + part_bytes);  // (n * groups)
  if (cl1_norm_stats(st, x, R, 1, len, len, 0, eps, part, stats)) return 1;
  return cl1_norm_apply(st, x, w, b, stats, y, n * c, c, hw, cg, R);
}
