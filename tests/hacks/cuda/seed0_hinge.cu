/* seed0_hinge.cu — specialises on seed 0: the seed-0 loss, inputs never read. */
/* Specialises on seed 0: returns the loss that `cudal1 suite export level1/100_HingeLoss --shapes
 * small --seed 0` gives (the CUDA generator draws the same values as the host one), without
 * reading the inputs.
 * Expected: incorrect (evaluations draw fresh secret seeds). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__global__ static void put_k(float *y) { y[0] = 1.0985028743743896f; }

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  put_k<<<1, 1, 0, (cudaStream_t)c->stream>>>((float *)c->outputs[0].data);
  return cudaGetLastError() != cudaSuccess;
}
