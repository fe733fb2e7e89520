/* dev_host.c — the host (CPU) device: plain memory, the host generator, a write of twice the
 * last-level cache for the flush (capped: llc.h), and the wall clock for both timer readings. */
#include "dev.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../base/checksum.h"
#include "../base/llc.h"

typedef struct { double t0; unsigned char *flushbuf; size_t flush_bytes; } host_impl;

static int h_alloc(cl1_dev *d, size_t bytes, void **out, cl1_err *err) {
  (void)d;
  if (posix_memalign(out, 256, bytes ? bytes : 1))
    return cl1_err_set(err, "host: cannot allocate %zu bytes", bytes);
  return 0;
}
static void h_free(cl1_dev *d, void *p) { (void)d; free(p); }
static int h_gen(cl1_dev *d, const cl1_tinst *t, void *dst, uint64_t seed, uint32_t tid,
                 cl1_err *err) {
  (void)d; (void)err;
  cl1_gen_host(t, dst, seed, tid);
  return 0;
}
static int h_poison(cl1_dev *d, void *dst, size_t bytes, cl1_err *err) {
  (void)d; (void)err;
  memset(dst, 0xFF, bytes); /* NaN for every float type, -1 for ints */
  return 0;
}
static int h_checksum(cl1_dev *d, const void *p, size_t bytes, uint64_t *out, cl1_err *err) {
  (void)d; (void)err;
  *out = cl1_checksum_host(p, bytes);
  return 0;
}
static int h_to_host(cl1_dev *d, void *host, const void *src, size_t bytes, cl1_err *err) {
  (void)d; (void)err;
  memcpy(host, src, bytes);
  return 0;
}
static int h_sync(cl1_dev *d, cl1_err *err) { (void)d; (void)err; return 0; }
static int h_flush(cl1_dev *d, cl1_err *err) {
  (void)err;
  host_impl *h = d->impl;
  memset(h->flushbuf, (int)(h->flushbuf[0] + 1), h->flush_bytes);
  return 0;
}
static int h_begin(cl1_dev *d, cl1_err *err) {
  (void)err;
  ((host_impl *)d->impl)->t0 = cl1_now();
  return 0;
}
static int h_end(cl1_dev *d, double *ev_ms, double *wall_ms, cl1_err *err) {
  (void)err;
  double t = (cl1_now() - ((host_impl *)d->impl)->t0) * 1e3;
  *ev_ms = t;
  *wall_ms = t;
  return 0;
}
static void h_close(cl1_dev *d) {
  host_impl *h = d->impl;
  if (h) free(h->flushbuf);
  free(h);
  d->impl = NULL;
}

int cl1_dev_open_host(cl1_dev *d, cl1_err *err) {
  memset(d, 0, sizeof *d);
  host_impl *h = calloc(1, sizeof *h);
  if (!h) return cl1_err_set(err, "host: out of memory");
  /* sysfs, not sysconf alone: glibc's figure was 10x the real cache on a VM (llc.h) */
  cl1_llc llc;
  cl1_llc_read(NULL, &llc);
  d->l2_bytes = llc.bytes;
  d->flush_bytes = h->flush_bytes = llc.flush_bytes;
  snprintf(d->cache_source, sizeof d->cache_source, "%s", llc.source);
  h->flushbuf = calloc(1, h->flush_bytes);
  if (!h->flushbuf) { free(h); return cl1_err_set(err, "host: out of memory"); }
  d->backend = CL1_BACKEND_HOST;
  snprintf(d->name, sizeof d->name, "host CPU");
  d->impl = h;
  d->alloc = h_alloc; d->free = h_free; d->gen = h_gen; d->poison = h_poison;
  d->checksum = h_checksum; d->to_host = h_to_host; d->sync = h_sync; d->flush = h_flush;
  d->begin = h_begin; d->end = h_end; d->close = h_close;
  return 0;
}

int cl1_dev_open(cl1_backend b, cl1_dev *d, cl1_err *err) {
  return b == CL1_BACKEND_CUDA ? cl1_dev_open_cuda(d, err) : cl1_dev_open_host(d, err);
}
