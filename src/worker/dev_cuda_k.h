/* dev_cuda_k.h — the worker's own CUDA kernels (dev_cuda_k.cu), callable from C. */
#ifndef CL1_DEV_CUDA_K_H
#define CL1_DEV_CUDA_K_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
/* The checksum of cl1_checksum_host (base/checksum.h) over device memory; result copied to *out.
 * scratch: 8 bytes of device memory. Returns a cudaError_t value (0 = success). */
int cl1_devk_checksum(const void *p, size_t bytes, void *scratch, uint64_t *out, void *stream);
/* Evicts L2 by reading bytes of buf (all zeros) through it: the cache ends up holding clean
 * lines, so the timed call that follows pays no write-back of the flush's own data (a memset
 * flush leaves ~L2-size of dirty lines whose write-back lands inside the timed call, and how
 * much of it overlaps the call varies from process to process). sink: 16 bytes. */
int cl1_devk_flush_read(const void *buf, size_t bytes, void *sink, void *stream);
/* The GPU-exclusive hold before a timed call (one block per SM with smem bytes of shared memory
 * each, spinning for us microseconds); prepare once to allow that much shared memory. */
int cl1_devk_hold_prepare(size_t smem);
int cl1_devk_hold(double us, int sms, size_t smem, void *stream);
#ifdef __cplusplus
}
#endif
#endif
