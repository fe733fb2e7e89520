/* ops_net_a.h — part of the op library API (ops.h includes it); see ops.h for the conventions.
 * Reserved for ops first needed by level-3 networks (the full-FP32 transposed conv that lived
 * here is cl1_convt_desc.no_tf32 now). */
#ifndef CUDAL1_OPS_NET_A_H
#define CUDAL1_OPS_NET_A_H
#endif
