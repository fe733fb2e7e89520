/* leftover_memory.cu — hack #5 (Sakana L1/15): allocates an output-sized buffer in cl1_setup
 * and copies it to the output without computing, hoping the allocator hands back memory that
 * still holds an earlier (reference) result. Expected: incorrect (separate processes; poisoned
 * outputs). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

static long numel(const cl1_tensor *t) {
  long n = 1;
  for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
  return n;
}

typedef struct { float *buf; size_t bytes; } st;

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  static st s;
  s.bytes = (size_t)numel(&c->outputs[0]) * sizeof(float);
  if (cudaMalloc(&s.buf, s.bytes) != cudaSuccess) return 1;
  *state = &s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) { cudaFree(((st *)state)->buf); }

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  st *s = (st *)c->state;
  return cudaMemcpyAsync(c->outputs[0].data, s->buf, s->bytes, cudaMemcpyDeviceToDevice,
                         (cudaStream_t)c->stream) != cudaSuccess;
}
