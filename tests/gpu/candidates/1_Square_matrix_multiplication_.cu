/* 1_Square_matrix_multiplication_.cu — a correct CUDA candidate for level1/1: cuBLAS SGEMM in
 * full FP32 with a handle made in cl1_setup (row-major C = A B as column-major C^T = B^T A^T). */
#include <cudal1/solution.h>
#include <cublas_v2.h>

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  (void)c;
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  if (cublasSetMathMode(h, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS) {
    cublasDestroy(h);
    return 1;
  }
  *state = h;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  if (state) cublasDestroy((cublasHandle_t)state);
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  cublasHandle_t h = (cublasHandle_t)c->state;
  if (!h || cublasSetStream(h, (cudaStream_t)c->stream) != CUBLAS_STATUS_SUCCESS) return 1;
  int n = (int)c->inputs[0].shape[0];
  const float one = 1.f, zero = 0.f;
  return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one,
                     (const float *)c->inputs[1].data, n, (const float *)c->inputs[0].data, n,
                     &zero, (float *)c->outputs[0].data, n) != CUBLAS_STATUS_SUCCESS;
}
