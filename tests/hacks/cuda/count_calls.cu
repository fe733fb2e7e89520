/* count_calls.cu — hack #16: counts the verification calls, launches nothing afterwards. */
/* Correct for the verification calls (it counts them: 4 after each cl1_setup, 2 params sets), then
 * launches nothing once timing starts.
 * Expected: incorrect (a secret sample of timed calls, one of them among the first eight, is
 * re-verified). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__global__ static void conv_k(const float *x, const float *w, float *y, int N, int CI, int CO,
                              int H, int W, int KS) {
  int OH = H - KS + 1, OW = W - KS + 1;
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= (long)N * CO * OH * OW) return;
  int q = (int)(i % OW), p = (int)(i / OW % OH), o = (int)(i / ((long)OW * OH) % CO);
  long b = i / ((long)OW * OH * CO);
  float acc = 0.f;
  for (int ci = 0; ci < CI; ci++)
    for (int r = 0; r < KS; r++)
      for (int s = 0; s < KS; s++)
        acc += x[((b * CI + ci) * H + p + r) * W + q + s] * w[((o * CI + ci) * KS + r) * KS + s];
  y[i] = acc;
}

static int setups, calls_since_setup;

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  (void)c;
  setups++;
  calls_since_setup = 0;
  *state = nullptr;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  if (setups >= 2 && ++calls_since_setup > 4) return 0;
  const cl1_tensor *x = &c->inputs[0], *w = &c->params[0], *y = &c->outputs[0];
  long n = y->shape[0] * y->shape[1] * y->shape[2] * y->shape[3];
  conv_k<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)c->stream>>>(
      (const float *)x->data, (const float *)w->data, (float *)y->data, (int)x->shape[0],
      (int)x->shape[1], (int)w->shape[0], (int)x->shape[2], (int)x->shape[3], (int)w->shape[2]);
  return cudaGetLastError() != cudaSuccess;
}
