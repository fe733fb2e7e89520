/* doctor.h — `cudal1 doctor`: checks what cudal1 needs on this machine (the GPU and CUDA stack,
 * the C compiler and the op libraries, the suite and the worker, the compile cache, the
 * sandbox's kernel features, the cache and memory figures the evaluator will use, Python with
 * torch, and optionally the policy server) and says, per item, ok / missing / wrong / info with
 * the fix. One verdict at the end: whether the main job (`make demo`: `cudal1 optimize` on the
 * GPU when there is one, on the host backend otherwise) can run here, and on which backend. */
#ifndef CL1_DOCTOR_H
#define CL1_DOCTOR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum { CL1_DOCTOR_OK, CL1_DOCTOR_MISSING, CL1_DOCTOR_WRONG, CL1_DOCTOR_INFO } cl1_doctor_status;

/* Which runs need an item: a missing/wrong item is fatal when the main job needs it here. */
typedef enum {
  CL1_DOCTOR_NEED_NONE,   /* a warning at most (Landlock, Python, the policy server, ...) */
  CL1_DOCTOR_NEED_ALL,    /* every backend (the C compiler, the suite, seccomp, ...) */
  CL1_DOCTOR_NEED_CUDA    /* the cuda backend, which the main job uses when a GPU is present */
} cl1_doctor_need;

typedef struct {
  char name[24];          /* stable id for JSON: "gpu", "llc", "seccomp", ... */
  char label[24];         /* the text column: "GPU", "last-level cache", ... */
  cl1_doctor_status status;
  cl1_doctor_need need;
  bool fatal;             /* set by cl1_doctor_run: missing/wrong and needed on this machine */
  int section;            /* display group (GPU, build, sandbox, memory, Python, server) */
  char value[640];
  char fix[400];          /* "" for ok/info */
} cl1_doctor_item;

#define CL1_DOCTOR_MAX_ITEMS 40

typedef struct {
  cl1_doctor_item items[CL1_DOCTOR_MAX_ITEMS];
  int n;
  bool gpu_present;       /* an NVIDIA driver is loaded: `make demo` picks the cuda backend */
  bool gpu_usable;        /* the CUDA runtime sees at least one device */
  int cc_major, cc_minor; /* GPU 0's compute capability (0 without one) */
  int section;            /* the section probes add to now */
  int n_fatal, n_warn;    /* set by cl1_doctor_run */
  bool host_ok;           /* nothing the host backend needs is fatal */
} cl1_doctor_report;

typedef struct {
  const char *base_url;   /* the policy server to check (GET base_url/models); NULL: none */
  const char *model;      /* the model it must list; NULL: any */
  const char *api_key;    /* sent as a Bearer token when set; never printed */
  double server_timeout_s;   /* the whole request; 0 = 10 */
  int python_timeout_s;      /* `python3 -c 'import torch ...'`; 0 = 120 */
} cl1_doctor_opts;

/* Runs every probe (forked children for the kernel features, before the CUDA runtime starts)
 * and fills *r, items in display order. Never fails: a probe that cannot run says so in its
 * item. */
void cl1_doctor_run(const cl1_doctor_opts *o, cl1_doctor_report *r);
/* "ok", "missing", "wrong", "info". */
const char *cl1_doctor_status_name(cl1_doctor_status s);
/* The one-line verdict: whether cudal1 can run here and on which backend, or what is fatal. */
void cl1_doctor_verdict(const cl1_doctor_report *r, char *out, size_t n);
/* A size as the report writes it: "1 GiB", "1.5 GiB", "64 MiB", "512 KiB", "100 B". */
void cl1_doctor_bytes(size_t b, char *out, size_t n);
/* The report as aligned text, one line an item and the verdict last. */
void cl1_doctor_print(const cl1_doctor_report *r, FILE *f);
/* The report as one JSON object (malloc'd, caller frees; NULL when out of memory):
 * {"items": [{"name", "label", "status", "value", "fix", "needed_for", "fatal"}...],
 *  "can_run", "backend" ("cuda" | "host" | null), "fatal", "warnings", "verdict"}. */
char *cl1_doctor_json(const cl1_doctor_report *r);
#endif
