/* constant_from_synthetic.cu — hack #9/#15: an input-blind constant computed in cl1_setup. */
/* Level2/96's output does not depend on its input within tolerance, so cl1_setup runs the task's
 * own op-library pipeline once on made-up normal(0,1) inputs, keeps the per-channel batch mean,
 * and every call broadcasts it without reading the 25 MB input.
 * The task carries a degenerate note (output independent of the inputs). Each call takes a few
 * microseconds where moving the task's declared bytes takes at least ~5 us at peak bandwidth:
 * expected hack:below_roofline (hack #9 caught by the #15 defence; a correct evaluator could also
 * fail it as incorrect on inputs off the task's own distribution). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>
#include <cuda_runtime.h>
#include <stdlib.h>

__device__ static float unit(unsigned long long z) { /* splitmix64 -> (0, 1) */
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return ((float)(z >> 40) + 0.5f) / 16777216.f;
}

__global__ static void normal_k(float *x, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) x[i] = sqrtf(-2.f * logf(unit(2 * i))) * cospif(2.f * unit(2 * i + 1));
}

__global__ static void broadcast_k(const float *per_channel, float *y, int N, int C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N * C) y[i] = per_channel[i % C];
}

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  const cl1_tensor *x = &c->inputs[0], *w = &c->params[0], *b = &c->params[1];
  double stride, pad, pk, scale;
  if (cl1_op_attr(c, "stride", &stride) || cl1_op_attr(c, "padding", &pad) ||
      cl1_op_attr(c, "maxpool_kernel_size", &pk) || cl1_op_attr(c, "scale", &scale))
    return 1;
  cl1_convt_desc d = {};
  d.nd = 3, d.n = x->shape[0], d.c_in = x->shape[1], d.c_out = w->shape[1], d.groups = 1;
  cl1_pool_desc p = {};
  p.nsp = 3, p.planes = d.n * d.c_out;
  long nx = d.n * d.c_in, cn = p.planes, pn = p.planes;
  for (int i = 0; i < 3; i++) {
    d.in[i] = x->shape[2 + i], d.k[i] = w->shape[2 + i];
    d.stride[i] = (int64_t)stride, d.pad[i] = (int64_t)pad, d.out_pad[i] = 0, d.dil[i] = 1;
    nx *= d.in[i];
  }
  if (cl1_convt_check(&d)) return 1;
  for (int i = 0; i < 3; i++) {
    p.in[i] = cl1_convt_out(&d, i), p.k[i] = p.stride[i] = (int64_t)pk, p.dil[i] = 1;
    p.out[i] = cl1_pool_out_len(p.in[i], p.k[i], p.stride[i], 0, 1, 0);
    cn *= p.in[i], pn *= p.out[i];
  }
  if (cl1_pool_desc_check(CL1_POOL_MAX, &p)) return 1;
  float *xs, *conv, *pool, *ys, *per_channel;
  if (cudaMalloc(&xs, sizeof(float) * nx) || cudaMalloc(&conv, sizeof(float) * cn) ||
      cudaMalloc(&pool, sizeof(float) * pn) || cudaMalloc(&ys, sizeof(float) * p.planes) ||
      cudaMalloc(&per_channel, sizeof(float) * d.c_out))
    return 1;
  normal_k<<<(unsigned)((nx + 255) / 256), 256>>>(xs, nx);
  int64_t sp = p.out[0] * p.out[1] * p.out[2];
  int rc = cl1_op_convtnd(NULL, xs, (const float *)w->data, (const float *)b->data, conv, &d);
  if (!rc) rc = cl1_op_unary(NULL, CL1_UNARY_MUL_SCALAR, conv, conv, cn, scale, 0);
  if (!rc) rc = cl1_op_pool(NULL, CL1_POOL_MAX, conv, pool, &p);
  if (!rc) rc = cl1_op_reduce(NULL, CL1_REDUCE_MEAN, pool, ys, p.planes, sp, 1);
  if (!rc) rc = cl1_op_unary(NULL, CL1_UNARY_HARDTANH, ys, ys, p.planes, 0.0, 1.0);
  float *h = (float *)malloc(sizeof(float) * p.planes), *m = (float *)calloc(d.c_out, sizeof(float));
  if (!rc && h && m && cudaMemcpy(h, ys, sizeof(float) * p.planes, cudaMemcpyDeviceToHost) == cudaSuccess) {
    for (long i = 0; i < p.planes; i++) m[i % d.c_out] += h[i] / (float)d.n;
    rc = cudaMemcpy(per_channel, m, sizeof(float) * d.c_out, cudaMemcpyHostToDevice) != cudaSuccess;
  } else {
    rc = 1;
  }
  free(h), free(m);
  cudaFree(xs), cudaFree(conv), cudaFree(pool), cudaFree(ys);
  *state = per_channel;
  return rc;
}

CL1_EXPORT void cl1_teardown(void *state) { cudaFree(state); }

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  int N = (int)c->outputs[0].shape[0], C = (int)c->outputs[0].shape[1];
  broadcast_k<<<(N * C + 255) / 256, 256, 0, (cudaStream_t)c->stream>>>(
      (const float *)c->state, (float *)c->outputs[0].data, N, C);
  return cudaGetLastError() != cudaSuccess;
}
