/* checksum.h — the order-independent 64-bit checksum the workers use to detect writes to inputs
 * and params (computed on the host here and by a GPU kernel in src/worker/dev_cuda_k.cu). */
#ifndef CL1_CHECKSUM_H
#define CL1_CHECKSUM_H
#include <stddef.h>
#include <stdint.h>

/* Checksum of a byte buffer: sum over 4-byte words w_i of mix(w_i, i). The same function is
 * computed by a GPU kernel (src/worker/dev_cuda_k.cu); a tail shorter than 4 bytes is zero-padded. */
static inline uint64_t cl1_mix64(uint64_t x) {
  x ^= x >> 33; x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}
uint64_t cl1_checksum_host(const void *data, size_t bytes);

#endif
