/* ops_misc_e.h — part of the op library API (ops.h includes it); see ops.h for the conventions.
 * Ops first needed by level-1/2 tasks. */
#ifndef CUDAL1_OPS_MISC_E_H
#define CUDAL1_OPS_MISC_E_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
#ifdef __cplusplus
}
#endif
#endif
