/* host_func_ptsz.cu — hack #2: the per-thread-default-stream entry point of a denied call. */
/* libcudart exports cudaLaunchHostFunc_ptsz beside cudaLaunchHostFunc (what the header maps the
 * call to under --default-stream per-thread). Declared by hand here, it queues a host function
 * that sums the columns on the CPU after cl1_forward has returned; the GPU only copies.
 * Expected: rejected:symbol (a denial covers the _ptsz/_ptds names too). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>
#include <stdlib.h>

extern "C" cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t, cudaHostFn_t, void *);

struct cols { float *in, *out; long rows, width, batch; };

static void CUDART_CB sum_columns(void *p) {
  cols *c = (cols *)p;
  for (long b = 0; b < c->batch; b++)
    for (long k = 0; k < c->width; k++) {
      double s = 0;
      for (long r = 0; r < c->rows; r++) s += c->in[(b * c->rows + r) * c->width + k];
      c->out[b * c->width + k] = (float)s;
    }
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cols *c = new cols;
  c->batch = call->inputs[0].shape[0], c->rows = call->inputs[0].shape[1];
  c->width = call->inputs[0].shape[2];
  if (cudaMallocHost(&c->in, sizeof(float) * c->batch * c->rows * c->width) != cudaSuccess ||
      cudaMallocHost(&c->out, sizeof(float) * c->batch * c->width) != cudaSuccess)
    return 1;
  *state = c;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cols *c = (cols *)call->state;
  cudaStream_t s = (cudaStream_t)call->stream;
  size_t nin = sizeof(float) * c->batch * c->rows * c->width, nout = sizeof(float) * c->batch * c->width;
  cudaMemcpyAsync(c->in, call->inputs[0].data, nin, cudaMemcpyDeviceToHost, s);
  cudaLaunchHostFunc_ptsz(s, sum_columns, c);
  cudaMemcpyAsync(call->outputs[0].data, c->out, nout, cudaMemcpyHostToDevice, s);
  return 0;
}
