/* main.c — the worker program, build/cudal1-worker: the process the judge starts for the reference
 * and, sandboxed, for each candidate (worker.h). Its own small binary so the untrusted process maps
 * only what a worker needs (cJSON, libseccomp, the CUDA runtime, libdl, libpthread) and none of the
 * judge's store, HTTP client or TLS stack; the Makefile links it from the worker, task and base
 * layers alone. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sandbox.h"
#include "worker.h"

/* cudal1-worker --confine-build DIR MEM_MB CPU_S -- PROGRAM ARGS...: the build step of a Python
 * solution (src/eval/pybuild.c), confined (sandbox.h) and then exec'd. */
static int confine_build(int argc, char **argv) {
  if (argc < 7 || strcmp(argv[5], "--")) {
    fprintf(stderr, "cudal1-worker: --confine-build DIR MEM_MB CPU_S -- PROGRAM ARGS...\n");
    return 2;
  }
  cl1_err err = {{0}};
  size_t mem = (size_t)strtoull(argv[3], NULL, 10) << 20;
  if (cl1_sandbox_confine_build(argv[2], mem, atoi(argv[4]), &err)) {
    fprintf(stderr, "cudal1-worker: %s\n", err.msg);
    return 3;
  }
  execvp(argv[6], argv + 6);
  perror(argv[6]);
  return 127;
}

int main(int argc, char **argv) {
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    puts("cudal1-worker: the evaluator's worker process, started by `cudal1 eval` and `cudal1\n"
         "optimize` with its request pipe on fd 3, reply pipe on fd 4 and shared memory on fd 5.\n"
         "It is not a command; $CUDAL1_WORKER points the judge at another build of it.");
    return 0;
  }
  if (argc > 1 && !strcmp(argv[1], "--confine-build")) return confine_build(argc, argv);
  int fd;
  for (fd = CL1_WORKER_FD_IN; fd <= CL1_WORKER_FD_SHM; fd++)
    if (fcntl(fd, F_GETFD) < 0) break;
  if (fd <= CL1_WORKER_FD_SHM) {
    fprintf(stderr, "cudal1-worker: fd %d is not open: this program is started by the judge "
                    "(`cudal1 eval`), not by hand (--help says more)\n", fd);
    return 2;
  }
  return cl1_worker_main();
}
