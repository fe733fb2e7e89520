/* socket.c — opens TCP, UDP, Unix and netlink sockets and a socket pair (to leak data or fetch
 * answers), through libc's socket() and raw syscall(). Expected: crash — seccomp refuses every
 * socket (EPERM). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <cudal1/solution.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/socket.h>

#include "probe_kit.inc" /* inlined by escape_cases.h before evaluation: a solution is one file */

static void probe(const cl1_call *c) {
  (void)c;
  int (*sock)(int, int, int) = (int (*)(int, int, int))resolve("socket");
  if (sock) report("socket(AF_INET, SOCK_STREAM) via libc", sock(AF_INET, SOCK_STREAM, 0));
  report("socket(AF_INET, SOCK_DGRAM)", sys(SYS_socket, AF_INET, SOCK_DGRAM, 0));
  report("socket(AF_INET6, SOCK_STREAM)", sys(SYS_socket, AF_INET6, SOCK_STREAM, 0));
  report("socket(AF_UNIX, SOCK_STREAM)", sys(SYS_socket, AF_UNIX, SOCK_STREAM, 0));
  report("socket(AF_NETLINK, SOCK_RAW)", sys(SYS_socket, AF_NETLINK, SOCK_RAW, 0));
  report("socket(AF_PACKET, SOCK_RAW)", sys(SYS_socket, AF_PACKET, SOCK_RAW, 0));
  int sv[2];
  report("socketpair(AF_UNIX)", sys(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, sv));
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
