/* 23_Softmax.cu — a correct, fast CUDA candidate for level1/23_Softmax. Rows are split into
 * chunks of 4096 so that even 16 rows fill the GPU: kernel 1 writes a (max, sum exp) pair per
 * chunk (online, one exp per element), kernel 2 merges the row's pairs and writes its chunk. The
 * pair buffer is allocated in cl1_setup from the input shape. */
#include <cudal1/solution.h>
#include <math.h>

#define THREADS 256
#define CHUNK 4096

struct pair { float m, s; };
struct st_t { pair *part; long long rows, chunks; };

static __device__ __forceinline__ pair merge(pair a, pair b) {
  float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return pair{m, 0.f};
  return pair{m, (a.s > 0.f ? a.s * __expf(a.m - m) : 0.f) + (b.s > 0.f ? b.s * __expf(b.m - m) : 0.f)};
}

static __device__ pair block_merge(pair v) {
  __shared__ pair sh[THREADS / 32];
  for (int o = 16; o; o >>= 1)
    v = merge(v, pair{__shfl_xor_sync(~0u, v.m, o), __shfl_xor_sync(~0u, v.s, o)});
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < THREADS / 32 ? sh[threadIdx.x] : pair{-INFINITY, 0.f};
    for (int o = 16; o; o >>= 1)
      v = merge(v, pair{__shfl_xor_sync(~0u, v.m, o), __shfl_xor_sync(~0u, v.s, o)});
    if (threadIdx.x == 0) sh[0] = v;
  }
  __syncthreads();
  return sh[0];
}

// grid: (chunks, rows)
__global__ static void partial(const float *__restrict__ x, pair *__restrict__ part, long long cols,
                               bool vec) {
  long long row = blockIdx.y, c0 = (long long)blockIdx.x * CHUNK;
  long long c1 = c0 + CHUNK < cols ? c0 + CHUNK : cols;
  const float *xr = x + row * cols;
  pair a{-INFINITY, 0.f};
  auto push = [&](float v) {
    if (v <= a.m) a.s += __expf(v - a.m);
    else a.s = a.s * __expf(a.m - v) + 1.f, a.m = v;
  };
  if (vec) {
    for (long long i = c0 / 4 + threadIdx.x; i < c1 / 4; i += THREADS) {
      float4 v = ((const float4 *)xr)[i];
      push(v.x), push(v.y), push(v.z), push(v.w);
    }
  } else {
    for (long long i = c0 + threadIdx.x; i < c1; i += THREADS) push(xr[i]);
  }
  pair t = block_merge(a);
  if (threadIdx.x == 0) part[row * gridDim.x + blockIdx.x] = t;
}

__global__ static void finish(const float *__restrict__ x, const pair *__restrict__ part,
                              float *__restrict__ y, long long cols, bool vec) {
  long long row = blockIdx.y, c0 = (long long)blockIdx.x * CHUNK;
  long long c1 = c0 + CHUNK < cols ? c0 + CHUNK : cols;
  pair a{-INFINITY, 0.f};
  for (unsigned k = threadIdx.x; k < gridDim.x; k += THREADS) a = merge(a, part[row * gridDim.x + k]);
  pair t = block_merge(a);
  float inv = 1.f / t.s;
  const float *xr = x + row * cols;
  float *yr = y + row * cols;
  if (vec) {
    for (long long i = c0 / 4 + threadIdx.x; i < c1 / 4; i += THREADS) {
      float4 v = ((const float4 *)xr)[i];
      v.x = __expf(v.x - t.m) * inv, v.y = __expf(v.y - t.m) * inv;
      v.z = __expf(v.z - t.m) * inv, v.w = __expf(v.w - t.m) * inv;
      ((float4 *)yr)[i] = v;
    }
  } else {
    for (long long i = c0 + threadIdx.x; i < c1; i += THREADS) yr[i] = __expf(xr[i] - t.m) * inv;
  }
}

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  st_t *s = new st_t;
  s->rows = c->inputs[0].shape[0];
  s->chunks = (c->inputs[0].shape[1] + CHUNK - 1) / CHUNK;
  if (s->rows > 65535 || cudaMalloc(&s->part, sizeof(pair) * s->rows * s->chunks) != cudaSuccess) {
    delete s;
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  st_t *s = (st_t *)state;
  if (!s) return;
  cudaFree(s->part);
  delete s;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  st_t *s = (st_t *)c->state;
  long long rows = c->inputs[0].shape[0], cols = c->inputs[0].shape[1];
  if (!s || rows != s->rows || (cols + CHUNK - 1) / CHUNK != s->chunks) return 1;
  const float *x = (const float *)c->inputs[0].data;
  float *y = (float *)c->outputs[0].data;
  bool vec = cols % 4 == 0 && (((unsigned long long)x | (unsigned long long)y) & 15) == 0;
  dim3 grid((unsigned)s->chunks, (unsigned)rows);
  cudaStream_t st = (cudaStream_t)c->stream;
  partial<<<grid, THREADS, 0, st>>>(x, s->part, cols, vec);
  finish<<<grid, THREADS, 0, st>>>(x, s->part, y, cols, vec);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
