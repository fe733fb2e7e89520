/* proc.h — running a child program with a wall-clock limit: fork + own process group + execvp,
 * stdout and stderr captured through one pipe (up to a cap, the rest discarded), and on timeout
 * SIGKILL to the whole group so nothing it started keeps running. Generic: the compile stage uses
 * it for cc/nvcc, other modules may use it for any helper program. Whatever the child leaves
 * running in its group when it exits is killed too. */
#ifndef CL1_PROC_H
#define CL1_PROC_H
#include <stddef.h>
#include "err.h"

/* cl1_proc_run's return when the time limit killed the process group. */
#define CL1_PROC_TIMEOUT 1

typedef struct {
  long long fsize_bytes;   /* RLIMIT_FSIZE for the child (0 = inherit): a runaway output file
                              ends with SIGXFSZ instead of filling the disk */
  char *const *envp;       /* the child's environment (NULL = inherit ours) */
} cl1_proc_limits;

/* Runs argv[0] (PATH search) in cwd (NULL = ours) with stdin from /dev/null. Output goes into out
 * (NUL-terminated, at most out_cap-1 bytes kept; out may be NULL), its kept length into *out_len.
 * timeout_ms <= 0: no limit. Returns 0 when the child ended (*exit_status = exit code, or
 * 128+signal), CL1_PROC_TIMEOUT when it was killed for time (*exit_status = 128+SIGKILL), -1 when
 * it could not be started (err names the program and the cause). */
int cl1_proc_run(char *const argv[], const char *cwd, int timeout_ms, char *out, size_t out_cap,
                 size_t *out_len, int *exit_status, cl1_err *err);
/* The same with resource limits / environment (lim may be NULL). */
int cl1_proc_run_lim(char *const argv[], const char *cwd, int timeout_ms,
                     const cl1_proc_limits *lim, char *out, size_t out_cap, size_t *out_len,
                     int *exit_status, cl1_err *err);

/* The address space (VmSize) and resident memory (VmRSS) of process pid (0: this one), in bytes,
 * from /proc/PID/statm. 0, or -1 when it cannot be read (both then 0). */
int cl1_proc_mem(int pid, size_t *vm_bytes, size_t *rss_bytes);

/* The folder holding the running executable (from /proc/self/exe). Returns 0, or -1 if it cannot
 * be read or does not fit in n bytes. */
int cl1_proc_exe_dir(char *out, size_t n);
/* A program of the build found from the running one: $env when set (env may be NULL), else name
 * in the running executable's folder or one or two folders up (tests run from build/tests/ and
 * build/tests/gpu/, benchmarks from build/bench/). 0, or -1 with err naming the folder. */
int cl1_proc_find_program(const char *env, const char *name, char *out, size_t n, cl1_err *err);
/* GPU 0's name from nvidia-smi, without a CUDA context in this process (the protocol and the
 * store name the GPU an evaluation ran on). -1 (err says so) without the NVIDIA driver; an empty
 * name when nvidia-smi cannot tell. */
int cl1_proc_gpu_name(char *out, size_t n, cl1_err *err);
/* Every GPU's name, in nvidia-smi's order (its index i is names[i]); how many (at most max), 0
 * when nvidia-smi cannot tell, -1 (err) without the driver. */
int cl1_proc_gpu_names(char (*names)[128], int max, cl1_err *err);
/* A folder shipped beside the binary (the suite, the prompts): $env when set, else
 * <exe dir>/../name resolved when it is a folder (an installed or build-tree binary), else name
 * relative to the working directory. Always writes out. */
void cl1_proc_share_dir(const char *env, const char *name, char *out, size_t n);
#endif
