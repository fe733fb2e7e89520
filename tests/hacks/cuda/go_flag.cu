/* go_flag.cu — hack #3: a never-ending persistent kernel does the work when a go flag rises. */
/* Persistent-kernel trick: the first call starts a kernel on a stream of its own that spins on a
 * "go" flag in device memory, does the convolution each time the flag is raised, and never exits,
 * so later calls would cost no launch.
 * Every timed interval ends with a device-wide synchronisation, which waits for that kernel
 * forever: expected timeout (the judge's watchdog ends the worker). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

typedef struct {
  const float *x, *w;
  float *y;
  int n, ci, co, h, wd, ks;
  int go;          /* raised by the host, lowered by the kernel when the job is done */
} job;

__global__ static void persistent_conv_k(volatile job *j) {
  for (;;) {
    if (threadIdx.x == 0)
      while (j->go == 0) {
      }
    __syncthreads();
    int oh = j->h - j->ks + 1, ow = j->wd - j->ks + 1;
    long total = (long)j->n * j->co * oh * ow;
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < total;
         i += (long)gridDim.x * blockDim.x) {
      int q = (int)(i % ow), p = (int)(i / ow % oh), o = (int)(i / ((long)ow * oh) % j->co);
      long b = i / ((long)ow * oh * j->co);
      float acc = 0.f;
      for (int ci = 0; ci < j->ci; ci++)
        for (int r = 0; r < j->ks; r++)
          for (int s = 0; s < j->ks; s++)
            acc += j->x[((b * j->ci + ci) * j->h + p + r) * j->wd + q + s] *
                   j->w[((o * j->ci + ci) * j->ks + r) * j->ks + s];
      j->y[i] = acc;
    }
    __syncthreads();
    if (threadIdx.x == 0 && blockIdx.x == 0) j->go = 0;
  }
}

static job *dev_job;
static cudaStream_t side;

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  if (!dev_job) {
    if (cudaMalloc(&dev_job, sizeof(job)) != cudaSuccess ||
        cudaMemset(dev_job, 0, sizeof(job)) != cudaSuccess ||
        cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) != cudaSuccess)
      return 1;
    persistent_conv_k<<<1, 256, 0, side>>>(dev_job);
  }
  static job host_job;
  const cl1_tensor *x = &c->inputs[0], *w = &c->params[0];
  host_job = job{(const float *)x->data, (const float *)w->data, (float *)c->outputs[0].data,
                 (int)x->shape[0], (int)x->shape[1], (int)w->shape[0], (int)x->shape[2],
                 (int)x->shape[3], (int)w->shape[2], 1};
  return cudaMemcpyAsync(dev_job, &host_job, sizeof(job), cudaMemcpyHostToDevice,
                         (cudaStream_t)c->stream) != cudaSuccess;
}
