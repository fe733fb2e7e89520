/* proto.c — framing for the judge/worker pipes (see proto.h). */
#include "proto.h"
#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int write_all(int fd, const void *buf, size_t n) {
  const char *p = buf;
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

int cl1_proto_send(int fd, uint32_t type, const char *json, cl1_err *err) {
  size_t len = json ? strlen(json) : 0;
  if (len > CL1_PROTO_MAX) return cl1_err_set(err, "protocol: frame of %zu bytes too large", len);
  assert(json || !len);
  uint32_t hdr[3] = {CL1_PROTO_MAGIC, type, (uint32_t)len};
  /* One write for the whole frame, so a reader rarely sees half of one. */
  char stackbuf[4096], *buf = len + 12 <= sizeof stackbuf ? stackbuf : malloc(len + 12);
  if (!buf) return cl1_err_set(err, "protocol: out of memory");
  memcpy(buf, hdr, 12);
  if (len) memcpy(buf + 12, json, len);
  int rc = write_all(fd, buf, len + 12);
  if (buf != stackbuf) free(buf);
  if (rc) return cl1_err_set(err, "protocol: write failed: %s", strerror(errno));
  return 0;
}

/* Reads exactly n bytes before the deadline. 0 ok, -1 EOF/error, -2 timeout. */
static int read_exact(int fd, void *buf, size_t n, double deadline_ms, size_t *got) {
  char *p = buf;
  *got = 0;
  while (*got < n) {
    int wait = -1;
    if (deadline_ms >= 0) {
      double now = cl1_now() * 1e3;
      if (now >= deadline_ms) return -2;
      wait = (int)(deadline_ms - now) + 1;
    }
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    int pr = poll(&pfd, 1, wait);
    if (pr < 0 && errno == EINTR) continue;
    if (pr < 0) return -1;
    if (pr == 0) continue; /* re-check the deadline */
    ssize_t r = read(fd, p + *got, n - *got);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (r <= 0) return -1;
    *got += (size_t)r;
    assert(*got <= n); /* read() never returns more than asked */
  }
  return 0;
}

int cl1_proto_spin(int fd, double spin_ms) {
  double end = cl1_now() + spin_ms * 1e-3;
  do {
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    if (poll(&pfd, 1, 0) > 0) return 1;
  } while (cl1_now() < end);
  return 0;
}

int cl1_proto_recv(int fd, int timeout_ms, uint32_t *type, char **json, cl1_err *err) {
  *json = NULL;
  double deadline = timeout_ms < 0 ? -1 : cl1_now() * 1e3 + timeout_ms;
  uint32_t hdr[3];
  size_t got;
  int rc = read_exact(fd, hdr, sizeof hdr, deadline, &got);
  if (rc == -2 && got == 0) return -2;
  if (rc == -2) { /* a header already begun: give the rest the payload's grace period */
    size_t more = 0;
    rc = read_exact(fd, (char *)hdr + got, sizeof hdr - got, cl1_now() * 1e3 + CL1_PROTO_PAYLOAD_MS,
                    &more);
    got += more;
  }
  if (rc == -2) return cl1_err_set(err, "protocol: truncated frame header (%zu of 12 bytes)", got);
  assert(rc != 0 || got == sizeof hdr);
  if (rc) {
    if (got == 0) return cl1_err_set(err, "protocol: peer closed the pipe");
    return cl1_err_set(err, "protocol: truncated frame header (%zu of 12 bytes)", got);
  }
  if (hdr[0] != CL1_PROTO_MAGIC)
    return cl1_err_set(err, "protocol: bad magic 0x%08x (garbage on the pipe)", hdr[0]);
  if (hdr[2] > CL1_PROTO_MAX)
    return cl1_err_set(err, "protocol: frame length %u over the limit %u", hdr[2], CL1_PROTO_MAX);
  char *buf = malloc((size_t)hdr[2] + 1);
  if (!buf) return cl1_err_set(err, "protocol: out of memory");
  /* Once a header is in, the rest of the frame gets its own grace period: returning a timeout
     here would lose the frame boundary for the next read. */
  double grace = cl1_now() * 1e3 + CL1_PROTO_PAYLOAD_MS;
  rc = read_exact(fd, buf, hdr[2], deadline > grace ? deadline : grace, &got);
  if (rc) {
    free(buf);
    return cl1_err_set(err, "protocol: truncated frame (%zu of %u payload bytes)%s", got, hdr[2],
                       rc == -2 ? ", the rest never came" : "");
  }
  buf[hdr[2]] = 0;
  if (memchr(buf, 0, hdr[2])) {
    free(buf);
    return cl1_err_set(err, "protocol: NUL byte inside a frame");
  }
  *type = hdr[1];
  *json = buf;
  return 0;
}
