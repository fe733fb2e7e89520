/* hash.h — content hashes (SHA-256 through OpenSSL) for the compile cache and the store. */
#ifndef CL1_HASH_H
#define CL1_HASH_H
#include <stddef.h>
#include <stdint.h>

typedef struct cl1_sha cl1_sha;
cl1_sha *cl1_sha_new(void);
void cl1_sha_add(cl1_sha *h, const void *data, size_t n);
void cl1_sha_add_str(cl1_sha *h, const char *s); /* adds the string and its terminating NUL */
void cl1_sha_hex(cl1_sha *h, char out[65]);      /* finishes and frees h */

#endif
