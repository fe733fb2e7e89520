/* hash.c — SHA-256 via OpenSSL's EVP interface (the word checksum is checksum.c). */
#include "hash.h"
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

struct cl1_sha { EVP_MD_CTX *ctx; };

cl1_sha *cl1_sha_new(void) {
  cl1_sha *h = malloc(sizeof *h);
  if (!h) return NULL;
  h->ctx = EVP_MD_CTX_new();
  if (!h->ctx || EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1) {
    EVP_MD_CTX_free(h->ctx);
    free(h);
    return NULL;
  }
  return h;
}

void cl1_sha_add(cl1_sha *h, const void *data, size_t n) { EVP_DigestUpdate(h->ctx, data, n); }
void cl1_sha_add_str(cl1_sha *h, const char *s) { cl1_sha_add(h, s, strlen(s) + 1); }

void cl1_sha_hex(cl1_sha *h, char out[65]) {
  unsigned char md[32];
  unsigned int n = 0;
  EVP_DigestFinal_ex(h->ctx, md, &n);
  EVP_MD_CTX_free(h->ctx);
  free(h);
  for (unsigned i = 0; i < 32; i++) {
    static const char hx[] = "0123456789abcdef";
    out[2 * i] = hx[md[i] >> 4];
    out[2 * i + 1] = hx[md[i] & 15];
  }
  out[64] = 0;
}
