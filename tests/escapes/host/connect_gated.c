/* connect_gated.c — the plain form of connect.c: socket + connect to 127.0.0.1:47391 and send.
 * Expected: rejected:symbol (socket): the gate refuses the import before anything runs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <cudal1/solution.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
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
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons(47391);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0) send(s, "leak", 4, 0);
  return relu(c);
}
