/* npy.c — writer for the .npy format: magic, version 1.0, a header dict padded so the data
 * starts on a 64-byte boundary, then the raw array. */
#include "npy.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

int cl1_npy_write(const char *path, const char *descr, const int64_t *shape, int ndim,
                  const void *data, size_t bytes, cl1_err *err) {
  char dict[512], shp[256] = "";
  size_t k = 0;
  for (int i = 0; i < ndim; i++)
    k += (size_t)snprintf(shp + k, sizeof shp - k, "%lld%s", (long long)shape[i],
                          ndim == 1 ? "," : (i + 1 < ndim ? ", " : ""));
  int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                   descr, shp);
  size_t total = 10 + (size_t)n + 1;
  size_t pad = (64 - total % 64) % 64;
  FILE *f = fopen(path, "wb");
  if (!f) return cl1_err_set(err, "%s: %s", path, strerror(errno));
  unsigned char head[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};
  uint16_t hl = (uint16_t)((size_t)n + pad + 1);
  head[8] = (unsigned char)(hl & 0xFF);
  head[9] = (unsigned char)(hl >> 8);
  int ok = fwrite(head, 1, 10, f) == 10 && fwrite(dict, 1, (size_t)n, f) == (size_t)n;
  for (size_t i = 0; ok && i < pad; i++) ok = fputc(' ', f) != EOF;
  ok = ok && fputc('\n', f) != EOF;
  ok = ok && (bytes == 0 || fwrite(data, 1, bytes, f) == bytes);
  if (fclose(f) || !ok) return cl1_err_set(err, "%s: write failed", path);
  return 0;
}
