/* 40_LayerNorm.cu — a correct, fast CUDA candidate for level1/40 (16 rows of 4M elements).
 * Kernel 1: every 8192-element chunk of a row writes (sum, sum of squares) of x - shift in
 * double, shift = the row's first element, so the moments do not cancel for large means.
 * Kernel 2: each block reduces its row's chunk moments (a few KB, L2-resident) to mean/rstd and
 * normalises its chunk with the affine weight and bias. Two reads of x, one write of y. */
#include <cudal1/solution.h>
#include <string.h>

#define THREADS 256
#define CHUNK 8192

struct st_t { double2 *part; long long rows, chunks; };

static __device__ double2 block_sum2(double2 v) {
  __shared__ double2 sh[THREADS / 32];
  for (int o = 16; o; o >>= 1)
    v.x += __shfl_xor_sync(~0u, v.x, o), v.y += __shfl_xor_sync(~0u, v.y, o);
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < THREADS / 32 ? sh[threadIdx.x] : make_double2(0, 0);
    for (int o = 16; o; o >>= 1)
      v.x += __shfl_xor_sync(~0u, v.x, o), v.y += __shfl_xor_sync(~0u, v.y, o);
    if (threadIdx.x == 0) sh[0] = v;
  }
  __syncthreads();
  return sh[0];
}

// grid: (chunks, rows)
__global__ static void moments(const float *__restrict__ x, double2 *__restrict__ part,
                               long long cols, bool vec) {
  long long row = blockIdx.y, c0 = (long long)blockIdx.x * CHUNK;
  long long c1 = c0 + CHUNK < cols ? c0 + CHUNK : cols;
  const float *xr = x + row * cols;
  float shift = xr[0], s = 0.f, q = 0.f;  // per thread: at most 32 elements, float is enough
  if (vec) {
    for (long long i = c0 / 4 + threadIdx.x; i < c1 / 4; i += THREADS) {
      float4 v = ((const float4 *)xr)[i];
      float a = v.x - shift, b = v.y - shift, c = v.z - shift, d = v.w - shift;
      s += (a + b) + (c + d), q += (a * a + b * b) + (c * c + d * d);
    }
  } else {
    for (long long i = c0 + threadIdx.x; i < c1; i += THREADS) {
      float a = xr[i] - shift;
      s += a, q += a * a;
    }
  }
  double2 t = block_sum2(make_double2(s, q));
  if (threadIdx.x == 0) part[row * gridDim.x + blockIdx.x] = t;
}

__global__ static void normalise(const float *__restrict__ x, const float *__restrict__ w,
                                 const float *__restrict__ b, const double2 *__restrict__ part,
                                 float *__restrict__ y, long long cols, double eps, bool vec) {
  long long row = blockIdx.y, c0 = (long long)blockIdx.x * CHUNK;
  long long c1 = c0 + CHUNK < cols ? c0 + CHUNK : cols;
  double2 a = make_double2(0, 0);
  for (unsigned k = threadIdx.x; k < gridDim.x; k += THREADS) {
    double2 p = part[row * gridDim.x + k];
    a.x += p.x, a.y += p.y;
  }
  double2 t = block_sum2(a);
  const float *xr = x + row * cols;
  double dm = t.x / (double)cols, var = t.y / (double)cols - dm * dm;
  float mean = (float)(dm + xr[0]), rstd = (float)rsqrt((var > 0 ? var : 0) + eps);
  float *yr = y + row * cols;
  if (vec) {
    for (long long i = c0 / 4 + threadIdx.x; i < c1 / 4; i += THREADS) {
      float4 v = ((const float4 *)xr)[i], g = ((const float4 *)w)[i], h = ((const float4 *)b)[i];
      v.x = (v.x - mean) * rstd * g.x + h.x, v.y = (v.y - mean) * rstd * g.y + h.y;
      v.z = (v.z - mean) * rstd * g.z + h.z, v.w = (v.w - mean) * rstd * g.w + h.w;
      ((float4 *)yr)[i] = v;
    }
  } else {
    for (long long i = c0 + threadIdx.x; i < c1; i += THREADS)
      yr[i] = (xr[i] - mean) * rstd * w[i] + b[i];
  }
}

static long long cols_of(const cl1_call *c) {
  long long n = 1;
  for (int d = 0; d < c->params[0].ndim; d++) n *= c->params[0].shape[d];
  return n;
}

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  st_t *s = new st_t;
  s->rows = c->inputs[0].shape[0];
  s->chunks = (cols_of(c) + CHUNK - 1) / CHUNK;
  if (s->rows > 65535 || cudaMalloc(&s->part, sizeof(double2) * s->rows * s->chunks) != cudaSuccess) {
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
  long long cols = cols_of(c);
  if (!s || c->inputs[0].shape[0] != s->rows || (cols + CHUNK - 1) / CHUNK != s->chunks) return 1;
  double eps = 1e-5;
  for (int i = 0; i < c->n_attrs; i++)
    if (!strcmp(c->attrs[i].name, "eps")) eps = c->attrs[i].value;
  const float *x = (const float *)c->inputs[0].data, *w = (const float *)c->params[0].data,
              *b = (const float *)c->params[1].data;
  float *y = (float *)c->outputs[0].data;
  bool vec = cols % 4 == 0 &&
             (((unsigned long long)x | (unsigned long long)y | (unsigned long long)w |
               (unsigned long long)b) & 15) == 0;
  dim3 grid((unsigned)s->chunks, (unsigned)s->rows);
  cudaStream_t st = (cudaStream_t)c->stream;
  moments<<<grid, THREADS, 0, st>>>(x, s->part, cols, vec);
  normalise<<<grid, THREADS, 0, st>>>(x, w, b, s->part, y, cols, eps, vec);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
