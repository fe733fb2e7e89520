/* ops_net_c.h — part of the op library API (ops.h includes it); see ops.h for the conventions.
 * Ops first needed by level-3 networks. */
#ifndef CUDAL1_OPS_NET_C_H
#define CUDAL1_OPS_NET_C_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
#ifdef __cplusplus
}
#endif
#endif
