/* proto.h — the judge <-> worker wire format: length-prefixed frames over pipes,
 *   u32 magic "CL1F" | u32 type | u32 length | length bytes of JSON text.
 * Tensors never travel here (they are in memfd shared memory); frames are small. A reader that
 * meets garbage, a frame over CL1_PROTO_MAX, a truncated frame or EOF gets an error, never a
 * crash: the candidate worker is untrusted and may write anything. */
#ifndef CL1_PROTO_H
#define CL1_PROTO_H
#include <stddef.h>
#include <stdint.h>
#include "../base/err.h"

#define CL1_PROTO_MAGIC 0x46314C43u /* "CL1F" little-endian */
#define CL1_PROTO_MAX (1u << 20)
#define CL1_PROTO_PAYLOAD_MS 10000 /* a frame's payload must follow its header within this */
/* SETUP's reply "setup_ms": the worker's cumulative clock after the task load, the device open,
 * the pinning, the buffers' allocation, the op library's preload (a Python solution's interpreter,
 * torch and its CUDA start) and the sandbox's entry. */
#define CL1_SETUP_MARKS 6

enum {
  /* judge -> worker */
  CL1_MSG_SETUP = 1, CL1_MSG_PARAMS, CL1_MSG_RUN, CL1_MSG_TIME_PREP, CL1_MSG_WARMUP,
  CL1_MSG_TRIAL, CL1_MSG_QUIT,
  CL1_MSG_PING,       /* is the device still usable here? (a device-wide sync) */
  CL1_MSG_FETCH,      /* copy the last trial's outputs to a shared region (decided after it) */
  CL1_MSG_LOAD,       /* map the solution named at SETUP (its code runs from here on) */
  CL1_MSG_OPEN,       /* a spare's head start: the device and the op library, no task yet */
  /* worker -> judge */
  CL1_MSG_OK = 64, CL1_MSG_FAIL
};

/* 0 on success, -1 on a write error (e.g. EPIPE: the peer died). */
int cl1_proto_send(int fd, uint32_t type, const char *json, cl1_err *err);

/* Reads one frame, waiting at most timeout_ms (< 0: forever). Returns 0 and a malloc'd,
 * NUL-terminated payload in *json; -1 on EOF/garbage/truncation (err says which); -2 on timeout
 * before a header arrived (a frame already begun is always read to its end or reported truncated). */
int cl1_proto_recv(int fd, int timeout_ms, uint32_t *type, char **json, cl1_err *err);

/* Busy-polls fd for up to spin_ms (returns 1 as soon as it is readable, 0 after the spin). A
 * worker that slept in a blocking read wakes on a cold, slowed-down core, and the first launch
 * of a timed call then pays tens of microseconds more: spinning keeps the core awake between
 * back-to-back trials. */
int cl1_proto_spin(int fd, double spin_ms);
#endif
