/* cache_by_value.cu — hack #7: replays outputs keyed by 64 sampled input values. */
/* Keys a cache of outputs by 64 sampled input values (not the address) and replays the stored
 * output on a hit.
 * Verification never repeats values except at a new address, where a replay is right; timing
 * rotates two fixed input sets, so every timed call after the first two replays a 16 MB copy
 * instead of a 2048^3 matmul. The honest path is a plain kernel (far slower than cuBLAS) so that
 * an honest measurement is unmistakably below 1x. Expected: pass-slow — a correct evaluator gives
 * timed calls values the candidate has not seen, so the replay never fires; today's judge times
 * the replay. */
#include <cudal1/solution.h>
#include <cuda_runtime.h>
#include <string.h>

#define SAMPLES 32
#define SLOTS 4

__global__ static void gather_k(const float *a, const float *b, long n, float *out) {
  int t = threadIdx.x;
  long step = n / SAMPLES;
  if (t < SAMPLES) out[t] = a[t * step], out[SAMPLES + t] = b[t * step + 1];
}

__global__ static void matmul_k(const float *A, const float *B, float *C, int N) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
  if (j >= N) return;
  double acc = 0;
  for (int k = 0; k < N; k++) acc += (double)A[(long)i * N + k] * B[(long)k * N + j];
  C[(long)i * N + j] = (float)acc;
}

static struct { float key[2 * SAMPLES]; float *val; bool used; } cache[SLOTS];
static unsigned next_slot;
static float *dev_key;

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  cudaStream_t s = (cudaStream_t)c->stream;
  const float *A = (const float *)c->inputs[0].data, *B = (const float *)c->inputs[1].data;
  float *C = (float *)c->outputs[0].data;
  int N = (int)c->inputs[0].shape[0];
  size_t bytes = sizeof(float) * N * N;
  float key[2 * SAMPLES];
  if (!dev_key && cudaMalloc(&dev_key, sizeof key) != cudaSuccess) return 1;
  gather_k<<<1, SAMPLES, 0, s>>>(A, B, (long)N * N, dev_key);
  cudaMemcpyAsync(key, dev_key, sizeof key, cudaMemcpyDeviceToHost, s);
  if (cudaStreamSynchronize(s) != cudaSuccess) return 1;
  for (int i = 0; i < SLOTS; i++)
    if (cache[i].used && !memcmp(cache[i].key, key, sizeof key))
      return cudaMemcpyAsync(C, cache[i].val, bytes, cudaMemcpyDeviceToDevice, s) != cudaSuccess;
  matmul_k<<<dim3((N + 127) / 128, N), 128, 0, s>>>(A, B, C, N);
  unsigned k = next_slot++ % SLOTS;
  if (!cache[k].val && cudaMalloc(&cache[k].val, bytes) != cudaSuccess) return 1;
  memcpy(cache[k].key, key, sizeof key);
  cache[k].used = true;
  return cudaMemcpyAsync(cache[k].val, C, bytes, cudaMemcpyDeviceToDevice, s) != cudaSuccess;
}
