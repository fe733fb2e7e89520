/* l3_17_fire_two_streams.cu — level3/17_SqueezeNetFireModule:
 * s = relu(conv1x1(x)); y = cat([relu(conv1x1(s)), relu(conv3x3(s, pad 1))], dim 1).
 * Technique: independent work split over two streams and joined back with events, plus fusion.
 * After the squeeze conv (on the harness stream) an event releases a second stream, created in
 * cl1_setup, which runs the expand-1x1 branch while the harness stream runs the expand-3x3
 * branch; the harness stream then waits on the second stream's event, so all work is ordered
 * before cl1_forward returns (and inside the timed interval). Each branch writes its ReLU'd
 * channels straight into its half of the concatenated output (bias and ReLU fused, no
 * torch.cat copy): the reference writes both branch outputs to scratch, ReLUs them in place and
 * copies them into y — about 5x the 257 MB output in traffic, over seven launches. A thread
 * owns one pixel and 16 output channels (weights per block in shared memory, FP32 FMAs). */
#include <cudal1/solution.h>

#define THREADS 256
#define KG 16
#define MAXS 16

struct st_t {
  float *sq;  // (N, S, H, W) squeeze activations
  cudaStream_t side;
  cudaEvent_t ev_sq, ev_e1;
  int N, C, H, W, S, E1, E3;
};

// sq[n, j, p] = relu(b[j] + sum_c w[j, c] x[n, c, p]); grid (ceil(HW / THREADS), N)
__global__ static void __launch_bounds__(THREADS)
squeeze(const float *__restrict__ x, const float *__restrict__ w, const float *__restrict__ b,
        float *__restrict__ sq, int C, int S, long long HW) {
  const long long p = blockIdx.x * (long long)THREADS + threadIdx.x;
  if (p >= HW) return;
  const int n = blockIdx.y;
  const float *xn = x + (long long)n * C * HW + p;
  float acc[MAXS];
#pragma unroll
  for (int j = 0; j < MAXS; j++) acc[j] = j < S ? __ldg(b + j) : 0.f;
  for (int c = 0; c < C; c++) {
    const float v = __ldg(xn + c * HW);
#pragma unroll
    for (int j = 0; j < MAXS; j++)
      if (j < S) acc[j] = fmaf(v, __ldg(w + j * C + c), acc[j]);
  }
  float *o = sq + (long long)n * S * HW + p;
#pragma unroll
  for (int j = 0; j < MAXS; j++)
    if (j < S) o[j * HW] = fmaxf(acc[j], 0.f);
}

// y[n, off + k, h, w] = relu(b[k] + sum_{j, r, s} w[k, j, r, s] sq[n, j, h + r - pad, w + s - pad])
// for R = S = 1 (pad 0) or 3 (pad 1); grid (ceil(HW / THREADS), ceil(E / KG), N)
template <int R>
__global__ static void __launch_bounds__(THREADS)
expand(const float *__restrict__ sq, const float *__restrict__ w, const float *__restrict__ b,
       float *__restrict__ y, int S, int H, int W, int E, int Ctot, int off) {
  extern __shared__ float4 smem4[];
  float *ws = (float *)smem4;  // [S][R][R][KG]
  const int k0 = blockIdx.y * KG, n = blockIdx.z, taps = S * R * R;
  for (int i = threadIdx.x; i < taps * KG; i += THREADS) {
    const int kk = i % KG, t = i / KG;
    ws[i] = k0 + kk < E ? w[(long long)(k0 + kk) * taps + t] : 0.f;
  }
  __syncthreads();
  const long long HW = (long long)H * W;
  const long long p = blockIdx.x * (long long)THREADS + threadIdx.x;
  if (p >= HW) return;
  const int h = (int)(p / W), wc = (int)(p % W);
  float acc[KG];
#pragma unroll
  for (int k = 0; k < KG; k++) acc[k] = k0 + k < E ? __ldg(b + k0 + k) : 0.f;
  const float *sn = sq + (long long)n * S * HW;
  const float4 *wj = (const float4 *)ws;
  for (int j = 0; j < S; j++)
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
      for (int s = 0; s < R; s++, wj += KG / 4) {
        const int ih = h + r - R / 2, iw = wc + s - R / 2;
        const float v = ih >= 0 && ih < H && iw >= 0 && iw < W ? __ldg(sn + j * HW + (long long)ih * W + iw) : 0.f;
#pragma unroll
        for (int q = 0; q < KG / 4; q++) {
          const float4 f = wj[q];
          acc[4 * q] = fmaf(v, f.x, acc[4 * q]), acc[4 * q + 1] = fmaf(v, f.y, acc[4 * q + 1]);
          acc[4 * q + 2] = fmaf(v, f.z, acc[4 * q + 2]), acc[4 * q + 3] = fmaf(v, f.w, acc[4 * q + 3]);
        }
      }
  float *o = y + ((long long)n * Ctot + off + k0) * HW + p;
#pragma unroll
  for (int k = 0; k < KG; k++)
    if (k0 + k < E) __stcs(o + k * HW, fmaxf(acc[k], 0.f));
}

CL1_EXPORT void cl1_teardown(void *state) {
  st_t *s = (st_t *)state;
  if (!s) return;
  if (s->sq) cudaFree(s->sq);
  if (s->ev_sq) cudaEventDestroy(s->ev_sq);
  if (s->ev_e1) cudaEventDestroy(s->ev_e1);
  if (s->side) cudaStreamDestroy(s->side);
  delete s;
}

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  if (c->n_inputs != 1 || c->n_params != 6 || c->n_outputs != 1) return 1;
  const cl1_tensor *x = &c->inputs[0], *p = c->params;
  if (x->ndim != 4 || p[0].ndim != 4 || p[2].ndim != 4 || p[4].ndim != 4) return 1;
  st_t *s = new st_t();
  s->N = (int)x->shape[0], s->C = (int)x->shape[1], s->H = (int)x->shape[2], s->W = (int)x->shape[3];
  s->S = (int)p[0].shape[0], s->E1 = (int)p[2].shape[0], s->E3 = (int)p[4].shape[0];
  const cl1_tensor *y = &c->outputs[0];
  if (p[0].shape[1] != s->C || p[2].shape[1] != s->S || p[4].shape[1] != s->S ||
      p[2].shape[2] != 1 || p[4].shape[2] != 3 || p[4].shape[3] != 3 || s->S > MAXS ||
      s->N > 65535 || y->shape[1] != s->E1 + s->E3 || y->shape[2] != s->H || y->shape[3] != s->W) {
    delete s;
    return 1;
  }
  if (cudaMalloc(&s->sq, sizeof(float) * (size_t)s->N * s->S * s->H * s->W) != cudaSuccess ||
      cudaStreamCreateWithFlags(&s->side, cudaStreamNonBlocking) != cudaSuccess ||
      cudaEventCreateWithFlags(&s->ev_sq, cudaEventDisableTiming) != cudaSuccess ||
      cudaEventCreateWithFlags(&s->ev_e1, cudaEventDisableTiming) != cudaSuccess) {
    cl1_teardown(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  st_t *s = (st_t *)c->state;
  if (!s || c->inputs[0].shape[0] != s->N) return 1;
  const long long HW = (long long)s->H * s->W;
  if (HW == 0 || s->N == 0) return 0;
  cudaStream_t st = (cudaStream_t)c->stream;
  const float *x = (const float *)c->inputs[0].data;
#define P(i) ((const float *)c->params[i].data)
  float *y = (float *)c->outputs[0].data;
  const unsigned gx = (unsigned)((HW + THREADS - 1) / THREADS);
  const int Ctot = s->E1 + s->E3;
  squeeze<<<dim3(gx, s->N), THREADS, 0, st>>>(x, P(0), P(1), s->sq, s->C, s->S, HW);
  if (cudaGetLastError() != cudaSuccess || cudaEventRecord(s->ev_sq, st) != cudaSuccess ||
      cudaStreamWaitEvent(s->side, s->ev_sq, 0) != cudaSuccess)
    return 1;
  // expand 1x1 on the second stream, expand 3x3 on the harness stream, concurrently
  expand<1><<<dim3(gx, (s->E1 + KG - 1) / KG, s->N), THREADS, sizeof(float) * s->S * KG, s->side>>>(
      s->sq, P(2), P(3), y, s->S, s->H, s->W, s->E1, Ctot, 0);
  const cudaError_t e1 = cudaGetLastError();
  const cudaError_t r1 = cudaEventRecord(s->ev_e1, s->side);
  expand<3><<<dim3(gx, (s->E3 + KG - 1) / KG, s->N), THREADS, sizeof(float) * s->S * 9 * KG, st>>>(
      s->sq, P(4), P(5), y, s->S, s->H, s->W, s->E3, Ctot, s->E1);
  const cudaError_t e3 = cudaGetLastError();
  // join: nothing on the harness stream after this point starts before the 1x1 branch ends
  const cudaError_t j = cudaStreamWaitEvent(st, s->ev_e1, 0);
#undef P
  return e1 != cudaSuccess || r1 != cudaSuccess || e3 != cudaSuccess || j != cudaSuccess;
}
