/* ops_convt.h — part of the op library API (ops.h includes it); see ops.h for the conventions. */
#ifndef CUDAL1_OPS_CONVT_H
#define CUDAL1_OPS_CONVT_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
