/* judge_proc.h — the judge's handle on one worker process: spawning it with its pipes, shared
 * memory and log file, request/reply with a watchdog (wall-clock deadline and host-memory
 * ceiling), and killing it. Every way a worker can fail is classified here, never a judge crash. */
#ifndef CL1_JUDGE_PROC_H
#define CL1_JUDGE_PROC_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <cjson/cJSON.h>
#include "../base/err.h"

typedef enum {
  CL1_W_OK = 0,        /* reply received */
  CL1_W_FAILED,        /* the worker reported an error (msg) */
  CL1_W_DIED,          /* exited or was killed by a signal (msg says how) */
  CL1_W_TIMEOUT,       /* no reply before the deadline; killed */
  CL1_W_MEMORY,        /* over the host-memory ceiling; killed */
  CL1_W_PROTOCOL       /* garbage on the pipe; killed */
} cl1_wstatus;

typedef struct {
  pid_t pid;
  int to_fd, from_fd, shm_fd;
  unsigned char *shm;
  size_t shm_bytes;
  char tmpdir[256], log_path[300];
  size_t rss_limit;    /* bytes; 0 = none */
  int exit_status;     /* after death: exit code or 128+signal */
  char msg[1024];      /* last failure, human-readable */
  bool harness_failed; /* the last FAIL said the harness failed before any solution code ran */
  int threads_max;     /* the most threads any of its replies counted (every reply counts) */
  cl1_wstatus last;
  char tag[8];         /* "ref" / "cand", for traces */
  int sent_type;       /* the request in flight, and when it went (CUDAL1_TRACE) */
  double sent_at;
  bool quit_sent;      /* cl1_wproc_quit: close waits for the reply instead of asking */
  bool paused;         /* stopped (SIGSTOP) between requests: cl1_wproc_pause */
  bool awaiting;       /* a request sent whose reply has not been read: not reusable */
} cl1_wproc;

/* Starts the worker program exe with a memfd of shm_bytes; cuda_visible (NULL: inherited) is the
 * CUDA_VISIBLE_DEVICES it runs under, the one GPU it may see. shm_bytes 0: the memfd is sized
 * later, by cl1_wproc_size (a spare worker, started before its task is known). */
int cl1_wproc_spawn(cl1_wproc *w, const char *exe, size_t shm_bytes, const char *tag,
                    const char *cuda_visible, cl1_err *err);
/* Sizes, seals and maps a spare's memfd (once; before its SETUP). */
int cl1_wproc_size(cl1_wproc *w, size_t shm_bytes, cl1_err *err);
/* Stops the worker's whole process group between requests, and lets it go on: a candidate's
 * threads cannot launch GPU work while the judge does not hold the GPU for it (gpu_lock.h).
 * Sending a request, quitting and closing resume a paused worker first. */
void cl1_wproc_pause(cl1_wproc *w);
void cl1_wproc_resume(cl1_wproc *w);
/* Sends a request and waits for its reply (*reply owned by the caller, NULL unless OK). */
cl1_wstatus cl1_wproc_call(cl1_wproc *w, int type, cJSON *req, double timeout_s, cJSON **reply);
/* The two halves of a call, so requests to both workers can overlap (setup, say). */
cl1_wstatus cl1_wproc_send(cl1_wproc *w, int type, cJSON *req);
cl1_wstatus cl1_wproc_wait(cl1_wproc *w, double timeout_s, cJSON **reply);
/* CUDAL1_TRACE=1: the judge prints every worker request and reply, timed, on stderr. */
bool cl1_trace_on(void);
/* Asks the worker to finish (teardown, exit) without waiting: closing two workers that were
 * both asked first overlaps their driver teardowns. */
void cl1_wproc_quit(cl1_wproc *w);
/* Kills (if alive) and reaps; removes the temp dir and unmaps memory. */
void cl1_wproc_close(cl1_wproc *w);
/* The same without asking it to quit first: none of its code runs again (a candidate's teardown
 * and destructors would run GPU work while the judge no longer holds the GPU for it). */
void cl1_wproc_kill(cl1_wproc *w);
/* Lets the worker go without waiting for its exit: asked to quit (killed when kill_it), its pipes,
 * memory and folder released at once, its exit reaped by a detached thread. A CUDA context takes
 * ~0.3 s to tear down, which a judge sharing its GPU need not wait for. */
void cl1_wproc_release(cl1_wproc *w, bool kill_it);
/* The last `n` bytes of the worker's stdout/stderr log. */
void cl1_wproc_log_tail(const cl1_wproc *w, char *out, size_t n);
/* The worker program, build/cudal1-worker, found beside the running binary ($CUDAL1_WORKER
 * overrides it). */
int cl1_worker_exe(char *out, size_t n, cl1_err *err);
#endif
