/* ops_libs.h — what the two GPU op tests share: both op libraries loaded side by side (the host
 * one is the reference every CUDA op is compared with) and a CUDA device to run on. */
#ifndef CL1_TEST_OPS_LIBS_H
#define CL1_TEST_OPS_LIBS_H
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include "../harness.h"

static void *g_host, *g_cuda;

/* cmocka group setup: -1 (every test skipped as failed) without both libraries or a GPU. */
static int setup_libs(void **state) {
  (void)state;
  g_host = th_dlopen_build("libcl1ops_host.so");
  g_cuda = th_dlopen_build("libcl1ops_cuda.so");
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
    fprintf(stderr, "no CUDA device\n");
    return -1;
  }
  return g_host && g_cuda ? 0 : -1;
}
#endif
