/* conv_graph.cuh — convolutions through cuDNN's graph API with cached execution plans (see
 * conv_graph.cu): the path cl1_op_convnd (forward) and cl1_op_convtnd (backward data) try
 * before the legacy API. */
#ifndef CL1_OPS_CONV_GRAPH_CUH
#define CL1_OPS_CONV_GRAPH_CUH
#include "cudal1/ops.h"
#include "cuda_common.cuh"

#define CL1_CG_MAX 3
/* The forward convolution y = conv(x, w) a call is about, in cuDNN's terms (1-d given as 2-d);
 * a cache key, so unused entries must be zero. */
typedef struct {
  int32_t bwd_data;  /* 0: compute y from x (forward); 1: compute x from y (transposed conv) */
  int32_t nsp, no_tf32;
  int64_t n, c, k, groups;             /* x: (n, c, in...), w: (k, c/groups, ker...), y: (n, k, out...) */
  int64_t in[CL1_CG_MAX], ker[CL1_CG_MAX], out[CL1_CG_MAX];
  int64_t stride[CL1_CG_MAX], pad[CL1_CG_MAX], dil[CL1_CG_MAX];
} cl1_cg_geom;

/* Runs g on the handle bound to the stream (every tensor within INT_MAX elements): forward
 * writes y from x, bwd_data writes x from y. Returns 1 when done, 0 when no graph plan exists
 * for g (the caller takes the legacy path; the miss is cached), -1 on an execution error. */
CL1_OPS_INTERNAL int cl1_conv_graph_run(cudnnHandle_t h, const cl1_cg_geom *g, const float *x,
                                        const float *w, const float *y);
#endif
