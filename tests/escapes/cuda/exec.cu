/* exec.cu — runs /bin/sh (which would write /tmp/cudal1-escape-exec) through execve, execveat,
 * system() and posix_spawn(). Expected: crash — seccomp refuses execve/execveat, and the
 * process creation system() and posix_spawn() need (clone) is refused too; no marker file. */
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
#include <spawn.h>
#include <sys/stat.h>

#include "probe_kit.inc" /* inlined by escape_cases.h before evaluation: a solution is one file */

static char a0[] = "sh", a1[] = "-c", a2[] = "echo escaped > /tmp/cudal1-escape-exec";
static char *argv_sh[] = {a0, a1, a2, NULL}, *envp_sh[] = {NULL};

static void probe(const cl1_call *c) {
  (void)c;
  int (*ex)(const char *, char *const[], char *const[]) =
      (int (*)(const char *, char *const[], char *const[]))resolve("execve");
  if (ex) report("execve(/bin/sh) via libc", ex("/bin/sh", argv_sh, envp_sh));
  report("execve(/bin/sh)", sys(SYS_execve, "/bin/sh", argv_sh, envp_sh));
  report("execveat(/bin/sh)", sys(SYS_execveat, AT_FDCWD, "/bin/sh", argv_sh, envp_sh, 0));
  int (*system_fn)(const char *) = (int (*)(const char *))resolve("system");
  if (system_fn) {
    /* glibc's system() says 127 << 8 both when the shell failed and when no child could be
       made: whether a shell ran shows in its marker file */
    int r = system_fn(a2), e = errno;
    struct stat st;
    long made = sys(SYS_newfstatat, AT_FDCWD, "/tmp/cudal1-escape-exec", &st, 0);
    errno = e;
    report("system()", made == 0 ? r : -1);
  }
  int (*spawn)(pid_t *, const char *, const void *, const void *, char *const[], char *const[]) =
      (int (*)(pid_t *, const char *, const void *, const void *, char *const[], char *const[]))
          resolve("posix_spawn");
  if (spawn) {
    pid_t pid;
    int r = spawn(&pid, "/bin/sh", NULL, NULL, argv_sh, envp_sh);   /* returns an errno */
    errno = r;
    report("posix_spawn(/bin/sh)", r ? -1 : pid);
  }
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
