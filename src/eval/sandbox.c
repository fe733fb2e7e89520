/* sandbox.c — confines the candidate worker (sandbox.h). Layers, each covering the others' gaps:
 * no_new_privs; rlimits; every capability dropped (root without capabilities cannot mount,
 * ptrace others, or bypass file permissions); chdir + TMPDIR into the private temp dir; Landlock
 * (where the kernel has it) limiting writes to the temp dir and /dev; and a seccomp filter.
 *
 * The seccomp filter is a deny-list on purpose: the CUDA driver needs a long, version-dependent
 * list of syscalls (ioctl, mmap, eventfd, futex, ...), so everything is allowed except the groups
 * below, which a kernel or a measurement never needs from a candidate. Denials return EPERM so
 * the candidate sees an error, not a kill, and the judge reports what it tried.
 *
 * Consequence worth knowing: file creation is refused everywhere, the temp dir included; a
 * candidate has its stdout/stderr (already open, capped by RLIMIT_FSIZE) and nothing else to
 * write to. Threads are refused on the host backend; on CUDA only clone(CLONE_THREAD) passes, for
 * the driver's own threads. */
#include "sandbox.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef O_TMPFILE
#define O_TMPFILE (020000000 | O_DIRECTORY)
#endif

int cl1_sandbox_thread_count(void) {
  DIR *d = opendir("/proc/self/task");
  if (!d) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n;
}

/* The highest open file descriptor + 1 (RLIMIT_NOFILE bounds descriptor numbers, not a count). */
static int fd_ceiling(void) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) return 1024;
  int top = 0;
  for (struct dirent *e; (e = readdir(d));) {
    int fd = atoi(e->d_name);
    if (e->d_name[0] != '.' && fd + 1 > top) top = fd + 1;
  }
  closedir(d);
  return top;
}

/* Lowers a limit (never raises it: without CAP_SYS_RESOURCE that would fail). */
static int limit(int res, rlim_t soft, rlim_t hard, const char *name, cl1_err *err) {
  struct rlimit old;
  if (getrlimit(res, &old)) return cl1_err_set(err, "sandbox: getrlimit(%s): %s", name, strerror(errno));
  struct rlimit r = {soft, hard};
  if (old.rlim_max != RLIM_INFINITY && r.rlim_max > old.rlim_max) r.rlim_max = old.rlim_max;
  if (r.rlim_cur > r.rlim_max) r.rlim_cur = r.rlim_max;
  if (setrlimit(res, &r)) return cl1_err_set(err, "sandbox: setrlimit(%s): %s", name, strerror(errno));
  return 0;
}

static int set_limits(const cl1_sandbox_opts *o, cl1_err *err) {
  if (o->backend == CL1_BACKEND_HOST && o->mem_limit_bytes &&
      limit(RLIMIT_AS, o->mem_limit_bytes, o->mem_limit_bytes, "AS", err))
    return -1;
  if (o->cpu_seconds > 0 &&
      limit(RLIMIT_CPU, (rlim_t)o->cpu_seconds, (rlim_t)o->cpu_seconds + 1, "CPU", err))
    return -1;
  if (o->file_limit_bytes) {
    /* past the limit, write() fails with EFBIG instead of the process dying of SIGXFSZ */
    signal(SIGXFSZ, SIG_IGN);
    if (limit(RLIMIT_FSIZE, o->file_limit_bytes, o->file_limit_bytes, "FSIZE", err)) return -1;
  }
  rlim_t nofile = (rlim_t)fd_ceiling() + 64;
  if (limit(RLIMIT_NOFILE, nofile, nofile, "NOFILE", err)) return -1;
  if (limit(RLIMIT_CORE, 0, 0, "CORE", err)) return -1;
  /* RLIMIT_NPROC counts every task of the real user on the machine, so on CUDA (where the driver
     starts threads) a low value would fail at random when other processes of the user run; there
     seccomp's clone rule does the work. On the host no task may be created at all. Note that the
     kernel never applies NPROC to uid 0: for root, the dropped capabilities and seccomp matter. */
  if (o->backend == CL1_BACKEND_HOST && limit(RLIMIT_NPROC, 1, 1, "NPROC", err)) return -1;
  return 0;
}

static int drop_caps(cl1_err *err) {
  for (int cap = 0; cap <= 63; cap++) {
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0) continue;
    if (errno == EINVAL) break;   /* past the kernel's last capability */
    if (errno == EPERM) break;    /* not privileged: the bounding set is not ours to change */
    return cl1_err_set(err, "sandbox: PR_CAPBSET_DROP(%d): %s", cap, strerror(errno));
  }
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
  memset(d, 0, sizeof d);
  if (syscall(SYS_capset, &h, d))
    return cl1_err_set(err, "sandbox: capset: %s", strerror(errno));
  return 0;
}

static int landlock_abi_now(void) {
  long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return v < 0 ? 0 : (int)v;
}

/* Best effort: on kernels without Landlock the seccomp open() rules still refuse creation and
   O_WRONLY, but not O_RDWR of an existing file (the driver opens /dev/nvidia* that way). Landlock
   acts on the calling thread and its future children only: threads the driver already started are
   not covered (the candidate runs on this thread). */
static int landlock(const char *tmpdir) {
  int abi = landlock_abi_now();
  if (abi < 1) {
    cl1_log_debug("sandbox: no Landlock in this kernel (%s)", strerror(errno));
    return 0;
  }
  uint64_t w = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
               LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
               LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
               LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
               LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 3) w |= LANDLOCK_ACCESS_FS_TRUNCATE;
  /* only write rights are handled, so reads stay allowed everywhere */
  struct landlock_ruleset_attr attr = {.handled_access_fs = w};
  int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (rs < 0) {
    cl1_log_debug("sandbox: landlock_create_ruleset: %s", strerror(errno));
    return 0;
  }
  const char *dirs[] = {tmpdir, "/dev"};
  for (int i = 0; i < 2; i++) {
    int fd = open(dirs[i], O_PATH | O_CLOEXEC | O_DIRECTORY);
    if (fd < 0) continue;
    struct landlock_path_beneath_attr pb = {.allowed_access = w, .parent_fd = fd};
    if (syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0))
      cl1_log_debug("sandbox: landlock_add_rule(%s): %s", dirs[i], strerror(errno));
    close(fd);
  }
  int rc = (int)syscall(SYS_landlock_restrict_self, rs, 0);
  if (rc) cl1_log_debug("sandbox: landlock_restrict_self: %s", strerror(errno));
  close(rs);
  return 0;
}

int cl1_sandbox_landlock_abi(void) { return landlock_abi_now(); }

/* seccomp rule helpers: a syscall the running libseccomp does not know is skipped */
static int deny(scmp_filter_ctx f, int errnum, const char *name, unsigned n,
                const struct scmp_arg_cmp *a) {
  int nr = seccomp_syscall_resolve_name(name);
  if (nr == __NR_SCMP_ERROR) return 0;
  int rc = seccomp_rule_add_array(f, SCMP_ACT_ERRNO(errnum), nr, n, a);
  return rc == -EOPNOTSUPP || rc == -EDOM ? 0 : rc;   /* not on this arch */
}

static int deny_all(scmp_filter_ctx f, const char *const *names) {
  for (int i = 0; names[i]; i++) {
    int rc = deny(f, EPERM, names[i], 0, NULL);
    if (rc) return rc;
  }
  return 0;
}

static int seccomp_filter(cl1_backend b, cl1_err *err) {
  scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
  if (!f) return cl1_err_set(err, "sandbox: seccomp_init failed");
  int rc = 0;
  /* network: no sockets at all (pipes and the harness's descriptors stay usable) */
  static const char *const net[] = {"socket", "socketpair", "connect", "bind", "listen",
                                    "accept", "accept4", NULL};
  /* processes: no new programs or processes; no reaching into other processes */
  static const char *const proc[] = {"execve", "execveat", "fork", "vfork", "ptrace",
                                     "process_vm_readv", "process_vm_writev", "process_madvise",
                                     "pidfd_open", "pidfd_getfd", "pidfd_send_signal", "kcmp",
                                     NULL};
  /* files: the namespace itself stays as it is (creation through open() is handled below) */
  static const char *const files[] = {
      "creat", "openat2", "unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir",
      "mkdirat", "rmdir", "link", "linkat", "symlink", "symlinkat", "mknod", "mknodat", "chmod",
      "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat", "truncate",
      "utime", "utimes", "utimensat", "futimesat", "setxattr", "lsetxattr", "fsetxattr",
      "removexattr", "lremovexattr", "fremovexattr", "memfd_create", "memfd_secret",
      "name_to_handle_at", "open_by_handle_at", "fanotify_init",
      /* FALLOC_FL_KEEP_SIZE allocates disk blocks without growing the file, so RLIMIT_FSIZE never
         sees it: one call on the stdout log reserved 64 MB past the 16 MB cap (escapes/) */
      "fallocate", NULL};
  /* mounts, namespaces, the machine: need capabilities we dropped, refused twice for safety */
  static const char *const sys[] = {
      "mount", "umount2", "pivot_root", "chroot", "setns", "unshare", "fsopen", "fsmount",
      "fsconfig", "move_mount", "open_tree", "fspick", "mount_setattr", "reboot", "init_module",
      "finit_module", "delete_module", "kexec_load", "kexec_file_load", "swapon", "swapoff",
      "sethostname", "setdomainname", "settimeofday", "clock_settime", "adjtimex",
      "clock_adjtime", "iopl", "ioperm", "acct", "quotactl", "syslog", "vhangup", NULL};
  /* kernel attack surface a kernel-benchmark never needs (io_uring also bypasses seccomp) */
  static const char *const kern[] = {"bpf", "perf_event_open", "personality", "io_uring_setup",
                                     "io_uring_enter", "io_uring_register", "userfaultfd",
                                     "keyctl", "add_key", "request_key", NULL};
  /* identity: no changing who we are */
  static const char *const ids[] = {"setuid", "setgid", "setreuid", "setregid", "setresuid",
                                    "setresgid", "setfsuid", "setfsgid", "setgroups", "capset",
                                    NULL};
  const char *const *groups[] = {net, proc, files, sys, kern, ids};
  for (size_t g = 0; g < sizeof groups / sizeof groups[0] && !rc; g++) rc = deny_all(f, groups[g]);
  /* clone3 cannot be filtered on its flags (they sit in memory): ENOSYS makes glibc fall back to
     clone, whose flags can be. Host: no new tasks at all. CUDA: threads only. */
  if (!rc) rc = deny(f, ENOSYS, "clone3", 0, NULL);
  if (!rc && b == CL1_BACKEND_HOST) rc = deny(f, EPERM, "clone", 0, NULL);
  if (!rc && b == CL1_BACKEND_CUDA) {
    struct scmp_arg_cmp a = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0);
    rc = deny(f, EPERM, "clone", 1, &a);
    static const unsigned long ns[] = {CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER,
                                       CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0] && !rc; i++) {
      struct scmp_arg_cmp c = SCMP_A0(SCMP_CMP_MASKED_EQ, ns[i], ns[i]);
      rc = deny(f, EPERM, "clone", 1, &c);
    }
  }
  /* signals: only to ourselves (raise() and the driver's own signalling keep working) */
  pid_t self = getpid();
  static const char *const sig[] = {"kill", "tkill", "tgkill", "rt_sigqueueinfo",
                                    "rt_tgsigqueueinfo", NULL};
  for (int i = 0; sig[i] && !rc; i++) {
    struct scmp_arg_cmp a = SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)self);
    rc = deny(f, EPERM, sig[i], 1, &a);
  }
  /* Signals by proxy: a file's owner (F_SETOWN) gets SIGIO, or any signal F_SETSIG names, when
     the file becomes ready; the kernel checks only that the uids match, so a pipe owned by the
     judge delivered SIGKILL to it (escapes/host/sigio.c). The command is an unsigned int to the
     kernel: compare the low 32 bits, or 1 << 32 | F_SETOWN would pass. Owner = self stays. */
  if (!rc) {
    struct scmp_arg_cmp a[2] = {SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, F_SETOWN),
                                SCMP_A2(SCMP_CMP_NE, (scmp_datum_t)self)};
    rc = deny(f, EPERM, "fcntl", 2, a);
  }
  if (!rc) {
    struct scmp_arg_cmp a = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, F_SETOWN_EX);
    rc = deny(f, EPERM, "fcntl", 1, &a);
  }
  /* Lowering another process's limits needs only a matching uid, no capability: RLIMIT_CPU of 1 s
     on the judge killed it (escapes/host/prlimit.c). glibc's getrlimit/setrlimit pass pid 0. */
  if (!rc) {
    struct scmp_arg_cmp a = SCMP_A0(SCMP_CMP_NE, 0);
    rc = deny(f, EPERM, "prlimit64", 1, &a);
  }
  /* open/openat: reading is fine; creating, truncating, appending or write-only is not (O_RDWR
     must pass: the driver opens /dev/nvidia* so; Landlock confines it where available) */
  static const unsigned long oflags[] = {O_CREAT, O_WRONLY, O_TRUNC, O_APPEND,
                                         O_TMPFILE & ~O_DIRECTORY};
  for (size_t i = 0; i < sizeof oflags / sizeof oflags[0] && !rc; i++) {
    struct scmp_arg_cmp a1 = SCMP_A1(SCMP_CMP_MASKED_EQ, oflags[i], oflags[i]);
    struct scmp_arg_cmp a2 = SCMP_A2(SCMP_CMP_MASKED_EQ, oflags[i], oflags[i]);
    rc = deny(f, EPERM, "open", 1, &a1);
    if (!rc) rc = deny(f, EPERM, "openat", 1, &a2);
  }
  /* the CUDA driver's threads exist before we are called: the filter must reach them too */
  if (!rc) rc = seccomp_attr_set(f, SCMP_FLTATR_CTL_TSYNC, 1);
  if (!rc) rc = seccomp_load(f);
  seccomp_release(f);
  if (rc) return cl1_err_set(err, "sandbox: seccomp filter: %s", strerror(-rc));
  return 0;
}

int cl1_sandbox_enter(const cl1_sandbox_opts *o, cl1_err *err) {
  if (!o || !o->tmpdir || !*o->tmpdir) return cl1_err_set(err, "sandbox: no temp dir given");
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
    return cl1_err_set(err, "sandbox: PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
  if (set_limits(o, err)) return -1;
  if (drop_caps(err)) return -1;
  if (chdir(o->tmpdir)) return cl1_err_set(err, "sandbox: chdir(%s): %s", o->tmpdir, strerror(errno));
  if (setenv("TMPDIR", o->tmpdir, 1)) return cl1_err_set(err, "sandbox: setenv TMPDIR failed");
  landlock(o->tmpdir);
  return seccomp_filter(o->backend, err);
}
