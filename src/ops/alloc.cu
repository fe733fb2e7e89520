// alloc.cu — device memory for references' intermediates and the host-to-device upload of their
// constants (see ops.h: cl1_op_alloc, cl1_op_upload).
#include <cuda_runtime.h>
#include "cuda_common.cuh"
#include "cudal1/ops.h"

extern "C" void *cl1_op_alloc(size_t bytes) {
  void *p = NULL;
  return cudaMalloc(&p, bytes ? bytes : 1) == cudaSuccess ? p : NULL;
}

extern "C" void cl1_op_free(void *p) {
  if (p) cudaFree(p);
}

extern "C" int cl1_op_upload(void *stream, void *dst, const void *src, size_t bytes) {
  if (bytes == 0) return 0;
  if (!dst || !src) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  CL1_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, st));
  // the caller may free src on return
  CL1_CUDA_TRY(cudaStreamSynchronize(st));
  return 0;
}
