/* copy_common.h — shape simplification shared by the host and CUDA strided copy: size-1 dims
 * are dropped and neighbouring dims that are contiguous in both x and y are merged, so that the
 * copy loops over as few dims as possible (a transpose(1, 2) of (B, T, H, D) becomes 3 dims). */
#ifndef CL1_OPS_COPY_COMMON_H
#define CL1_OPS_COPY_COMMON_H
#include <stdint.h>

/* Validates and simplifies (nd, shape, xs, ys) into (*ond, os, oxs, oys) (arrays of
 * CL1_COPY_MAX_DIMS). Returns 1 on invalid arguments, 0 otherwise; *numel gets the element
 * count (0: nothing to copy). xs or ys NULL = contiguous. */
static inline int cl1_copy_simplify(int nd, const int64_t *shape, const int64_t *xs,
                                    const int64_t *ys, int *ond, int64_t *os, int64_t *oxs,
                                    int64_t *oys, int64_t *numel) {
  if (nd < 1 || nd > 8 || !shape) return 1;
  int64_t n = 1, cs[8];
  for (int d = nd - 1; d >= 0; d--) {
    if (shape[d] < 0 || (xs && xs[d] < 0) || (ys && ys[d] < 0)) return 1;
    cs[d] = n;
    n *= shape[d];
  }
  *numel = n;
  int k = 0;
  for (int d = 0; d < nd; d++) {
    if (shape[d] == 1) continue;
    int64_t xd = xs ? xs[d] : cs[d], yd = ys ? ys[d] : cs[d];
    if (k > 0 && oxs[k - 1] == xd * shape[d] && oys[k - 1] == yd * shape[d]) {
      os[k - 1] *= shape[d], oxs[k - 1] = xd, oys[k - 1] = yd;
      continue;
    }
    os[k] = shape[d], oxs[k] = xd, oys[k] = yd, k++;
  }
  if (k == 0) os[0] = 1, oxs[0] = 0, oys[0] = 0, k = 1;
  *ond = k;
  return 0;
}
#endif
