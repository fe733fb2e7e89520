/* gate_sym.c — the gate's symbol allowlist (gate.h): what a built solution may import. The .so's
 * undefined dynamic symbols are read with libelf and each is matched against a table of
 * (pattern, category) rules: explicit denials first (so a broad allow like `cuda*` cannot let
 * cudaDeviceReset through), then allows; anything unmatched is refused. Patterns are fnmatch(3)
 * globs; mangled C++ names contain no glob characters.
 *
 * The allowlist is a first line, not the wall: a solution can still reach other libc functions
 * through pointer arithmetic from an allowed one, which is why the worker also runs the candidate
 * in the sandbox (sandbox.h).
 *
 * The same table serves the other direction (rule "interpose"): a solution must not define, with
 * external linkage, a name that belongs to the C library, libm or the CUDA libraries (a
 * clock_gettime or cudaEventElapsedTime of its own is an attempt on the harness's timer; in the
 * worker's dlopen(RTLD_LOCAL) it binds only the solution's own calls and those of libraries it
 * pulls in, but nothing honest needs it, and a later change of loading must not make it work). */
#include "gate.h"
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { DENY, ALLOW };
enum { B_HOST = 1, B_CUDA = 2, B_ALL = 3 };

typedef struct {
  const char *pat;
  int action;
  int backends;
  const char *cat;   /* for denials: the category word in the message; for allows: a note */
} rule;

static const rule rules[] = {
  /* --- denials: CUDA runtime calls that reach outside the call --- */
  {"cudaDeviceReset", DENY, B_CUDA, "device reset/limits"},
  {"cudaDeviceSetLimit", DENY, B_CUDA, "device reset/limits"},
  {"cudaThreadSetLimit", DENY, B_CUDA, "device reset/limits"},
  {"cudaThreadExit", DENY, B_CUDA, "device reset/limits"},
  {"cudaCtxResetPersistingL2Cache", DENY, B_CUDA, "persisting L2"},
  {"cudaDeviceSetPersistingL2CacheSize", DENY, B_CUDA, "persisting L2"},
  {"cudaStreamSetAttribute", DENY, B_CUDA, "persisting L2"},
  {"cudaGraph*NodeSetAttribute", DENY, B_CUDA, "persisting L2"},
  {"cudaIpc*", DENY, B_CUDA, "IPC"},
  {"cudaSetDevice", DENY, B_CUDA, "device-wide state"},
  {"cudaSetDeviceFlags", DENY, B_CUDA, "device-wide state"},
  {"cudaSetValidDevices", DENY, B_CUDA, "device-wide state"},
  {"cudaInitDevice", DENY, B_CUDA, "device-wide state"},
  {"cudaDeviceSetCacheConfig", DENY, B_CUDA, "device-wide state"},
  {"cudaDeviceSetSharedMemConfig", DENY, B_CUDA, "device-wide state"},
  {"cudaThreadSetCacheConfig", DENY, B_CUDA, "device-wide state"},
  {"cudaThreadSetSharedMemConfig", DENY, B_CUDA, "device-wide state"},
  {"cudaDeviceSetMemPool", DENY, B_CUDA, "device-wide state"},
  {"cudaDeviceSetGraphMemAttribute", DENY, B_CUDA, "device-wide state"},
  {"cudaHostRegister", DENY, B_CUDA, "pinning host memory"},
  {"cudaHostUnregister", DENY, B_CUDA, "pinning host memory"},
  {"cudaProfiler*", DENY, B_CUDA, "profiler"},
  {"cudaGetExportTable", DENY, B_CUDA, "driver API escape"},
  {"cudaGetDriverEntryPoint*", DENY, B_CUDA, "driver API escape"},
  {"cudaLaunchHostFunc", DENY, B_CUDA, "host work"},
  {"cuda*Callback*", DENY, B_CUDA, "host work"},
  {"cudaGraph*HostNode*", DENY, B_CUDA, "host work"},
  /* the generic node API adds or retargets any node type, host nodes included */
  {"cudaGraphAddNode*", DENY, B_CUDA, "host work (the generic node API can add host nodes)"},
  {"cudaGraphNodeSetParams", DENY, B_CUDA, "host work (the generic node API can set host nodes)"},
  {"cudaGraphExecNodeSetParams", DENY, B_CUDA, "host work (the generic node API can set host nodes)"},
  /* the driver API is not on the allowlist at all; these are named so the message says why */
  {"cuLaunchHostFunc*", DENY, B_CUDA, "host work"},
  {"cuStreamAddCallback*", DENY, B_CUDA, "host work"},
  {"cuGraph*HostNode*", DENY, B_CUDA, "host work"},
  {"cuGraphAddNode*", DENY, B_CUDA, "host work (the generic node API can add host nodes)"},
  {"cuGraphNodeSetParams", DENY, B_CUDA, "host work (the generic node API can set host nodes)"},
  {"cuGraphExecNodeSetParams", DENY, B_CUDA, "host work (the generic node API can set host nodes)"},
  {"cuUserObjectCreate", DENY, B_CUDA, "host work"},
  {"cuGetProcAddress*", DENY, B_CUDA, "driver API escape"},
  {"cuGetExportTable", DENY, B_CUDA, "driver API escape"},
  {"cudaUserObjectCreate", DENY, B_CUDA, "host work"},
  {"cudaLibraryLoadFromFile", DENY, B_CUDA, "files"},
  {"cublas*Logger*", DENY, B_CUDA, "files"},
  {"cudnn*Logger*", DENY, B_CUDA, "files"},
  {"cudnnSetCallback", DENY, B_CUDA, "host work"},
  /* --- allows: CUDA (after their denials, before the libc denials: the prefixes never overlap) --- */
  {"cuda*", ALLOW, B_CUDA, "CUDA runtime"},
  {"__cuda*", ALLOW, B_CUDA, "nvcc registration glue"},
  {"cublas*", ALLOW, B_CUDA, "cuBLAS/cuBLASLt"},
  {"cudnn*", ALLOW, B_CUDA, "cuDNN"},
  {"cl1_op_*", ALLOW, B_ALL, "op library"},
  /* --- denials: libc / C++ runtime, named so the message says why --- */
  /* exit on cuda: the device image's nvcc/gcc 13 glue imports it from some kernels' static
     init (seen on the H200 machine for block-reduction kernels); calling it only ends the
     worker, which the judge reports as a crash. */
  {"exit", ALLOW, B_CUDA, "C runtime (ends the worker: a crash verdict)"},
  {"exit", DENY, B_ALL, "processes (a solution must return)"},
  {"_exit", DENY, B_ALL, "processes (a solution must return)"},
  {"_Exit", DENY, B_ALL, "processes (a solution must return)"},
  {"quick_exit", DENY, B_ALL, "processes (a solution must return)"},
  {"atexit", DENY, B_ALL, "processes"},
  {"fork", DENY, B_ALL, "processes"}, {"vfork", DENY, B_ALL, "processes"},
  {"clone*", DENY, B_ALL, "processes"}, {"exec*", DENY, B_ALL, "processes"},
  {"fexecve", DENY, B_ALL, "processes"}, {"system", DENY, B_ALL, "processes"},
  {"popen", DENY, B_ALL, "processes"}, {"pclose", DENY, B_ALL, "processes"},
  {"posix_spawn*", DENY, B_ALL, "processes"}, {"wait*", DENY, B_ALL, "processes"},
  {"getpid", DENY, B_ALL, "processes"}, {"getppid", DENY, B_ALL, "processes"},
  {"ptrace", DENY, B_ALL, "processes"}, {"prctl", DENY, B_ALL, "processes"},
  {"pthread_*", DENY, B_ALL, "threads"}, {"thrd_*", DENY, B_ALL, "threads"},
  {"mtx_*", DENY, B_ALL, "threads"}, {"cnd_*", DENY, B_ALL, "threads"},
  {"omp_*", DENY, B_ALL, "threads"}, {"GOMP_*", DENY, B_ALL, "threads"},
  {"__kmpc_*", DENY, B_ALL, "threads"}, {"sched_*", DENY, B_ALL, "threads"},
  {"_ZNSt6thread*", DENY, B_ALL, "threads"}, {"_ZNSt11this_thread*", DENY, B_ALL, "threads"},
  {"_ZNSt18condition_variable*", DENY, B_ALL, "threads"},
  {"_ZSt9call_once*", DENY, B_ALL, "threads"}, {"__once_proxy", DENY, B_ALL, "threads"},
  {"fopen*", DENY, B_ALL, "files"}, {"freopen*", DENY, B_ALL, "files"},
  {"fdopen", DENY, B_ALL, "files"}, {"fclose", DENY, B_ALL, "files"}, {"tmpfile*", DENY, B_ALL, "files"},
  {"open", DENY, B_ALL, "files"}, {"open64", DENY, B_ALL, "files"},
  {"openat*", DENY, B_ALL, "files"}, {"__open*", DENY, B_ALL, "files"},
  {"creat*", DENY, B_ALL, "files"}, {"read", DENY, B_ALL, "files"},
  {"write", DENY, B_ALL, "files"}, {"pread*", DENY, B_ALL, "files"},
  {"pwrite*", DENY, B_ALL, "files"}, {"readv", DENY, B_ALL, "files"},
  {"writev", DENY, B_ALL, "files"}, {"close", DENY, B_ALL, "files"},
  {"lseek*", DENY, B_ALL, "files"}, {"fread", DENY, B_ALL, "files"},
  {"fgets", DENY, B_ALL, "files"}, {"fgetc", DENY, B_ALL, "files"},
  {"getc", DENY, B_ALL, "files"}, {"getchar", DENY, B_ALL, "files"},
  {"*scanf*", DENY, B_ALL, "files"}, {"remove", DENY, B_ALL, "files"},
  {"unlink*", DENY, B_ALL, "files"}, {"rename*", DENY, B_ALL, "files"},
  {"mkdir*", DENY, B_ALL, "files"}, {"rmdir", DENY, B_ALL, "files"},
  {"*stat", DENY, B_ALL, "files"}, {"*stat64", DENY, B_ALL, "files"},
  {"__xstat*", DENY, B_ALL, "files"}, {"access", DENY, B_ALL, "files"},
  {"opendir", DENY, B_ALL, "files"}, {"readdir*", DENY, B_ALL, "files"},
  {"chdir", DENY, B_ALL, "files"}, {"getcwd", DENY, B_ALL, "files"},
  {"*truncate*", DENY, B_ALL, "files"}, {"mkstemp*", DENY, B_ALL, "files"},
  {"tmpnam*", DENY, B_ALL, "files"}, {"fcntl*", DENY, B_ALL, "files"},
  {"ioctl", DENY, B_ALL, "files"}, {"dup*", DENY, B_ALL, "files"},
  {"pipe*", DENY, B_ALL, "files"}, {"sendfile*", DENY, B_ALL, "files"},
  {"stdin", DENY, B_ALL, "files"}, {"_ZNSt*fstream*", DENY, B_ALL, "files"},
  {"_ZNSt*filebuf*", DENY, B_ALL, "files"}, {"_ZNSt10filesystem*", DENY, B_ALL, "files"},
  {"_ZSt3cin", DENY, B_ALL, "files"},
  {"socket*", DENY, B_ALL, "network"}, {"connect", DENY, B_ALL, "network"},
  {"bind", DENY, B_ALL, "network"}, {"listen", DENY, B_ALL, "network"},
  {"accept*", DENY, B_ALL, "network"}, {"send*", DENY, B_ALL, "network"},
  {"recv*", DENY, B_ALL, "network"}, {"getaddrinfo", DENY, B_ALL, "network"},
  {"gethostby*", DENY, B_ALL, "network"}, {"inet_*", DENY, B_ALL, "network"},
  {"dlopen*", DENY, B_ALL, "dynamic loading"}, {"dlsym*", DENY, B_ALL, "dynamic loading"},
  {"dlvsym*", DENY, B_ALL, "dynamic loading"}, {"dlclose", DENY, B_ALL, "dynamic loading"},
  {"dladdr*", DENY, B_ALL, "dynamic loading"}, {"dlinfo", DENY, B_ALL, "dynamic loading"},
  {"dlerror", DENY, B_ALL, "dynamic loading"}, {"dl_iterate_phdr", DENY, B_ALL, "dynamic loading"},
  {"__libc_dl*", DENY, B_ALL, "dynamic loading"},
  {"signal", DENY, B_ALL, "signals"}, {"sigaction", DENY, B_ALL, "signals"},
  {"raise", DENY, B_ALL, "signals"}, {"kill*", DENY, B_ALL, "signals"},
  {"sigqueue", DENY, B_ALL, "signals"}, {"tgkill", DENY, B_ALL, "signals"},
  {"alarm", DENY, B_ALL, "signals"}, {"setitimer", DENY, B_ALL, "signals"},
  {"sigprocmask", DENY, B_ALL, "signals"}, {"*sigset*", DENY, B_ALL, "signals"},
  {"clock*", DENY, B_ALL, "time"}, {"gettimeofday", DENY, B_ALL, "time"},
  {"time", DENY, B_ALL, "time"}, {"times", DENY, B_ALL, "time"},
  {"*sleep", DENY, B_ALL, "time"}, {"timer_*", DENY, B_ALL, "time"},
  {"_ZNSt6chrono*", DENY, B_ALL, "time"},
  {"syscall", DENY, B_ALL, "system calls"},
  {"mmap*", DENY, B_ALL, "memory mapping"}, {"munmap", DENY, B_ALL, "memory mapping"},
  {"mprotect", DENY, B_ALL, "memory mapping"}, {"mremap", DENY, B_ALL, "memory mapping"},
  {"madvise", DENY, B_ALL, "memory mapping"}, {"mlock*", DENY, B_ALL, "memory mapping"},
  {"*getenv", DENY, B_ALL, "environment"}, {"setenv", DENY, B_ALL, "environment"},
  {"putenv", DENY, B_ALL, "environment"}, {"unsetenv", DENY, B_ALL, "environment"},
  {"environ", DENY, B_ALL, "environment"},
  {"*setjmp*", DENY, B_ALL, "non-local jumps"}, {"*longjmp*", DENY, B_ALL, "non-local jumps"},
  /* --- allows: libc memory, strings, formatting to the (capped) stdout/stderr logs --- */
  {"memcpy", ALLOW, B_ALL, 0}, {"memmove", ALLOW, B_ALL, 0}, {"memset", ALLOW, B_ALL, 0},
  {"memcmp", ALLOW, B_ALL, 0}, {"memchr", ALLOW, B_ALL, 0}, {"strlen", ALLOW, B_ALL, 0},
  {"strnlen", ALLOW, B_ALL, 0}, {"strcmp", ALLOW, B_ALL, 0}, {"strncmp", ALLOW, B_ALL, 0},
  {"strcpy", ALLOW, B_ALL, 0}, {"strncpy", ALLOW, B_ALL, 0}, {"strchr", ALLOW, B_ALL, 0},
  {"strrchr", ALLOW, B_ALL, 0}, {"strstr", ALLOW, B_ALL, 0}, {"strcat", ALLOW, B_ALL, 0},
  {"strncat", ALLOW, B_ALL, 0}, {"strtol", ALLOW, B_ALL, 0}, {"strtoul", ALLOW, B_ALL, 0},
  {"strtod", ALLOW, B_ALL, 0}, {"strtof", ALLOW, B_ALL, 0}, {"atoi", ALLOW, B_ALL, 0},
  /* glibc >= 2.38 compiles strtol and atoi (and strtoul/ll/ull) in C2x and C++ modes to these
     (the GPU machine's headers do: an honest atoi was rejected there) */
  {"__isoc23_strtol", ALLOW, B_ALL, 0}, {"__isoc23_strtoul", ALLOW, B_ALL, 0},
  {"__isoc23_strtoll", ALLOW, B_ALL, 0}, {"__isoc23_strtoull", ALLOW, B_ALL, 0},
  {"atof", ALLOW, B_ALL, 0}, {"malloc", ALLOW, B_ALL, 0}, {"calloc", ALLOW, B_ALL, 0},
  {"realloc", ALLOW, B_ALL, 0}, {"free", ALLOW, B_ALL, 0}, {"aligned_alloc", ALLOW, B_ALL, 0},
  {"posix_memalign", ALLOW, B_ALL, 0}, {"qsort", ALLOW, B_ALL, 0}, {"bsearch", ALLOW, B_ALL, 0},
  {"abs", ALLOW, B_ALL, 0}, {"labs", ALLOW, B_ALL, 0}, {"llabs", ALLOW, B_ALL, 0},
  {"printf", ALLOW, B_ALL, 0}, {"vprintf", ALLOW, B_ALL, 0}, {"puts", ALLOW, B_ALL, 0},
  {"putchar", ALLOW, B_ALL, 0}, {"fprintf", ALLOW, B_ALL, 0}, {"vfprintf", ALLOW, B_ALL, 0},
  {"fputs", ALLOW, B_ALL, 0}, {"fputc", ALLOW, B_ALL, 0}, {"putc", ALLOW, B_ALL, 0},
  {"fwrite", ALLOW, B_ALL, "needs a FILE*: only stdout/stderr are reachable"},
  {"fflush", ALLOW, B_ALL, 0}, {"perror", ALLOW, B_ALL, 0}, {"snprintf", ALLOW, B_ALL, 0},
  {"sprintf", ALLOW, B_ALL, 0}, {"vsnprintf", ALLOW, B_ALL, 0}, {"vsprintf", ALLOW, B_ALL, 0},
  {"stdout", ALLOW, B_ALL, 0}, {"stderr", ALLOW, B_ALL, 0}, {"strerror", ALLOW, B_ALL, 0},
  {"__printf_chk", ALLOW, B_ALL, 0}, {"__fprintf_chk", ALLOW, B_ALL, 0},
  {"__sprintf_chk", ALLOW, B_ALL, 0}, {"__snprintf_chk", ALLOW, B_ALL, 0},
  {"__vsnprintf_chk", ALLOW, B_ALL, 0}, {"__vfprintf_chk", ALLOW, B_ALL, 0},
  {"__vprintf_chk", ALLOW, B_ALL, 0}, {"__memcpy_chk", ALLOW, B_ALL, 0},
  {"__memset_chk", ALLOW, B_ALL, 0}, {"__memmove_chk", ALLOW, B_ALL, 0},
  {"__strcpy_chk", ALLOW, B_ALL, 0}, {"__strncpy_chk", ALLOW, B_ALL, 0},
  {"__strcat_chk", ALLOW, B_ALL, 0}, {"__stack_chk_fail", ALLOW, B_ALL, 0},
  {"__assert_fail", ALLOW, B_ALL, 0}, {"abort", ALLOW, B_ALL, 0},
  {"__errno_location", ALLOW, B_ALL, 0}, {"__tls_get_addr", ALLOW, B_ALL, "thread-locals"},
  {"__isnan*", ALLOW, B_ALL, 0}, {"__isinf*", ALLOW, B_ALL, 0}, {"__finite*", ALLOW, B_ALL, 0},
  {"__fpclassify*", ALLOW, B_ALL, 0}, {"__signbit*", ALLOW, B_ALL, 0},
  /* --- allows: the C++ runtime's allocation, exception and static-init glue --- */
  {"_Znwm*", ALLOW, B_ALL, 0}, {"_Znam*", ALLOW, B_ALL, 0}, {"_ZdlPv*", ALLOW, B_ALL, 0},
  {"_ZdaPv*", ALLOW, B_ALL, 0}, {"__cxa_*", ALLOW, B_ALL, 0},
  {"__gxx_personality_v0", ALLOW, B_ALL, 0}, {"_Unwind_Resume", ALLOW, B_ALL, 0},
  {"__dso_handle", ALLOW, B_ALL, 0}, {"_ZSt9terminatev", ALLOW, B_ALL, 0},
  {"_ZSt*__throw_*", ALLOW, B_ALL, 0}, {"_ZTVN10__cxxabiv1*", ALLOW, B_ALL, 0},
  {"_ZTISt*", ALLOW, B_ALL, 0}, {"_ZTSSt*", ALLOW, B_ALL, 0},
  {"_ZTI?", ALLOW, B_ALL, "typeinfo of a builtin type"}, {"_ZTIP?", ALLOW, B_ALL, 0},
  {"_ZTIPK?", ALLOW, B_ALL, 0},
  {"_ZNSt9exception*", ALLOW, B_ALL, 0}, {"_ZNKSt9exception*", ALLOW, B_ALL, 0},
  {"_ZNSt9bad_alloc*", ALLOW, B_ALL, 0}, {"_ZNKSt9bad_alloc*", ALLOW, B_ALL, 0},
  {"_ZNSt13runtime_error*", ALLOW, B_ALL, 0}, {"_ZNKSt13runtime_error*", ALLOW, B_ALL, 0},
  {"_ZNSt11logic_error*", ALLOW, B_ALL, 0}, {"_ZNSt16invalid_argument*", ALLOW, B_ALL, 0},
  {"_ZNSt12out_of_range*", ALLOW, B_ALL, 0}, {"_ZNSt12length_error*", ALLOW, B_ALL, 0},
  /* iostream to std::cout/std::cerr only (the stream objects; file streams are denied above) */
  {"_ZSt4cout", ALLOW, B_ALL, 0}, {"_ZSt4cerr", ALLOW, B_ALL, 0},
  {"_ZNSo*", ALLOW, B_ALL, "std::ostream members"}, {"_ZSt16__ostream_insert*", ALLOW, B_ALL, 0},
  {"_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_*", ALLOW, B_ALL, "operator<<"},
  {"_ZNSt8ios_base4Init*", ALLOW, B_ALL, 0}, {"_ZSt4endl*", ALLOW, B_ALL, 0},
  {"_ZNKSt5ctypeIcE13_M_widen_initEv", ALLOW, B_ALL, 0},
  {"_ITM_registerTMCloneTable", ALLOW, B_ALL, 0}, {"_ITM_deregisterTMCloneTable", ALLOW, B_ALL, 0},
  {"__gmon_start__", ALLOW, B_ALL, 0},
};

/* libm names, allowed with their f and l variants */
static const char *const libm[] = {
  "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh",
  "atanh", "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "logb", "ilogb",
  "pow", "sqrt", "cbrt", "hypot", "fabs", "floor", "ceil", "round", "lround", "llround", "trunc",
  "fmod", "remainder", "remquo", "fmin", "fmax", "fdim", "fma", "erf", "erfc", "lgamma",
  "tgamma", "frexp", "ldexp", "scalbn", "scalbln", "modf", "nan", "copysign", "rint", "lrint",
  "llrint", "nearbyint", "nextafter", "sincos", NULL};

static bool is_libm(const char *name) {
  size_t n = strlen(name);
  for (int i = 0; libm[i]; i++) {
    size_t m = strlen(libm[i]);
    if (!strncmp(name, libm[i], m) && (n == m || (n == m + 1 && (name[m] == 'f' || name[m] == 'l'))))
      return true;
  }
  return false;
}

const char *cl1_gate_symbol_category(const char *name, cl1_backend b) {
  int bb = b == CL1_BACKEND_CUDA ? B_CUDA : B_HOST;
  if (b == CL1_BACKEND_HOST &&
      (!strncmp(name, "cuda", 4) || !strncmp(name, "__cuda", 6) || !strncmp(name, "cublas", 6) ||
       !strncmp(name, "cudnn", 5)))
    return "CUDA on the host backend";
  /* libcudart exports per-thread-default-stream entry points beside each stream call
     (cudaLaunchHostFunc_ptsz, cudaMemcpy_ptds, ...): a denial covers them under either suffix,
     and a cu* driver name's _v2.._v9 versions likewise */
  char base[256];
  snprintf(base, sizeof base, "%s", name);
  size_t n = strlen(base);
  if (n > 5 && (!strcmp(base + n - 5, "_ptsz") || !strcmp(base + n - 5, "_ptds"))) base[n -= 5] = 0;
  if (n > 3 && base[n - 3] == '_' && base[n - 2] == 'v' && base[n - 1] >= '2' && base[n - 1] <= '9')
    base[n - 3] = 0;
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
    const rule *r = &rules[i];
    if (!(r->backends & bb)) continue;
    bool hit = !fnmatch(r->pat, name, 0) || (r->action == DENY && !fnmatch(r->pat, base, 0));
    if (!hit) continue;
    return r->action == ALLOW ? NULL : r->cat;
  }
  if (is_libm(name)) return NULL;
  return "";
}

/* Globs of the table whose literal prefix names a library's own family of functions (pthread_,
 * cuda, ...) rather than a common word a solution's helper could start with (send, wait, dup). */
static bool family_glob(const char *pat) {
  size_t n = strlen(pat);
  if (n < 2 || pat[n - 1] != '*' || strpbrk(pat, "?[") || memchr(pat, '*', n - 1)) return false;
  return pat[n - 2] == '_' || !strncmp(pat, "__", 2) || !strncmp(pat, "GOMP", 4);
}

/* prefix + an upper-case letter: cudaMalloc, cublasSgemm_v2, cudnnCreate (not cudal1_helper) */
static bool api_name(const char *name, const char *prefix) {
  size_t n = strlen(prefix);
  return !strncmp(name, prefix, n) && name[n] >= 'A' && name[n] <= 'Z';
}

/* Names of the C library's clocks and sleeps that the table covers only by broad globs. */
static const char *const time_names[] = {
  "clock", "clock_gettime", "clock_getres", "clock_settime", "clock_nanosleep", "nanosleep",
  "usleep", "sleep", "timespec_get", "ftime", "fopen", "fopen64", "dlopen", "dlsym", "socket",
  NULL};

/* CUDA driver API families (cuEventRecord, cuCtxSynchronize, ...): cu + one of these words. */
static const char *const driver_families[] = {
  "Init", "Ctx", "Event", "Stream", "Mem", "Launch", "Module", "Graph", "Device", "Get",
  "Library", "Func", "Kernel", "Driver", "Profiler", "Occupancy", "Pointer", "Tex", "Surf",
  "Array", "Ipc", "Import", "External", "Signal", "Wait", "User", "Coredump", "Link", "Tensor",
  "Mipmapped", "Multicast", NULL};

/* 1 if a solution may not define `name` with external linkage (see the header). Mangled C++
 * names and the solution's own cl1_ names are never reserved. */
static bool reserved_name(const char *name) {
  if (!name || !*name || !strncmp(name, "_Z", 2) || !strncmp(name, "cl1_", 4)) return false;
  if (is_libm(name)) return true;
  for (int i = 0; time_names[i]; i++)
    if (!strcmp(name, time_names[i])) return true;
  if (!strncmp(name, "cu", 2) && name[2] >= 'A' && name[2] <= 'Z')
    for (int i = 0; driver_families[i]; i++)
      if (!strncmp(name + 2, driver_families[i], strlen(driver_families[i]))) return true;
  if (api_name(name, "cuda") || api_name(name, "cublas") || api_name(name, "cudnn")) return true;
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
    const char *pat = rules[i].pat;
    if (!strncmp(pat, "cl1_", 4) || !strncmp(pat, "_Z", 2) || !strncmp(pat, "cu", 2)) continue;
    bool glob = strpbrk(pat, "*?[") != NULL;
    if (!glob ? !strcmp(name, pat) : family_glob(pat) && !fnmatch(pat, name, 0)) return true;
  }
  return false;
}

int cl1_gate_symbol_allowed(const char *name, cl1_backend b) {
  return name && *name && cl1_gate_symbol_category(name, b) == NULL;
}

/* The "size" rule on what loading the .so maps (gate.h). */
static int load_size_rule(Elf *e, cl1_gate_verdict *v) {
  size_t n = 0;
  if (elf_getphdrnum(e, &n)) return 0;
  unsigned long long total = 0;
  for (size_t i = 0; i < n; i++) {
    GElf_Phdr ph;
    if (!gelf_getphdr(e, (int)i, &ph)) continue;
    if (ph.p_type == PT_LOAD || ph.p_type == PT_TLS) total += ph.p_memsz;
  }
  if (total <= CL1_GATE_MAX_LOAD_BYTES) return 0;
  snprintf(v->rule, sizeof v->rule, "size");
  snprintf(v->why, sizeof v->why, "its segments take %.0f MiB once loaded (static arrays count in "
           "full), over the %zu MiB a solution may map: allocate large buffers at run time",
           total / 1048576.0, CL1_GATE_MAX_LOAD_BYTES >> 20);
  return 1;
}

int cl1_gate_symbols(const char *so_path, cl1_backend b, cl1_gate_verdict *v, cl1_err *err) {
  memset(v, 0, sizeof *v);
  if (elf_version(EV_CURRENT) == EV_NONE) return cl1_err_set(err, "gate: libelf is unusable");
  int fd = open(so_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return cl1_err_set(err, "gate: cannot open %s", so_path);
  Elf *e = elf_begin(fd, ELF_C_READ, NULL);
  int rc = 0, nothers = 0;
  bool found = false, has_cat = false;
  char first[256] = "", others[300] = "", interposed[256] = "";
  if (!e || elf_kind(e) != ELF_K_ELF) {
    rc = cl1_err_set(err, "gate: %s is not an ELF file (%s)", so_path, elf_errmsg(-1));
    goto out;
  }
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn)) && rc == 0;) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    if (sh.sh_type != SHT_DYNSYM) continue;
    found = true;
    Elf_Data *d = elf_getdata(scn, NULL);
    if (!d || !sh.sh_entsize) {
      rc = cl1_err_set(err, "gate: %s: unreadable .dynsym", so_path);
      break;
    }
    size_t n = sh.sh_size / sh.sh_entsize;
    for (size_t i = 1; i < n; i++) {
      GElf_Sym s;
      if (!gelf_getsym(d, (int)i, &s)) continue;
      if (s.st_shndx != SHN_UNDEF) {
        int bind = GELF_ST_BIND(s.st_info);
        const char *name = elf_strptr(e, sh.sh_link, s.st_name);
        if (!interposed[0] && (bind == STB_GLOBAL || bind == STB_WEAK || bind == STB_GNU_UNIQUE) &&
            reserved_name(name))
          snprintf(interposed, sizeof interposed, "%s", name);
        continue;
      }
      const char *name = elf_strptr(e, sh.sh_link, s.st_name);
      if (!name || !*name) continue;
      const char *cat = cl1_gate_symbol_category(name, b);
      if (!cat) continue;
      /* the message leads with a denial that has a category (more telling than "not listed") */
      if (!v->rule[0] || (*cat && !has_cat)) {
        if (v->rule[0]) snprintf(others + strlen(others), sizeof others - strlen(others), "%s'%.60s'",
                                 nothers++ ? ", " : "", first);
        snprintf(first, sizeof first, "%s", name);
        snprintf(v->rule, sizeof v->rule, "symbol");
        if (*cat) snprintf(v->why, sizeof v->why, "imports '%.200s' (not allowed: %s)", name, cat);
        else snprintf(v->why, sizeof v->why, "imports '%.200s' (not on the allowlist)", name);
        has_cat = *cat != 0;
      } else if (nothers < 4) {
        snprintf(others + strlen(others), sizeof others - strlen(others), "%s'%.60s'",
                 nothers++ ? ", " : "", name);
      }
      rc = 1;
    }
  }
  if (rc == 1 && nothers) {
    size_t l = strlen(v->why);
    snprintf(v->why + l, sizeof v->why - l, "; also %.200s", others);
  }
  if (rc == 0 && !found) rc = cl1_err_set(err, "gate: %s has no dynamic symbol table", so_path);
  if (rc == 0) rc = load_size_rule(e, v);
  if (rc == 0 && interposed[0]) {
    snprintf(v->rule, sizeof v->rule, "interpose");
    snprintf(v->why, sizeof v->why, "defines '%.200s', a name of the C library or the CUDA "
             "libraries: a solution may export only its own names", interposed);
    rc = 1;
  }
out:
  if (e) elf_end(e);
  close(fd);
  return rc;
}

/* What a built solution is made of (evaluation.md, class 13): its imports of the reference's op
 * library, of vendor libraries, and whether it carries device code of its own (a registered
 * kernel or an embedded fatbin). */
int cl1_gate_so_facts(const char *so_path, cl1_so_facts *f, cl1_err *err) {
  memset(f, 0, sizeof *f);
  if (elf_version(EV_CURRENT) == EV_NONE) return cl1_err_set(err, "gate: libelf is unusable");
  int fd = open(so_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return cl1_err_set(err, "gate: cannot open %s", so_path);
  Elf *e = elf_begin(fd, ELF_C_READ, NULL);
  size_t shstr = 0;
  if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstr)) {
    if (e) elf_end(e);
    close(fd);
    return cl1_err_set(err, "gate: %s is not an ELF file", so_path);
  }
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    const char *sname = elf_strptr(e, shstr, sh.sh_name);
    /* not .nv_fatbin: nvcc emits one (cudart's module) for a .cu without a single kernel */
    (void)sname;
    if (sh.sh_type != SHT_DYNSYM) continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    size_t n = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    for (size_t i = 1; i < n; i++) {
      GElf_Sym s;
      if (!gelf_getsym(d, (int)i, &s) || s.st_shndx != SHN_UNDEF) continue;
      const char *name = elf_strptr(e, sh.sh_link, s.st_name);
      if (!name) continue;
      if (!strncmp(name, "cl1_op", 6)) f->calls_op_library = true;
      if (!strcmp(name, "__cudaRegisterFunction")) f->own_device_code = true;
      if (!strncmp(name, "cublas", 6) || !strncmp(name, "cudnn", 5)) f->calls_vendor = true;
    }
  }
  elf_end(e);
  close(fd);
  return 0;
}
