/* l3_13_transition_pool_first_wmma_tf32.cu — level3/13_DenseNet121TransitionLayer:
 * y = avg_pool2d(conv1x1(relu(batch_norm(x))), 2, 2), BatchNorm with batch statistics.
 * Techniques:
 *  - algebraic simplification valid for every input: a 1x1 convolution without bias is a
 *    per-pixel linear map over channels and 2x2 average pooling a per-channel linear map over
 *    pixels, so they commute: pool(conv(r)) = conv(pool(r)) (floor mode drops the same odd
 *    row/column either way). Pooling first cuts the GEMM's rows 4x and the conv output (the
 *    reference's largest intermediate, 2x the input) never exists;
 *  - TF32 tensor cores (WMMA m16n16k8): the task's tolerance (5e-3) is sized for TF32 and the
 *    reference's cuDNN convolution uses TF32 too; the FP32 accumulate keeps the error ~1e-4;
 *  - weight pre-transformation in cl1_setup: W (K, C) is transposed, zero-padded to the WMMA
 *    tile (C to 8, K to 16) and rounded to TF32 once per params set;
 *  - fusion: BN statistics take one read of x (a block per (channel, sample) plane, float
 *    partials, double combine, the last block to finish turns them into per-channel scale/shift;
 *    deterministic); a second kernel does BN + ReLU + 2x2 pooling while staging a 128-pixel x C
 *    tile in shared memory, multiplies it by W^T on tensor cores and writes the pooled outputs
 *    coalesced. Two launches, x read twice, the output written once; the reference moves ~6x
 *    more bytes over five kernels. */
#include <cudal1/solution.h>
#include <mma.h>
#include <string.h>

using namespace nvcuda;

#define TP 128            // pooled pixels per CTA: 8 warps x 16 rows
#define LDA (TP + 4)      // A tile, column-major: [c][p]
#define MAXC 32
#define MAXK 64
#define THREADS 256

struct st_t {
  float *wt;        // [CP][KP] = tf32(W^T), zero padded
  float *ss;        // [2][C]: BN scale and shift of the current call
  double2 *part;    // [C][N] plane sums and sums of squares
  unsigned *ticket;
  int N, C, H, W, K, CP, KP;
  float eps;
};

__global__ static void prep_weights(const float *__restrict__ w, float *__restrict__ wt, int C,
                                    int K, int CP, int KP) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= CP * KP) return;
  const int c = i / KP, k = i % KP;
  wt[i] = c < C && k < K ? wmma::__float_to_tf32(w[k * C + c]) : 0.f;
}

// grid (C, N): one plane per block; the last block turns the sums into scale/shift
__global__ static void __launch_bounds__(THREADS)
bn_stats(const float *__restrict__ x, const float *__restrict__ gamma, const float *__restrict__ beta,
         double2 *part, unsigned *ticket, float *ss, int N, int C, long long HW, float eps,
         bool vec) {
  const int c = blockIdx.x, n = blockIdx.y;
  const float *p = x + ((long long)n * C + c) * HW;
  float s = 0.f, q = 0.f;
  if (vec) {
    const float4 *p4 = (const float4 *)p;
    for (long long i = threadIdx.x; i < HW / 4; i += THREADS) {
      const float4 v = __ldg(p4 + i);
      s += (v.x + v.y) + (v.z + v.w);
      q += (v.x * v.x + v.y * v.y) + (v.z * v.z + v.w * v.w);
    }
  } else {
    for (long long i = threadIdx.x; i < HW; i += THREADS) {
      const float v = p[i];
      s += v, q += v * v;
    }
  }
#pragma unroll
  for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(~0u, s, o), q += __shfl_xor_sync(~0u, q, o);
  __shared__ double ws[THREADS / 32], wq[THREADS / 32];
  __shared__ bool last;
  if ((threadIdx.x & 31) == 0) ws[threadIdx.x >> 5] = s, wq[threadIdx.x >> 5] = q;
  __syncthreads();
  if (threadIdx.x == 0) {
    double S = 0, Q = 0;
    for (int w = 0; w < THREADS / 32; w++) S += ws[w], Q += wq[w];
    part[(long long)c * N + n] = make_double2(S, Q);
    __threadfence();
    last = atomicAdd(ticket, 1u) == gridDim.x * gridDim.y - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  const double cnt = (double)N * (double)HW;
  for (int ch = threadIdx.x; ch < C; ch += THREADS) {
    double S = 0, Q = 0;
    for (int i = 0; i < N; i++) {
      const double2 v = __ldcg(part + (long long)ch * N + i);  // L2: other blocks wrote it
      S += v.x, Q += v.y;
    }
    const double mean = S / cnt;
    double var = Q / cnt - mean * mean;
    if (var < 0) var = 0;
    const double sc = (double)gamma[ch] / sqrt(var + (double)eps);
    ss[ch] = (float)sc;
    ss[C + ch] = (float)((double)beta[ch] - mean * sc);
  }
  if (threadIdx.x == 0) *ticket = 0;
}

// grid (ceil(PH*PW / TP), N)
__global__ static void __launch_bounds__(THREADS)
bn_relu_pool_conv(const float *__restrict__ x, const float *__restrict__ wt,
                  const float *__restrict__ ss, float *__restrict__ y, int C, int H, int W, int K,
                  int CP, int KP) {
  __shared__ __align__(128) float sm[MAXK * LDA];  // A [CP][LDA] + B [CP][KP + 4], then C [KP][LDA]
  __shared__ float sc[MAXC], sf[MAXC];
  const int PH = H / 2, PW = W / 2, PP = PH * PW, n = blockIdx.y, p0 = blockIdx.x * TP;
  const int ldb = KP + 4;
  float *As = sm, *Bs = sm + CP * LDA, *Cs = sm;
  if (threadIdx.x < C) sc[threadIdx.x] = ss[threadIdx.x], sf[threadIdx.x] = ss[C + threadIdx.x];
  for (int i = threadIdx.x; i < CP * KP; i += THREADS) Bs[(i / KP) * ldb + i % KP] = wt[i];
  __syncthreads();
  // A[p][c] = mean of relu(bn(x)) over the 2x2 window of pooled pixel p
  for (int e = threadIdx.x; e < CP * TP; e += THREADS) {
    const int c = e / TP, p = e % TP, pp = p0 + p;
    float r = 0.f;
    if (c < C && pp < PP) {
      const int ph = pp / PW, pw = pp % PW;
      const float *b = x + (((long long)n * C + c) * H + 2 * ph) * W + 2 * pw;
      const float s = sc[c], f = sf[c];
      const float v00 = fmaxf(fmaf(__ldg(b), s, f), 0.f), v01 = fmaxf(fmaf(__ldg(b + 1), s, f), 0.f);
      const float v10 = fmaxf(fmaf(__ldg(b + W), s, f), 0.f), v11 = fmaxf(fmaf(__ldg(b + W + 1), s, f), 0.f);
      r = 0.25f * ((v00 + v01) + (v10 + v11));
    }
    As[c * LDA + p] = r;
  }
  __syncthreads();
  const int warp = threadIdx.x >> 5, row0 = warp * 16, nj = KP / 16;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[MAXK / 16];
#pragma unroll
  for (int j = 0; j < MAXK / 16; j++) wmma::fill_fragment(acc[j], 0.f);
  for (int ks = 0; ks < CP / 8; ks++) {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::col_major> a;
    wmma::load_matrix_sync(a, As + ks * 8 * LDA + row0, LDA);
#pragma unroll
    for (int t = 0; t < a.num_elements; t++) a.x[t] = wmma::__float_to_tf32(a.x[t]);
#pragma unroll
    for (int j = 0; j < MAXK / 16; j++)
      if (j < nj) {
        wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b;
        wmma::load_matrix_sync(b, Bs + ks * 8 * ldb + j * 16, ldb);  // already TF32 values
        wmma::mma_sync(acc[j], a, b, acc[j]);
      }
  }
  __syncthreads();  // A and B are dead: the same shared memory takes C
#pragma unroll
  for (int j = 0; j < MAXK / 16; j++)
    if (j < nj) wmma::store_matrix_sync(Cs + j * 16 * LDA + row0, acc[j], LDA, wmma::mem_col_major);
  __syncthreads();
  for (int e = threadIdx.x; e < K * TP; e += THREADS) {
    const int k = e / TP, p = e % TP, pp = p0 + p;
    if (pp < PP) y[((long long)n * K + k) * PP + pp] = Cs[k * LDA + p];
  }
}

CL1_EXPORT void cl1_teardown(void *state) {
  st_t *s = (st_t *)state;
  if (!s) return;
  cudaFree(s->wt), cudaFree(s->ss), cudaFree(s->part), cudaFree(s->ticket);
  delete s;
}

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  if (c->n_inputs != 1 || c->n_params != 3 || c->n_outputs != 1) return 1;
  const cl1_tensor *x = &c->inputs[0], *w = &c->params[2];
  if (x->ndim != 4 || w->ndim != 4 || w->shape[1] != x->shape[1] || w->shape[2] != 1 ||
      w->shape[3] != 1)
    return 1;
  double eps = -1;
  for (int i = 0; i < c->n_attrs; i++)
    if (!strcmp(c->attrs[i].name, "eps")) eps = c->attrs[i].value;
  if (eps < 0) return 1;
  st_t *s = new st_t();
  s->N = (int)x->shape[0], s->C = (int)x->shape[1], s->H = (int)x->shape[2], s->W = (int)x->shape[3];
  s->K = (int)w->shape[0], s->eps = (float)eps;
  s->CP = (s->C + 7) / 8 * 8, s->KP = (s->K + 15) / 16 * 16;
  // the shared-memory tile is sized for C <= 32, K <= 64 (every shape set of the task)
  if (s->CP > MAXC || s->KP > MAXK || s->N > 65535 || s->N < 1) {
    delete s;
    return 1;
  }
  cudaStream_t st = (cudaStream_t)c->stream;
  if (cudaMalloc(&s->wt, sizeof(float) * s->CP * s->KP) != cudaSuccess ||
      cudaMalloc(&s->ss, sizeof(float) * 2 * s->C) != cudaSuccess ||
      cudaMalloc(&s->part, sizeof(double2) * (size_t)s->C * s->N) != cudaSuccess ||
      cudaMalloc(&s->ticket, sizeof(unsigned)) != cudaSuccess ||
      cudaMemsetAsync(s->ticket, 0, sizeof(unsigned), st) != cudaSuccess) {
    cl1_teardown(s);
    return 1;
  }
  prep_weights<<<(s->CP * s->KP + 255) / 256, 256, 0, st>>>((const float *)w->data, s->wt, s->C,
                                                              s->K, s->CP, s->KP);
  if (cudaGetLastError() != cudaSuccess) {
    cl1_teardown(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const st_t *s = (const st_t *)c->state;
  if (!s || c->inputs[0].shape[0] != s->N) return 1;
  const int PH = s->H / 2, PW = s->W / 2;
  const cl1_tensor *Y = &c->outputs[0];
  if (Y->shape[1] != s->K || Y->shape[2] != PH || Y->shape[3] != PW) return 1;
  cudaStream_t st = (cudaStream_t)c->stream;
  const float *x = (const float *)c->inputs[0].data;
  bn_stats<<<dim3(s->C, s->N), THREADS, 0, st>>>(x, (const float *)c->params[0].data,
                                                 (const float *)c->params[1].data, s->part,
                                                 s->ticket, s->ss, s->N, s->C,
                                                 (long long)s->H * s->W, s->eps,
                                                 (s->H * s->W) % 4 == 0 && ((unsigned long long)x & 15) == 0);
  if (PH * PW > 0)
    bn_relu_pool_conv<<<dim3((PH * PW + TP - 1) / TP, s->N), THREADS, 0, st>>>(
        x, s->wt, s->ss, (float *)Y->data, s->C, s->H, s->W, s->K, s->CP, s->KP);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
