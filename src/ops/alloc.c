/* alloc.c — host memory for references' intermediates and their constant uploads (see ops.h:
 * cl1_op_alloc, cl1_op_upload). */
#include <stdlib.h>
#include <string.h>
#include "cudal1/ops.h"

void *cl1_op_alloc(size_t bytes) {
  void *p = NULL;
  return posix_memalign(&p, 256, bytes ? bytes : 1) ? NULL : p;
}

void cl1_op_free(void *p) { free(p); }

int cl1_op_upload(void *stream, void *dst, const void *src, size_t bytes) {
  (void)stream;
  if (bytes == 0) return 0;
  if (!dst || !src) return 1;
  memcpy(dst, src, bytes);
  return 0;
}

int cl1_ops_preload(void) { return 0; } /* the host ops need nothing loaded ahead */
