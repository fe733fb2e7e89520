/* groupnorm_no_affine.cu — hack (issue 18, params with a constant init): GroupNorm that never
 * reads its weight and bias. */
/* level1/35 initialises the affine weight to ones and the bias to zeros for every param seed, so
 * a kernel that only normalises matched every check and saved two reads per element. The judge
 * now draws such params off their init on one check. One block per (sample, group): mean, then
 * variance, then the normalised values. Expected: incorrect. */
#include <cudal1/solution.h>
#include <cuda_runtime.h>
#include <string.h>

__device__ float block_sum(float v, float *part) {
  part[threadIdx.x] = v;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  float s = part[0];
  __syncthreads();
  return s;
}

__global__ void group_norm_plain(const float *x, float *y, long per_group, float eps) {
  __shared__ float part[1024];
  const float *xg = x + blockIdx.x * per_group;
  float *yg = y + blockIdx.x * per_group;
  float s = 0.f;
  for (long i = threadIdx.x; i < per_group; i += blockDim.x) s += xg[i];
  float mean = block_sum(s, part) / per_group;
  float q = 0.f;
  for (long i = threadIdx.x; i < per_group; i += blockDim.x) q += (xg[i] - mean) * (xg[i] - mean);
  float rstd = rsqrtf(block_sum(q, part) / per_group + eps);
  for (long i = threadIdx.x; i < per_group; i += blockDim.x) yg[i] = (xg[i] - mean) * rstd;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  double groups = 0, eps = 1e-5;
  for (int i = 0; i < c->n_attrs; i++) {
    if (!strcmp(c->attrs[i].name, "num_groups")) groups = c->attrs[i].value;
    if (!strcmp(c->attrs[i].name, "eps")) eps = c->attrs[i].value;
  }
  const cl1_tensor *x = &c->inputs[0];
  long n = x->shape[0], ch = x->shape[1], hw = 1;
  for (int d = 2; d < x->ndim; d++) hw *= x->shape[d];
  long g = (long)groups, per_group = ch / g * hw;
  group_norm_plain<<<(unsigned)(n * g), 1024, 0, (cudaStream_t)c->stream>>>(
      (const float *)x->data, (float *)c->outputs[0].data, per_group, (float)eps);
  return cudaGetLastError() != cudaSuccess;
}
