/* norm_common.cuh — what the normalisation/reduction ops (ops_norm.h) share on CUDA: their own
 * scratch slots (cuda_common.cuh's slot enum belongs to other ops) and the Welford/Chan
 * statistics used by batchnorm and groupnorm. */
#ifndef CL1_OPS_NORM_COMMON_CUH
#define CL1_OPS_NORM_COMMON_CUH
#include "cuda_common.cuh"

enum { CL1_NSCRATCH_STATS = 0, CL1_NSCRATCH_NORMALIZE = 1, CL1_NSCRATCH_N = 2 };
/* A device buffer of at least `bytes` for `slot`, kept and grown like cl1_ops_scratch. */
CL1_OPS_INTERNAL int cl1_norm_scratch(int slot, size_t bytes, void **out);

struct cl1_wf { float n, mean, m2; };    // a thread's running (count, mean, M2)
struct cl1_wfd { double n, mean, m2; };  // merged partials

static __device__ __forceinline__ void cl1_wf_push(cl1_wf &a, float v) {
  a.n += 1.f;
  float d = v - a.mean;
  a.mean += d / a.n;
  a.m2 += d * (v - a.mean);
}

/* Chan et al.'s pairwise merge of two (count, mean, M2) summaries. */
template <typename T, typename S>
static __device__ __forceinline__ S cl1_chan(S a, S b) {
  if (a.n == (T)0) return b;
  if (b.n == (T)0) return a;
  T n = a.n + b.n, d = b.mean - a.mean;
  return S{n, a.mean + d * (b.n / n), a.m2 + b.m2 + d * d * (a.n * b.n / n)};
}

/* Statistics of R sets of x, each made of nseg segments of seglen contiguous elements; segment
 * k of set r starts at r * rstride + k * kstride. Values are taken relative to a pivot (the
 * set's first element) so that a large mean costs no float precision. On return stats[r] =
 * {pivot, mean - pivot, 1 / sqrt(biased var + eps), 0}. part: R * nseg * chunks partials, with
 * chunks = cl1_norm_chunks(seglen). */
#define CL1_NORM_THREADS 256
#define CL1_NORM_CHUNK (CL1_NORM_THREADS * 16)  // a multiple of 4 keeps float4 aligned
static inline int64_t cl1_norm_chunks(int64_t seglen) {
  return (seglen + CL1_NORM_CHUNK - 1) / CL1_NORM_CHUNK;
}
CL1_OPS_INTERNAL int cl1_norm_stats(cudaStream_t st, const float *x, int64_t R, int64_t nseg,
                                    int64_t seglen, int64_t rstride, int64_t kstride,
                                    double eps, cl1_wfd *part, float4 *stats);

/* y = ((x - pivot) - (mean - pivot)) * rstd * w[c] + b[c] over planes of hw elements: plane p
 * (p in [0, planes)) has channel c = p % C and statistics stats[(p / sdiv) % smod]. */
CL1_OPS_INTERNAL int cl1_norm_apply(cudaStream_t st, const float *x, const float *w,
                                    const float *b, const float4 *stats, float *y,
                                    int64_t planes, int64_t C, int64_t hw, int64_t sdiv,
                                    int64_t smod);

/* Statistics for sets that are columns rather than runs: x viewed as (n, c * hw); set r is the
 * n x hw block of columns [r * hw, (r + 1) * hw) — BatchNorm over (N, C) or (N, C, short L),
 * where a block per segment would reduce one or a few elements. Blocks of 32 adjacent columns
 * read each row segment coalesced. Same stats[] layout as cl1_norm_stats; part holds at least
 * cl1_norm_col_parts(n, c * hw) entries. */
CL1_OPS_INTERNAL int64_t cl1_norm_col_parts(int64_t n, int64_t cols);
CL1_OPS_INTERNAL int cl1_norm_stats_cols(cudaStream_t st, const float *x, int64_t n, int64_t c,
                                         int64_t hw, double eps, cl1_wfd *part, float4 *stats);

/* Normalisation of R short contiguous sets (len <= CL1_NORM_SHORT elements at r * len), fused:
 * one warp reads its set, reduces (two passes: mean, then squared deviations), and writes y
 * (the re-reads hit L1). Element i of set r takes
 * the affine index (r % wmod) * wmul + i / wdiv: LayerNorm rows are (1, 0, 1), GroupNorm
 * (groups, c/groups, hw). w, b may be NULL. */
#define CL1_NORM_SHORT 1024
CL1_OPS_INTERNAL int cl1_norm_short_sets(cudaStream_t st, const float *x, const float *w,
                                         const float *b, float *y, int64_t R, int64_t len,
                                         int64_t wmod, int64_t wmul, int64_t wdiv, double eps);
#endif
