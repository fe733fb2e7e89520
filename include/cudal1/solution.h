/* cudal1 solution ABI, version 1 — the only header a solution includes.
 * Public contract (see docs/abi.md): prompts show it to models, users write against it.
 * Change it only through an issue that says so. */
#ifndef CUDAL1_SOLUTION_H
#define CUDAL1_SOLUTION_H

#include <stddef.h>
#include <stdint.h>

#define CL1_ABI_VERSION 1
#define CL1_MAX_DIMS 8

#ifdef __cplusplus
#define CL1_EXPORT extern "C" __attribute__((visibility("default")))
#else
#define CL1_EXPORT __attribute__((visibility("default")))
#endif

typedef enum {
  CL1_F32 = 0, CL1_F16 = 1, CL1_BF16 = 2, CL1_F64 = 3,
  CL1_I32 = 4, CL1_I64 = 5, CL1_U8 = 6, CL1_BOOL = 7
} cl1_dtype;

typedef struct {
  void   *data;                  /* device pointer (host pointer on the host backend) */
  int32_t dtype;                 /* a cl1_dtype */
  int32_t ndim;
  int64_t shape[CL1_MAX_DIMS];
  int64_t stride[CL1_MAX_DIMS];  /* in elements; the harness passes contiguous row-major tensors */
} cl1_tensor;

typedef struct { const char *name; double value; } cl1_attr;

typedef struct {
  int32_t n_inputs;  const cl1_tensor *inputs;   /* per call: new values AND new addresses each call */
  int32_t n_params;  const cl1_tensor *params;   /* weights: fixed between cl1_setup and cl1_teardown */
  int32_t n_outputs; const cl1_tensor *outputs;  /* preallocated by the harness, poisoned before each call */
  int32_t n_attrs;   const cl1_attr   *attrs;    /* task hyperparameters by name (eps, stride, ...) */
  void   *workspace; size_t workspace_bytes;     /* scratch device memory; contents undefined */
  void   *stream;                                /* a cudaStream_t; NULL on the host backend */
  void   *state;                                 /* what cl1_setup stored, else NULL */
} cl1_call;

/* Required. Compute outputs from inputs and params. All device work must be ordered on `stream`
   or joined to it before return (events/cudaStreamWaitEvent). Returns 0 on success. */
CL1_EXPORT int  cl1_forward(const cl1_call *call);

/* Optional. Called once per params set before any cl1_forward; input tensors carry shapes but
   data == NULL. May create library handles, allocate, and pre-transform params into *state. */
CL1_EXPORT int  cl1_setup(const cl1_call *call, void **state);

/* Optional. Releases what cl1_setup made. */
CL1_EXPORT void cl1_teardown(void *state);

#endif
