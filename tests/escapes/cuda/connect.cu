/* connect.cu — connects to 127.0.0.1:$CUDAL1_ESCAPE_PORT (TCP and UDP; the test listens there
 * and must receive nothing) and sends a message; then tries connect/sendto on every descriptor it
 * already holds, in case one is a socket. Expected: crash — no socket can be made, connect is
 * refused, and the worker holds no socket to reuse. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <cudal1/solution.h>
#include <cuda_runtime.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "probe_kit.inc" /* inlined by escape_cases.h before evaluation: a solution is one file */

static void probe(const cl1_call *c) {
  (void)c;
  char *(*get_env)(const char *) = (char *(*)(const char *))resolve("getenv");
  const char *ps = get_env ? get_env("CUDAL1_ESCAPE_PORT") : NULL;
  unsigned port = ps ? (unsigned)parse_long(ps) : 47391u;
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = (uint16_t)(((port & 0xff) << 8) | (port >> 8)); /* network order, no htons import */
  a.sin_addr.s_addr = 0x0100007fu;                           /* 127.0.0.1 */
  static const char msg[] = "ESCAPE: leaked through the network\n";
  long fd = sys(SYS_socket, AF_INET, SOCK_STREAM, 0);
  report("socket(AF_INET, SOCK_STREAM)", fd);
  if (fd >= 0) {
    long r = sys(SYS_connect, fd, &a, sizeof a);
    report("connect(127.0.0.1) over TCP", r);
    if (r == 0) report("send over TCP", sys(SYS_sendto, fd, msg, sizeof msg - 1, 0, NULL, 0));
  }
  fd = sys(SYS_socket, AF_INET, SOCK_DGRAM, 0);
  report("socket(AF_INET, SOCK_DGRAM)", fd);
  if (fd >= 0) report("sendto(127.0.0.1) over UDP", sys(SYS_sendto, fd, msg, sizeof msg - 1, 0, &a, sizeof a));
  /* any inherited socket? (the harness's descriptors are pipes, a memfd and the log file) */
  int sockets = 0;
  for (int k = 0; k < 256; k++) {
    struct stat st;
    if (sys(SYS_fstat, k, &st) == 0 && S_ISSOCK(st.st_mode)) {
      sockets++;
      report("connect on an inherited socket", sys(SYS_connect, k, &a, sizeof a));
      report("sendto on an inherited socket", sys(SYS_sendto, k, msg, sizeof msg - 1, 0, &a, sizeof a));
    }
  }
  fprintf(stderr, "inherited sockets: %d\n", sockets);
  report("connect(fd 0, 127.0.0.1)", sys(SYS_connect, 0, &a, sizeof a));
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  static int done;
  if (!done) {
    done = 1;
    sys = (syscall_fn)resolve("syscall");
    if (!sys) {
      fprintf(stderr, "resolver failed\n");
      return 2;
    }
    probe(c);
  }
  return finish(c);
}
