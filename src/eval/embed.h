/* embed.h — one task instance for a program that brings its own memory: tools/suite_gpu.py
 * drives it through ctypes (build/libcudal1.so) to check every CUDA reference against its
 * PyTorch twin and to time both in one process, with no .npy round trip (the large shape sets
 * hold up to 16 GB per task). Inputs and params come from the task's generator, so the values
 * are those every evaluation uses. The reference is trusted code and runs in the caller's
 * process. Plain C types only, for ctypes. */
#ifndef CL1_EMBED_H
#define CL1_EMBED_H
#include <stddef.h>
#include <stdint.h>

typedef struct cl1_embed cl1_embed;

/* Loads task (id or folder) at shapes "test"|"small"|"large", compiles its reference for
 * backend "host"|"cuda" (compile cache as `cudal1 eval`) and opens the device. NULL on error,
 * with the reason in err[cap]. */
cl1_embed *cl1_embed_open(const char *task, const char *shapes, const char *backend, char *err,
                          size_t cap);
/* The instance as JSON (owned by e): task, shapes, dims, attrs, atol, rtol, and inputs, params,
 * outputs as [{name, dtype, shape, bytes}]. */
const char *cl1_embed_describe(const cl1_embed *e);
/* Fills dst (device memory on cuda, host memory on host; bytes as described) with tensor idx
 * of group 0 = inputs, 1 = params from seed; synchronous. The suite's rule, as `suite export`:
 * params use seed, inputs seed + 1. */
int cl1_embed_gen(cl1_embed *e, int group, int idx, void *dst, uint64_t seed);
/* Binds params and outputs (arrays of n_params / n_outputs pointers) and the stream the
 * reference runs on (NULL: the device's own stream), then runs cl1_setup (inputs carry shapes
 * only, as in the worker). Any earlier state is torn down first. */
int cl1_embed_setup(cl1_embed *e, void *const *params, void *const *outputs, void *stream);
/* One cl1_forward on inputs (n_inputs pointers), asynchronous on the bound stream. */
int cl1_embed_forward(cl1_embed *e, void *const *inputs);
/* Waits for the device; reports a sticky device error. */
int cl1_embed_sync(cl1_embed *e);
/* Device memory (host memory on the host backend) for callers without an allocator of their
 * own (cudal1 suite audit), and copies of it to host memory. */
int cl1_embed_alloc(cl1_embed *e, size_t bytes, void **out);
void cl1_embed_free(cl1_embed *e, void *p);
int cl1_embed_to_host(cl1_embed *e, void *host, const void *src, size_t bytes);
/* The instance itself, for C callers. */
struct cl1_inst;
const struct cl1_inst *cl1_embed_inst(const cl1_embed *e);
/* The last error's sentence ("" if none). */
const char *cl1_embed_error(const cl1_embed *e);
void cl1_embed_close(cl1_embed *e);
#endif
