/* disk_fill_gated.c — the plain form of disk_fill.c: fallocate(1, FALLOC_FL_KEEP_SIZE, 0, 1 GiB)
 * on the stdout log. Expected: rejected:symbol (fallocate): the gate refuses the import before
 * anything runs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <cudal1/solution.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <linux/falloc.h>

static long numel(const cl1_tensor *t) {
  long n = 1;
  for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
  return n;
}

static int relu(const cl1_call *c) {
  const float *x = (const float *)c->inputs[0].data;
  float *y = (float *)c->outputs[0].data;
  for (long i = 0, n = numel(&c->inputs[0]); i < n; i++) y[i] = x[i] > 0.f ? x[i] : 0.f;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  fallocate(1, FALLOC_FL_KEEP_SIZE, 0, 1L << 30);
  return relu(c);
}
