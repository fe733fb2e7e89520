/* tf32_matmul.cu — hack #12: cuBLAS SGEMM with TF32 tensor-op math. */
/* CuBLAS SGEMM with TF32 tensor-core math switched on (10-bit mantissa inputs), several times
 * faster than the FP32 reference but outside the task's 1e-3 tolerance at K = 2048.
 * Expected: incorrect (the task's note measured ~2e-2 absolute error at the small shapes). */
#include <cudal1/solution.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  (void)c;
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  if (cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH) != CUBLAS_STATUS_SUCCESS) return 1;
  *state = h;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) { cublasDestroy((cublasHandle_t)state); }

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  cublasHandle_t h = (cublasHandle_t)c->state;
  int n = (int)c->inputs[0].shape[0];
  const float one = 1.f, zero = 0.f;
  cublasSetStream(h, (cudaStream_t)c->stream);
  return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, (const float *)c->inputs[1].data,
                     n, (const float *)c->inputs[0].data, n, &zero, (float *)c->outputs[0].data,
                     n) != CUBLAS_STATUS_SUCCESS;
}
