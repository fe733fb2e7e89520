/* checksum.c — the order-independent word checksum (checksum.h). Its own file, apart from the
 * SHA-256 in hash.c, so the worker program links it without OpenSSL. */
#include "checksum.h"
#include <string.h>

uint64_t cl1_checksum_host(const void *data, size_t bytes) {
  const unsigned char *p = data;
  uint64_t sum = 0;
  size_t nw = bytes / 4, i;
  for (i = 0; i < nw; i++) {
    uint32_t w;
    memcpy(&w, p + 4 * i, 4);
    sum += cl1_mix64(((uint64_t)i << 32) ^ w);
  }
  if (bytes % 4) {
    uint32_t w = 0;
    memcpy(&w, p + 4 * nw, bytes % 4);
    sum += cl1_mix64(((uint64_t)nw << 32) ^ w);
  }
  return sum;
}
