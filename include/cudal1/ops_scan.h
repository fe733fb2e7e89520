/* ops_scan.h — part of the op library API (ops.h includes it); see ops.h for the conventions. */
#ifndef CUDAL1_OPS_SCAN_H
#define CUDAL1_OPS_SCAN_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
