/* hash.h — content hashes (SHA-256 through OpenSSL) for the compile cache and the store, and the
 * order-independent 64-bit checksum used to detect writes to inputs and params. */
#ifndef CL1_HASH_H
#define CL1_HASH_H
#include <stddef.h>
#include <stdint.h>

typedef struct cl1_sha cl1_sha;
cl1_sha *cl1_sha_new(void);
void cl1_sha_add(cl1_sha *h, const void *data, size_t n);
void cl1_sha_add_str(cl1_sha *h, const char *s); /* adds the string and its terminating NUL */
void cl1_sha_hex(cl1_sha *h, char out[65]);      /* finishes and frees h */

/* Checksum of a byte buffer: sum over 4-byte words w_i of mix(w_i, i). The same function is
 * computed by a GPU kernel (src/eval/dev_cuda_k.cu); a tail shorter than 4 bytes is zero-padded. */
static inline uint64_t cl1_mix64(uint64_t x) {
  x ^= x >> 33; x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}
uint64_t cl1_checksum_host(const void *data, size_t bytes);

#endif
