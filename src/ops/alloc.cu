// alloc.cu — device memory for references' intermediates (see ops.h: cl1_op_alloc).
#include <cuda_runtime.h>
#include "cudal1/ops.h"

extern "C" void *cl1_op_alloc(size_t bytes) {
  void *p = NULL;
  return cudaMalloc(&p, bytes ? bytes : 1) == cudaSuccess ? p : NULL;
}

extern "C" void cl1_op_free(void *p) {
  if (p) cudaFree(p);
}
