/* ops_net.h — part of the op library API (ops.h includes it); see ops.h for the conventions.
 * Data movement that whole networks (level 3) need: concatenation along a dim. */
#ifndef CUDAL1_OPS_NET_H
#define CUDAL1_OPS_NET_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
/* One part of torch.cat along a dim: y[o, offset + i] = x[o, i] for i < inner_x, with every
 * tensor viewed as (outer, inner): outer = product of the dims before the cat dim, inner = cat
 * dim x the dims after it. torch.cat([a, b], dim=1) on (N, Ca, H, W) and (N, Cb, H, W) is two
 * calls: (outer N, inner_x Ca*H*W, offset 0) and (N, Cb*H*W, offset Ca*H*W), inner_y =
 * (Ca+Cb)*H*W. x: (outer, inner_x), y: (outer, inner_y); offset + inner_x <= inner_y. */
int cl1_op_cat_part(void *stream, const float *x, float *y, int64_t outer, int64_t inner_x,
                    int64_t inner_y, int64_t offset);
#ifdef __cplusplus
}
#endif
#endif
