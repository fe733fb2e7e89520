/* ops_misc_b.h — part of the op library API (ops.h includes it): ops first needed by level-2
 * tasks; see ops.h for the conventions. */
#ifndef CUDAL1_OPS_MISC_B_H
#define CUDAL1_OPS_MISC_B_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
