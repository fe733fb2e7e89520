/* net_c_view.c — host references for cl1_op_view_copy and cl1_op_view_binary: an odometer walk
 * over the view's index space, operands read through their strides. */
#include "cudal1/ops.h"
#include "host_common.h"

/* 0 when ndim and every size are valid; *n = the element count. */
static int view_check(int32_t ndim, const int64_t *shape, int64_t *n) {
  if (ndim < 1 || ndim > CL1_VIEW_MAX_DIMS || !shape) return 1;
  *n = 1;
  for (int32_t k = 0; k < ndim; k++) {
    if (shape[k] < 0) return 1;
    *n *= shape[k];
  }
  return 0;
}

int cl1_op_view_copy(void *stream, const float *x, float *y, int32_t ndim, const int64_t *shape,
                     const int64_t *xstride) {
  (void)stream;
  int64_t n;
  if (view_check(ndim, shape, &n) || !xstride) return 1;
  if (n == 0) return 0;
  if (!x || !y) return 1;
  int64_t idx[CL1_VIEW_MAX_DIMS] = {0}, off = 0;
  for (int64_t i = 0; i < n; i++) {
    y[i] = x[off];
    for (int32_t k = ndim - 1; k >= 0; k--) {  // advance the odometer, keeping off in step
      off += xstride[k];
      if (++idx[k] < shape[k]) break;
      off -= xstride[k] * shape[k];
      idx[k] = 0;
    }
  }
  return 0;
}

int cl1_op_view_binary(void *stream, cl1_binary_kind kind, const float *x, const int64_t *xstride,
                       const float *z, const int64_t *zstride, float *y, int32_t ndim,
                       const int64_t *shape) {
  (void)stream;
  int64_t n;
  if ((unsigned)kind >= CL1_BINARY_N || view_check(ndim, shape, &n) || !xstride || !zstride)
    return 1;
  if (n == 0) return 0;
  if (!x || !z || !y) return 1;
  int64_t idx[CL1_VIEW_MAX_DIMS] = {0}, ox = 0, oz = 0;
  for (int64_t i = 0; i < n; i++) {
    double u = x[ox], v = z[oz];
    double r = kind == CL1_BINARY_ADD ? u + v : kind == CL1_BINARY_SUB ? u - v
             : kind == CL1_BINARY_MUL ? u * v : u / v;
    y[i] = (float)r;
    for (int32_t k = ndim - 1; k >= 0; k--) {
      ox += xstride[k], oz += zstride[k];
      if (++idx[k] < shape[k]) break;
      ox -= xstride[k] * shape[k], oz -= zstride[k] * shape[k];
      idx[k] = 0;
    }
  }
  return 0;
}
