/* alloc.c — host memory for references' intermediates (see ops.h: cl1_op_alloc). */
#include <stdlib.h>
#include "cudal1/ops.h"

void *cl1_op_alloc(size_t bytes) {
  void *p = NULL;
  return posix_memalign(&p, 256, bytes ? bytes : 1) ? NULL : p;
}

void cl1_op_free(void *p) { free(p); }
