/* cmd_doctor.c — `cudal1 doctor`: what cudal1 needs on this machine, one line an item, and
 * whether the main job can run here (the probes and the report: src/eval/doctor.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "eval/doctor.h"

static const char usage[] =
    "usage: cudal1 doctor [--json] [--base-url URL [--model NAME]]\n"
    "\n"
    "Checks what cudal1 needs on this machine and prints one line an item: ok, missing, wrong\n"
    "(with the fix) or info (a figure). The items: the GPU (CUDA runtime), the driver and runtime\n"
    "versions, nvcc and the architecture candidates are built for against the GPU's compute\n"
    "capability, the CUDA op library with cuBLAS and cuDNN; the C compiler, the host op library,\n"
    "the worker binary, the suite, the compile cache folder; the sandbox's kernel features\n"
    "(seccomp, no_new_privs, Landlock, user namespaces) and the sandbox itself, entered in a\n"
    "forked child; the last-level cache, the host backend's flush and the candidates' memory\n"
    "budgets; the machine's memory and RLIMIT_AS; Python with numpy and torch. The last line\n"
    "says whether cudal1 can run here, and on which backend.\n"
    "\n"
    "  --json           the same as one JSON object: items (name, label, status, value, fix,\n"
    "                   needed_for, fatal), can_run, backend, fatal, warnings, verdict\n"
    "  --base-url URL   also check the policy server: GET URL/models answers (3 s to connect,\n"
    "                   10 s in all; default $CUDAL1_BASE_URL; the key: $CUDAL1_API_KEY, else\n"
    "                   $OPENAI_API_KEY)\n"
    "  --model NAME     ... and lists this model\n"
    "\n"
    "Exit status: 0 when the main job (`make demo`: `cudal1 optimize` on the GPU when there is\n"
    "one, on the host backend otherwise) can run here: no GPU is a warning, not a failure. 3 (an\n"
    "infrastructure problem) when something it needs is missing or wrong: a C compiler, the op\n"
    "library, the worker, the suite, a writable compile cache, seccomp and the sandbox; with a GPU\n"
    "also the driver, nvcc, the architecture, cuBLAS and cuDNN. Landlock, Python and torch, and\n"
    "the policy server (needed only by `cudal1 optimize` with the openai backend) are warnings and\n"
    "never change the exit status. 2: a usage error.\n";

int cl1_cmd_doctor(int argc, char **argv) {
  cl1_doctor_opts o = {0};
  const char *e = getenv("CUDAL1_BASE_URL");
  o.base_url = e && *e ? e : NULL;
  o.api_key = cl1_cli_api_key();
  int json = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(usage, stdout);
      return 0;
    }
    if (!strcmp(a, "--json")) json = 1;
    else if ((!strcmp(a, "--base-url") || !strcmp(a, "--model")) && i + 1 < argc) {
      if (!strcmp(a, "--base-url")) o.base_url = argv[++i];
      else o.model = argv[++i];
    } else if (!strcmp(a, "--base-url") || !strcmp(a, "--model")) {
      fprintf(stderr, "cudal1 doctor: %s needs a value (see cudal1 doctor --help)\n", a);
      return 2;
    } else {
      fprintf(stderr, "cudal1 doctor: unknown option '%s' (see cudal1 doctor --help)\n", a);
      return 2;
    }
  }
  if (o.model && !o.base_url) {
    fprintf(stderr, "cudal1 doctor: --model needs --base-url (or $CUDAL1_BASE_URL)\n");
    return 2;
  }
  cl1_doctor_report *r = malloc(sizeof *r);
  if (!r) {
    fprintf(stderr, "cudal1 doctor: out of memory\n");
    return 3;
  }
  cl1_doctor_run(&o, r);
  int rc = r->n_fatal ? 3 : 0;
  if (json) {
    char *s = cl1_doctor_json(r);
    if (s) {
      puts(s);
    } else {
      fprintf(stderr, "cudal1 doctor: out of memory\n");
      rc = 3;
    }
    free(s);
  } else {
    cl1_doctor_print(r, stdout);
  }
  free(r);
  return rc;
}
