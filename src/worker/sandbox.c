/* sandbox.c — confines the candidate worker (sandbox.h). Layers, each covering the others' gaps:
 * no_new_privs; rlimits; every capability dropped (root without capabilities cannot mount,
 * ptrace others, or bypass file permissions); chdir + TMPDIR into the private temp dir; Landlock
 * (where the kernel has it) limiting writes to the temp dir, /dev/null and, on CUDA, the GPU
 * driver's /dev/nvidia* nodes; and a seccomp filter. tests/escapes/ holds a candidate for each
 * way out that we know, built to get past the gate, so that these layers alone must stop it.
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
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
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
  assert(o->backend == CL1_BACKEND_HOST || o->backend == CL1_BACKEND_CUDA);
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

/* Capabilities are per thread. Returns 0, or the failing capability + 1 (bounding set), or -1
 * (capset). Async-signal-safe: confine_others() runs it in a signal handler. */
static int drop_caps_thread(void) {
  for (int cap = 0; cap <= 63; cap++) {
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0) continue;
    if (errno == EINVAL) break;   /* past the kernel's last capability */
    if (errno == EPERM) break;    /* not privileged: the bounding set is not ours to change */
    return cap + 1;
  }
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
  memset(d, 0, sizeof d);
  return syscall(SYS_capset, &h, d) ? -1 : 0;
}

static int drop_caps(cl1_err *err) {
  int rc = drop_caps_thread();
  if (rc > 0) return cl1_err_set(err, "sandbox: PR_CAPBSET_DROP(%d): %s", rc - 1, strerror(errno));
  if (rc < 0) return cl1_err_set(err, "sandbox: capset: %s", strerror(errno));
  return 0;
}

static int landlock_abi_now(void) {
  long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return v < 0 ? 0 : (int)v;
}

/* Write access beneath path (a directory), or to path itself (a file: file rights only). */
static void allow_writes(int rs, const char *path, uint64_t w) {
  int fd = open(path, O_PATH | O_CLOEXEC);
  struct stat st;
  if (fd < 0) return;
  if (fstat(fd, &st) == 0) {
    uint64_t file_rights = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE;
    struct landlock_path_beneath_attr pb = {
        .allowed_access = S_ISDIR(st.st_mode) ? w : w & file_rights, .parent_fd = fd};
    if (syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0))
      cl1_log_debug("sandbox: landlock_add_rule(%s): %s", path, strerror(errno));
  }
  close(fd);
}

/* The write rules, as a ruleset to restrict threads with (-1: no Landlock). Best effort: on
   kernels without Landlock the seccomp open() rules still refuse creation and O_WRONLY (and on
   the host O_RDWR), but on CUDA not O_RDWR of an existing file (the driver opens /dev/nvidia*
   that way). Landlock acts on the thread that restricts itself and its future children:
   confine_others() takes it to the threads the driver already started. */
static int landlock_ruleset(const char *tmpdir, cl1_backend backend, bool own_threads) {
  int abi = landlock_abi_now();
  if (abi < 1) {
    cl1_log_debug("sandbox: no Landlock in this kernel (%s)", strerror(errno));
    return -1;
  }
  uint64_t w = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
               LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
               LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
               LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
               LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 3) w |= LANDLOCK_ACCESS_FS_TRUNCATE;
  /* Unhandled, REFER denies every rename into another directory (EXDEV), even inside the
     writable one: Triton's cache writes a file in a temporary folder and renames it up */
  if (abi >= 2) w |= LANDLOCK_ACCESS_FS_REFER;
  /* only write rights are handled, so reads stay allowed everywhere */
  struct landlock_ruleset_attr attr = {.handled_access_fs = w};
  int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (rs < 0) {
    cl1_log_debug("sandbox: landlock_create_ruleset: %s", strerror(errno));
    return -1;
  }
  /* Not all of /dev: root without capabilities still owns the device nodes, and seccomp lets
     O_RDWR through, so /dev writable meant zram, loop devices, kvm, userfaultfd, fuse and the
     console were open to the candidate (tests/escapes/host/dev_write.c). Only the GPU driver's
     nodes (CUDA) and /dev/null. */
  allow_writes(rs, tmpdir, w);
  allow_writes(rs, "/dev/null", w);
  DIR *dev = backend == CL1_BACKEND_CUDA ? opendir("/dev") : NULL;
  for (struct dirent *e; dev && (e = readdir(dev));) {
    char p[300];
    snprintf(p, sizeof p, "/dev/%s", e->d_name);
    if (!strncmp(e->d_name, "nvidia", 6)) allow_writes(rs, p, w);   /* nvidia-caps/ too */
  }
  if (dev) closedir(dev);
  /* A process that starts CUDA after confinement (the build step's Triton call) needs its own
     threads' /proc entries writable: without them cuInit fails (304, H100 2026-12-06). Its own
     only: /proc/self resolves to this process now, and the children it execs are others. */
  if (own_threads) allow_writes(rs, "/proc/self/task", w);
  return rs;
}

/* The CUDA driver's threads (cuda-EvtHandlr and others) were started before the sandbox, and
 * capabilities, no_new_privs and Landlock belong to each thread: as root they kept every
 * capability and no Landlock domain. A candidate could run its code on them with a signal
 * (tgkill to its own process passes seccomp; the driver blocks no signal there) and from there
 * open any file or device read-write, or /proc/<judge>/mem (tests/escapes/cuda/
 * thread_signal.cu). So each such thread is sent a signal whose handler confines it like the
 * calling thread — glibc's own way of changing the uid of every thread — until a scan of
 * /proc/self/task finds none left. A thread that does not answer within a second makes it
 * fail with the thread named (cl1_sandbox_enter logs that and goes on: see there). */
static atomic_int g_confine_rs = -1, g_confine_done, g_confine_rc;   /* lock-free: signal-safe */

static void on_confine(int sig) {
  (void)sig;
  int e = errno, rc = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ? -1 : 0;
  if (!rc && g_confine_rs >= 0 && syscall(SYS_landlock_restrict_self, (int)g_confine_rs, 0)) rc = -1;
  if (!rc && drop_caps_thread()) rc = -1;
  g_confine_rc = rc;
  g_confine_done = (int)syscall(SYS_gettid);
  errno = e;
}

static int confine_others(int rs, cl1_err *err) {
  int sig = SIGRTMIN + 5, rc = 0;
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_confine;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(sig, &sa, &old)) return cl1_err_set(err, "sandbox: sigaction: %s", strerror(errno));
  g_confine_rs = rs;
  pid_t self = getpid(), me = (pid_t)syscall(SYS_gettid);
  pid_t done[256];
  int n_done = 0;
  for (int round = 0, fresh = 1; fresh && !rc; round++) {
    if (round == 20) { rc = cl1_err_set(err, "sandbox: the driver keeps starting threads"); break; }
    fresh = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d) { rc = cl1_err_set(err, "sandbox: /proc/self/task: %s", strerror(errno)); break; }
    for (struct dirent *e; !rc && (e = readdir(d));) {
      pid_t tid = (pid_t)atoi(e->d_name);
      bool seen = tid <= 0 || tid == me;
      for (int i = 0; i < n_done && !seen; i++) seen = done[i] == tid;
      if (seen) continue;
      if (n_done == 256) { rc = cl1_err_set(err, "sandbox: too many threads"); break; }
      assert(n_done < 256);
      fresh = 1;
      g_confine_done = 0;
      if (syscall(SYS_tgkill, self, tid, sig)) {
        if (errno == ESRCH) continue;   /* it ended meanwhile */
        rc = cl1_err_set(err, "sandbox: tgkill(%d): %s", (int)tid, strerror(errno));
        break;
      }
      for (int ms = 0; g_confine_done != tid && ms < 1000; ms++) {
        struct timespec t = {0, 1000000};
        nanosleep(&t, NULL);
        if (g_confine_done != tid && syscall(SYS_tgkill, self, tid, 0) && errno == ESRCH) break;
      }
      if (g_confine_done == tid && g_confine_rc)
        rc = cl1_err_set(err, "sandbox: thread %d could not be confined", (int)tid);
      else if (g_confine_done != tid && !syscall(SYS_tgkill, self, tid, 0))
        rc = cl1_err_set(err, "sandbox: thread %d did not take the confining signal", (int)tid);
      done[n_done++] = tid;
    }
    closedir(d);
  }
  sigaction(sig, &old, NULL);
  assert(n_done <= 256);
  g_confine_rs = -1;
  return rc;
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

/* Whole syscalls no candidate needs, by group. */
static int deny_groups(scmp_filter_ctx f) {
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
  return rc;
}

/* New tasks: none on the host, threads only on CUDA (the driver starts its own). */
static int deny_clone(scmp_filter_ctx f, cl1_backend b) {
  /* clone3 cannot be filtered on its flags (they sit in memory): ENOSYS makes glibc fall back to
     clone, whose flags can be. Host: no new tasks at all. CUDA: threads only. */
  int rc = deny(f, ENOSYS, "clone3", 0, NULL);
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
  return rc;
}

/* Reaching other processes through signals or their limits. */
static int deny_others(scmp_filter_ctx f) {
  int rc = 0;
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
  return rc;
}

/* Writing files through open flags. */
static int deny_open_writes(scmp_filter_ctx f, cl1_backend b) {
  int rc = 0;
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
  /* On the host nothing needs O_RDWR once confined: refused too, so that a kernel without
     Landlock does not leave existing files and devices writable (escapes/host/dev_write.c) */
  if (!rc && b == CL1_BACKEND_HOST) {
    struct scmp_arg_cmp a1 = SCMP_A1(SCMP_CMP_MASKED_EQ, O_RDWR, O_RDWR);
    struct scmp_arg_cmp a2 = SCMP_A2(SCMP_CMP_MASKED_EQ, O_RDWR, O_RDWR);
    rc = deny(f, EPERM, "open", 1, &a1);
    if (!rc) rc = deny(f, EPERM, "openat", 1, &a2);
  }
  return rc;
}

static int seccomp_filter(cl1_backend b, cl1_err *err) {
  assert(b == CL1_BACKEND_HOST || b == CL1_BACKEND_CUDA);
  scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
  if (!f) return cl1_err_set(err, "sandbox: seccomp_init failed");
  int rc = deny_groups(f);
  if (!rc) rc = deny_clone(f, b);
  if (!rc) rc = deny_others(f);
  if (!rc) rc = deny_open_writes(f, b);
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
  int rs = landlock_ruleset(o->tmpdir, o->backend, false);
  /* Not yet run on a GPU (written after this session's last device call): a failure leaves the
     driver's threads as they were before confine_others existed, said in the worker's log,
     rather than failing every CUDA evaluation. */
  cl1_err cerr = {{0}};
  if (o->backend == CL1_BACKEND_CUDA && confine_others(rs, &cerr))
    cl1_log_warn("%s; those threads keep the privileges they started with", cerr.msg);
  int rc = drop_caps(err);
  if (!rc && chdir(o->tmpdir))
    rc = cl1_err_set(err, "sandbox: chdir(%s): %s", o->tmpdir, strerror(errno));
  if (!rc && setenv("TMPDIR", o->tmpdir, 1)) rc = cl1_err_set(err, "sandbox: setenv TMPDIR failed");
  if (rc) {
    if (rs >= 0) close(rs);
    return -1;
  }
  if (rs >= 0) {
    if (syscall(SYS_landlock_restrict_self, rs, 0))
      cl1_log_debug("sandbox: landlock_restrict_self: %s", strerror(errno));
    close(rs);
  }
  return seccomp_filter(o->backend, err);
}

/* The build step of a Python solution (src/eval/pybuild.h): importing the module runs its
 * load_inline, i.e. the candidate's top-level code and a compiler. Processes and threads stay
 * allowed (nvcc, ninja); what is confined is where it writes (beneath dir and /dev/null), the
 * network (Unix sockets only), the machine-wide syscalls, signals to the program that started it,
 * and its memory and CPU time. */
int cl1_sandbox_confine_build(const char *dir, size_t mem_bytes, int cpu_seconds, cl1_err *err) {
  if (!dir || !*dir) return cl1_err_set(err, "sandbox: no build dir given");
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
    return cl1_err_set(err, "sandbox: PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
  if ((mem_bytes && limit(RLIMIT_AS, mem_bytes, mem_bytes, "AS", err)) ||
      (cpu_seconds > 0 &&
       limit(RLIMIT_CPU, (rlim_t)cpu_seconds, (rlim_t)cpu_seconds + 1, "CPU", err)) ||
      limit(RLIMIT_CORE, 0, 0, "CORE", err))
    return -1;
  int rs = landlock_ruleset(dir, CL1_BACKEND_CUDA, true); /* the GPU: a Triton call starts CUDA */
  if (rs >= 0) {
    if (syscall(SYS_landlock_restrict_self, rs, 0))
      cl1_log_debug("sandbox: landlock_restrict_self: %s", strerror(errno));
    close(rs);
  }
  if (drop_caps(err)) return -1;
  scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
  if (!f) return cl1_err_set(err, "sandbox: seccomp_init failed");
  struct scmp_arg_cmp inet = SCMP_A0(SCMP_CMP_NE, AF_UNIX);
  struct scmp_arg_cmp parent = SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getppid());
  static const char *const none[] = {"ptrace", "process_vm_readv", "process_vm_writev",
                                     "pidfd_getfd", "bpf", "perf_event_open", "io_uring_setup",
                                     "userfaultfd", "mount", "umount2", "pivot_root", "chroot",
                                     "setns", "reboot", "init_module", "finit_module",
                                     "kexec_load", NULL};
  struct scmp_arg_cmp other = SCMP_A0(SCMP_CMP_NE, 0); /* glibc's own calls pass pid 0 */
  int rc = deny(f, EACCES, "socket", 1, &inet);
  if (!rc) rc = deny(f, EPERM, "kill", 1, &parent);
  if (!rc) rc = deny(f, EPERM, "prlimit64", 1, &other);
  if (!rc) rc = deny_all(f, none);
  if (!rc) rc = seccomp_load(f);
  seccomp_release(f);
  if (rc) return cl1_err_set(err, "sandbox: seccomp filter: %s", strerror(-rc));
  return 0;
}
