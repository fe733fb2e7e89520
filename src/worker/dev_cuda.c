/* dev_cuda.c — the CUDA device for workers: the harness stream, events for the timed interval,
 * the L2 flush buffer (2x the L2 size, device memset) and persisting-L2 reset, generation and
 * checksum kernels, CUDA graphs. Plain C over the CUDA runtime API. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dev.h"
#include "dev_cuda_k.h"
#include "../task/gen_cuda.h"

typedef struct {
  cudaStream_t stream;
  cudaEvent_t ev0, ev1;
  void *flushbuf;
  size_t flush_bytes;
  void *scratch;
  double t0;
  int sms;
  size_t hold_smem;  /* shared memory per hold block: all an SM has for one block */
} cuda_impl;

#define CK(call)                                                                        \
  do {                                                                                  \
    cudaError_t e_ = (call);                                                            \
    if (e_ != cudaSuccess)                                                              \
      return cl1_err_set(err, "CUDA: %s: %s", #call, cudaGetErrorString(e_));           \
  } while (0)

static cuda_impl *impl(cl1_dev *d) { return d->impl; }

static int c_alloc(cl1_dev *d, size_t bytes, void **out, cl1_err *err) {
  (void)d;
  cudaError_t e = cudaMalloc(out, bytes ? bytes : 1);
  if (e) return cl1_err_set(err, "CUDA: cannot allocate %zu bytes: %s", bytes, cudaGetErrorString(e));
  return 0;
}
static void c_free(cl1_dev *d, void *p) { (void)d; if (p) cudaFree(p); }

static int c_gen(cl1_dev *d, const cl1_tinst *t, void *dst, uint64_t seed, uint32_t tid,
                 cl1_err *err) {
  int e = cl1_gen_cuda(t, dst, seed, tid, impl(d)->stream);
  if (e) return cl1_err_set(err, "CUDA: generating %s: %s", t->name, cudaGetErrorString((cudaError_t)e));
  return 0;
}
static int c_poison(cl1_dev *d, void *dst, size_t bytes, cl1_err *err) {
  CK(cudaMemsetAsync(dst, 0xFF, bytes, impl(d)->stream));
  return 0;
}
static int c_checksum(cl1_dev *d, const void *p, size_t bytes, uint64_t *out, cl1_err *err) {
  int e = cl1_devk_checksum(p, bytes, impl(d)->scratch, out, impl(d)->stream);
  if (e) return cl1_err_set(err, "CUDA: checksum: %s", cudaGetErrorString((cudaError_t)e));
  return 0;
}
static int c_to_host(cl1_dev *d, void *host, const void *src, size_t bytes, cl1_err *err) {
  CK(cudaMemcpyAsync(host, src, bytes, cudaMemcpyDeviceToHost, impl(d)->stream));
  CK(cudaStreamSynchronize(impl(d)->stream));
  return 0;
}
static int c_sync(cl1_dev *d, cl1_err *err) {
  (void)d;
  CK(cudaDeviceSynchronize());
  CK(cudaGetLastError());
  return 0;
}
static int c_flush(cl1_dev *d, cl1_err *err) {
  cuda_impl *c = impl(d);
  /* persisting lines first become normal ones, so that the read below evicts them too */
  CK(cudaCtxResetPersistingL2Cache());
  int e = cl1_devk_flush_read(c->flushbuf, c->flush_bytes, c->scratch, c->stream);
  if (e) return cl1_err_set(err, "L2 flush: %s", cudaGetErrorString((cudaError_t)e));
  return 0;
}
static int c_begin(cl1_dev *d, cl1_err *err) {
  cuda_impl *c = impl(d);
  CK(cudaDeviceSynchronize());
  c->t0 = cl1_now();
  if (d->hold_us > 0) CK((cudaError_t)cl1_devk_hold(d->hold_us, c->sms, c->hold_smem, c->stream));
  CK(cudaEventRecord(c->ev0, c->stream));
  return 0;
}
static int c_end(cl1_dev *d, double *ev_ms, double *wall_ms, cl1_err *err) {
  cuda_impl *c = impl(d);
  CK(cudaEventRecord(c->ev1, c->stream));
  CK(cudaDeviceSynchronize());
  *wall_ms = (cl1_now() - c->t0) * 1e3;
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, c->ev0, c->ev1));
  *ev_ms = ms;
  return 0;
}
static int c_graph_begin(cl1_dev *d, cl1_err *err) {
  CK(cudaStreamBeginCapture(impl(d)->stream, cudaStreamCaptureModeThreadLocal));
  return 0;
}
static int c_graph_end(cl1_dev *d, void **graph_exec, cl1_err *err) {
  cudaGraph_t g = NULL;
  CK(cudaStreamEndCapture(impl(d)->stream, &g));
  cudaGraphExec_t ge = NULL;
  cudaError_t e = cudaGraphInstantiate(&ge, g, 0);
  cudaGraphDestroy(g);
  if (e) return cl1_err_set(err, "CUDA: graph instantiate: %s", cudaGetErrorString(e));
  *graph_exec = ge;
  return 0;
}
static int c_graph_launch(cl1_dev *d, void *graph_exec, cl1_err *err) {
  CK(cudaGraphLaunch((cudaGraphExec_t)graph_exec, impl(d)->stream));
  return 0;
}
static void c_graph_free(cl1_dev *d, void *graph_exec) {
  (void)d;
  if (graph_exec) cudaGraphExecDestroy((cudaGraphExec_t)graph_exec);
}
static int c_pin(cl1_dev *d, void *host, size_t bytes, cl1_err *err) {
  (void)d;
  CK(cudaHostRegister(host, bytes, cudaHostRegisterDefault));
  return 0;
}
static void c_close(cl1_dev *d) {
  cuda_impl *c = impl(d);
  if (!c) return;
  cudaFree(c->flushbuf);
  cudaFree(c->scratch);
  cudaEventDestroy(c->ev0);
  cudaEventDestroy(c->ev1);
  cudaStreamDestroy(c->stream);
  free(c);
  d->impl = NULL;
}

bool cl1_dev_driver_version(char *out, size_t n) {
  FILE *f = fopen("/proc/driver/nvidia/version", "r");
  out[0] = 0;
  if (!f) return false;
  char line[512];
  /* "NVRM version: NVIDIA UNIX [Open ]Kernel Module for x86_64  580.159.04  Release Build ..."
     the version is the first token that starts with a digit and holds a dot */
  if (fgets(line, sizeof line, f)) {
    char *save = NULL;
    for (char *tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
      if (tok[0] >= '0' && tok[0] <= '9' && strchr(tok, '.')) {
        cl1_strcpy(out, n, tok);
        break;
      }
  }
  fclose(f);
  if (!out[0]) cl1_strcpy(out, n, "version unreadable");
  return true;
}

int cl1_dev_open_cuda(cl1_dev *d, cl1_err *err) {
  memset(d, 0, sizeof *d);
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e || n == 0)
    return cl1_err_set(err, "no CUDA GPU is available (%s); use --device host to run on the CPU",
                       e ? cudaGetErrorString(e) : "0 devices");
  CK(cudaSetDevice(0));
  CK(cudaFree(0));
  cuda_impl *c = calloc(1, sizeof *c);
  if (!c) return cl1_err_set(err, "out of memory");
  d->impl = c;
  d->backend = CL1_BACKEND_CUDA;
  struct cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  cl1_strcpy(d->name, sizeof d->name, p.name);
  if (!cl1_dev_driver_version(d->driver, sizeof d->driver) || !strcmp(d->driver, "version unreadable")) {
    int v = 0;
    cudaDriverGetVersion(&v);
    snprintf(d->driver, sizeof d->driver, "cuda-driver-api %d.%d", v / 1000, (v % 1000) / 10);
  }
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  d->l2_bytes = (size_t)l2;
  CK(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
  CK(cudaEventCreate(&c->ev0));
  CK(cudaEventCreate(&c->ev1));
  d->flush_bytes = c->flush_bytes = 2 * (size_t)l2 + ((size_t)1 << 20);
  snprintf(d->cache_source, sizeof d->cache_source, "cudaDevAttrL2CacheSize");
  CK(cudaMalloc(&c->flushbuf, c->flush_bytes));
  CK(cudaMemset(c->flushbuf, 0, c->flush_bytes));
  CK(cudaMalloc(&c->scratch, 64));
  c->sms = p.multiProcessorCount;
  c->hold_smem = p.sharedMemPerBlockOptin;
  CK((cudaError_t)cl1_devk_hold_prepare(c->hold_smem));
  d->stream = c->stream;
  d->alloc = c_alloc; d->free = c_free; d->gen = c_gen; d->poison = c_poison;
  d->checksum = c_checksum; d->to_host = c_to_host; d->sync = c_sync; d->flush = c_flush;
  d->begin = c_begin; d->end = c_end; d->graph_begin = c_graph_begin;
  d->graph_end = c_graph_end; d->graph_launch = c_graph_launch; d->graph_free = c_graph_free;
  d->pin = c_pin;
  d->close = c_close;
  return 0;
}
