/* exec_gated.c — the plain form of exec.c: execl("/bin/sh", ...) writing /tmp/cudal1-escape-exec.
 * Expected: rejected:symbol (execl): the gate refuses the import before anything runs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <cudal1/solution.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
  execl("/bin/sh", "sh", "-c", "echo escaped > /tmp/cudal1-escape-exec", (char *)NULL);
  return relu(c);
}
