/* doctor_cuda.c — the doctor's probes of the CUDA stack: the GPU (CUDA runtime), the driver and
 * runtime versions, nvcc (where compile.c looks for it) and the architecture candidates are built
 * for against the GPU's compute capability, and the op library with the cuBLAS / cuDNN libraries
 * it links, loaded as a worker loads them, their versions read through their own APIs. Without a
 * GPU these are warnings at most: the host backend needs none of them. */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../base/proc.h"
#include "compile.h"
#include "doctor_int.h"
#include "../worker/dev.h"


/* What a run learned that later probes compare against. */
typedef struct {
  int driver, runtime;    /* cudaDriverGetVersion / cudaRuntimeGetVersion: 13000 = 13.0 */
  int nvcc_major;         /* 0: unknown */
} cuda_facts;



static void probe_gpu(cl1_doctor_report *r, cuda_facts *cf) {
  char kmod[64];
  bool loaded = cl1_dev_driver_version(kmod, sizeof kmod);
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  cudaDriverGetVersion(&cf->driver);
  cudaRuntimeGetVersion(&cf->runtime);
  r->gpu_present = loaded || (!e && n > 0);
  struct cudaDeviceProp p;
  if (!e && n > 0 && cudaGetDeviceProperties(&p, 0) == cudaSuccess) {
    r->gpu_usable = true;
    r->cc_major = p.major, r->cc_minor = p.minor;
    char mem[32], l2[32];
    cl1_doctor_bytes(p.totalGlobalMem, mem, sizeof mem);
    cl1_doctor_bytes((size_t)p.l2CacheSize, l2, sizeof l2);
    cl1_doctor_add(r, "gpu", "GPU", CL1_DOCTOR_OK, CL1_DOCTOR_NEED_CUDA, NULL,
                   "%s, compute capability %d.%d, %s memory, %s L2 (%d device%s; cudal1 uses 0)",
                   p.name, p.major, p.minor, mem, l2, n, n == 1 ? "" : "s");
  } else if (r->gpu_present) {
    cl1_doctor_add(r, "gpu", "GPU", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_CUDA,
                   "`nvidia-smi` must list the GPU; the driver must support the CUDA runtime "
                   "(see the CUDA driver line); in a container, pass the GPU in (--gpus all)",
                   "an NVIDIA driver (%s) is loaded but the CUDA runtime cannot use a GPU: %s",
                   kmod, e ? cudaGetErrorString(e) : "0 devices");
  } else {
    cl1_doctor_add(r, "gpu", "GPU", CL1_DOCTOR_MISSING, CL1_DOCTOR_NEED_NONE,
                   "for the cuda backend: an NVIDIA GPU and its driver (`nvidia-smi` lists it)",
                   "no GPU (%s%s): the host backend will be used (C solutions on the CPU)",
                   e == cudaErrorInsufficientDriver ? "no NVIDIA driver; cudaGetDeviceCount: "
                                                    : "cudaGetDeviceCount: ",
                   e ? cudaGetErrorString(e) : "0 devices");
  }
  int dmaj = cf->driver / 1000, dmin = cf->driver % 1000 / 10;
  int rmaj = cf->runtime / 1000, rmin = cf->runtime % 1000 / 10;
  if (!cf->driver && !r->gpu_present)
    cl1_doctor_add(r, "cuda_driver", "CUDA driver", CL1_DOCTOR_INFO, CL1_DOCTOR_NEED_CUDA, NULL,
                   "no NVIDIA driver; CUDA runtime %d.%d (libcudart, linked in)", rmaj, rmin);
  else if (!cf->driver)
    cl1_doctor_add(r, "cuda_driver", "CUDA driver", CL1_DOCTOR_MISSING, CL1_DOCTOR_NEED_CUDA,
                   "install the NVIDIA driver's user-space library (libcuda.so.1) matching the "
                   "kernel module",
                   "kernel module %s, but libcuda cannot be loaded; CUDA runtime %d.%d", kmod,
                   rmaj, rmin);
  else if (cf->driver < cf->runtime)
    cl1_doctor_add(r, "cuda_driver", "CUDA driver", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_CUDA,
                   "update the NVIDIA driver to one for this CUDA (or build with an older "
                   "toolkit: make CUDA_HOME=...)",
                   "NVIDIA %s supports CUDA %d.%d, older than the runtime cudal1 links (%d.%d)",
                   loaded ? kmod : "driver", dmaj, dmin, rmaj, rmin);
  else
    cl1_doctor_add(r, "cuda_driver", "CUDA driver", CL1_DOCTOR_OK, CL1_DOCTOR_NEED_CUDA, NULL,
                   "NVIDIA %s, CUDA driver API %d.%d, runtime %d.%d", loaded ? kmod : "driver",
                   dmaj, dmin, rmaj, rmin);
}

static void probe_nvcc(cl1_doctor_report *r, cuda_facts *cf) {
  char nvcc[4200], out[2048];
  const char *env = getenv("CUDA_HOME");
  snprintf(nvcc, sizeof nvcc, "%s/bin/nvcc", cl1_compile_cuda_home());
  const char *from = env && *env ? "$CUDA_HOME" : "the build's CUDA_HOME";
  if (access(nvcc, X_OK)) {
    cl1_doctor_add(r, "nvcc", "nvcc", CL1_DOCTOR_MISSING, CL1_DOCTOR_NEED_CUDA,
                   "install the CUDA toolkit, or set CUDA_HOME to it (nvcc builds the .cu candidates)",
                   "not found at %s (%s)", nvcc, from);
    return;
  }
  char *argv[] = {nvcc, "--version", NULL};
  cl1_err err = {{0}};
  size_t len = 0;
  int st = 0, rc = cl1_proc_run(argv, NULL, 30000, out, sizeof out, &len, &st, &err);
  const char *rel = rc == 0 && st == 0 ? strstr(out, "release ") : NULL;
  if (!rel) {
    cl1_doctor_add(r, "nvcc", "nvcc", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_CUDA,
                   "reinstall the CUDA toolkit, or set CUDA_HOME to a working one",
                   "%s --version failed: %s", nvcc,
                   rc < 0 ? err.msg : rc ? "timed out after 30 s" : "no \"release\" in its output");
    return;
  }
  int maj = 0, min = 0;
  sscanf(rel, "release %d.%d", &maj, &min);
  cf->nvcc_major = maj;
  int dmaj = cf->driver / 1000;
  if (cf->driver && maj > dmaj)
    cl1_doctor_add(r, "nvcc", "nvcc", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_CUDA,
                   "update the NVIDIA driver, or point CUDA_HOME at a toolkit no newer than it",
                   "%s (%s): release %d.%d, but the driver supports CUDA %d.%d only", nvcc, from,
                   maj, min, dmaj, cf->driver % 1000 / 10);
  else
    cl1_doctor_add(r, "nvcc", "nvcc", CL1_DOCTOR_OK, CL1_DOCTOR_NEED_CUDA, NULL,
                   "%s (%s): release %d.%d", nvcc, from, maj, min);
}

/* "90", "90a", "100f" as compile.c accepts them; false otherwise. */
static bool parse_arch(const char *a, int *num, char *suffix) {
  size_t k = strspn(a, "0123456789");
  if (k == 0 || k > 4 || (a[k] && (a[k] < 'a' || a[k] > 'z' || a[k + 1]))) return false;
  *num = atoi(a);
  *suffix = a[k];
  return true;
}

/* Whether code built as sm_N + compute_N PTX (compile.c, the Makefile) runs on compute major.minor:
 * 2 natively, 1 through the driver's PTX JIT, 0 not at all. "a" code runs on that exact
 * capability only; "f" code on the same major with a minor at least as high. */
static int arch_runs(int num, char suffix, int major, int minor) {
  int amaj = num / 10, amin = num % 10, gpu = major * 10 + minor;
  if (suffix == 'a') return gpu == num ? 2 : 0;
  if (amaj == major && minor >= amin) return 2;
  if (suffix == 'f') return 0;
  return gpu >= num ? 1 : 0;
}

static void probe_arch(cl1_doctor_report *r) {
  const char *cand = getenv("CUDAL1_CUDA_ARCH"), *from = "$CUDAL1_CUDA_ARCH";
  const char *built = cl1_compile_build_arch();
  if (!cand || !*cand) cand = built, from = "the build's CUDA_ARCH";
  int cn = 0, bn = 0;
  char cs = 0, bs = 0;
  if (!parse_arch(cand, &cn, &cs)) {
    cl1_doctor_add(r, "cuda_arch", "CUDA arch", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_CUDA,
                   "set CUDAL1_CUDA_ARCH to the GPU's compute capability without the dot (90, "
                   "90a), or unset it",
                   "%s '%s' is not a compute capability like 90 or 90a", from, cand);
    return;
  }
  parse_arch(built, &bn, &bs);
  if (!r->gpu_usable) {
    cl1_doctor_add(r, "cuda_arch", "CUDA arch", CL1_DOCTOR_INFO, CL1_DOCTOR_NEED_CUDA, NULL,
                   "candidates sm_%s (%s), op library and harness kernels sm_%s (built); no GPU "
                   "to compare", cand, from, built);
    return;
  }
  int M = r->cc_major, m = r->cc_minor;
  int c = arch_runs(cn, cs, M, m), b = arch_runs(bn, bs, M, m);
  char fix[200];
  snprintf(fix, sizeof fix, "make CUDA_ARCH=%d%d (rebuilds the op library) and export "
           "CUDAL1_CUDA_ARCH=%d%d", M, m, M, m);
  if (!c || !b)
    cl1_doctor_add(r, "cuda_arch", "CUDA arch", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_CUDA, fix,
                   "the GPU is compute %d.%d: %s sm_%s code cannot run on it", M, m,
                   !c ? "candidates'" : "the op library's", !c ? cand : built);
  else {
    char note[300] = "";
    if (c == 1 || b == 1) snprintf(note, sizeof note, "; runs through the PTX JIT (native: %s)", fix);
    cl1_doctor_add(r, "cuda_arch", "CUDA arch", CL1_DOCTOR_OK, CL1_DOCTOR_NEED_CUDA, NULL,
                   "candidates sm_%s (%s), op library sm_%s, GPU compute %d.%d%s", cand, from,
                   built, M, m, note);
  }
}

/* The DT_NEEDED sonames of an ELF file, into names[0..max); their count, or
 * -1 with err. */
static int needed(const char *path, char names[][64], int max, cl1_err *err) {
  if (elf_version(EV_CURRENT) == EV_NONE) return cl1_err_set(err, "libelf is unusable");
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return cl1_err_set(err, "cannot open %s", path);
  Elf *e = elf_begin(fd, ELF_C_READ, NULL);
  int k = 0;
  for (Elf_Scn *scn = NULL; e && (scn = elf_nextscn(e, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize) continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize && k < max; i++) {
      GElf_Dyn dyn;
      if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag != DT_NEEDED) continue;
      const char *s = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
      if (s) snprintf(names[k++], 64, "%s", s);
    }
  }
  int rc = e ? k : cl1_err_set(err, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
  if (e) elf_end(e);
  close(fd);
  return rc;
}

/* "13.0.2" from a library's own API; "" when it has none we know. */
static void lib_version(void *h, const char *soname, char *out, size_t n) {
  out[0] = 0;
  if (!strncmp(soname, "libcublasLt", 11)) {
    size_t (*v)(void) = (size_t (*)(void))dlsym(h, "cublasLtGetVersion");
    if (v) { size_t x = v(); snprintf(out, n, "%zu.%zu.%zu", x / 10000, x / 100 % 100, x % 100); }
  } else if (!strncmp(soname, "libcublas", 9)) {
    int (*p)(int, int *) = (int (*)(int, int *))dlsym(h, "cublasGetProperty");
    int a = 0, b = 0, c = 0;   /* libraryPropertyType: MAJOR_VERSION 0, MINOR 1, PATCH_LEVEL 2 */
    if (p && !p(0, &a) && !p(1, &b) && !p(2, &c)) snprintf(out, n, "%d.%d.%d", a, b, c);
  } else if (!strncmp(soname, "libcudnn", 8)) {
    size_t (*v)(void) = (size_t (*)(void))dlsym(h, "cudnnGetVersion");
    if (v) {  /* cuDNN 9: major*10000 + minor*100 + patch; cuDNN 8: major*1000 + ... */
      size_t x = v(), d = x >= 90000 ? 10000 : 1000;
      snprintf(out, n, "%zu.%zu.%zu", x / d, x % d / 100, x % 100);
    }
  }
}

/* The op library and the cuBLAS / cuDNN libraries it links, loaded as a worker loads them. The
 * handles stay open: cuDNN's teardown is not worth running for a probe. */
static void probe_libs(cl1_doctor_report *r) {
  cl1_compile_opts co = {.backend = CL1_BACKEND_CUDA};
  char ops[4096], inc[4096], path[4200], names[32][64];
  cl1_err err = {{0}};
  if (cl1_compile_find_dirs(&co, NULL, ops, sizeof ops, inc, sizeof inc, &err)) {
    cl1_doctor_add(r, "ops_cuda", "CUDA op library", CL1_DOCTOR_MISSING, CL1_DOCTOR_NEED_CUDA,
                   "make (builds build/libcl1ops_cuda.so)", "%s", err.msg);
    return;
  }
  snprintf(path, sizeof path, "%s/libcl1ops_cuda.so", ops);
  int nn = needed(path, names, 32, &err);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h)
    cl1_doctor_add(r, "ops_cuda", "CUDA op library", CL1_DOCTOR_OK, CL1_DOCTOR_NEED_CUDA, NULL,
                   "%s loads", path);
  else
    cl1_doctor_add(r, "ops_cuda", "CUDA op library", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_CUDA,
                   "the libraries it links must be in CUDA_HOME/lib64 (its rpath) or on "
                   "LD_LIBRARY_PATH; `make` rebuilds it",
                   "%s does not load: %s", path, dlerror());
  if (nn < 0) {
    cl1_doctor_add(r, "cuda_libs", "cuBLAS/cuDNN", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_CUDA,
                   "make (rebuilds the op library)", "%s", err.msg);
    return;
  }
  for (int i = 0; i < nn; i++) {
    const char *s = names[i];
    const char *name = !strncmp(s, "libcublasLt", 11) ? "cublaslt"
                       : !strncmp(s, "libcublas", 9)  ? "cublas"
                       : !strncmp(s, "libcudnn", 8)   ? "cudnn" : NULL;
    if (!name) continue;
    const char *label = !strcmp(name, "cublaslt") ? "cuBLASLt" : !strcmp(name, "cublas") ? "cuBLAS" : "cuDNN";
    void *l = dlopen(s, RTLD_NOW | RTLD_LOCAL);
    if (!l) {
      cl1_doctor_add(r, name, label, CL1_DOCTOR_MISSING, CL1_DOCTOR_NEED_CUDA,
                     "install it for this CUDA (the op library links it) in CUDA_HOME/lib64, or "
                     "add its folder to LD_LIBRARY_PATH",
                     "%s: %s", s, dlerror());
      continue;
    }
    struct link_map *lm = NULL;
    char ver[32];
    lib_version(l, s, ver, sizeof ver);
    dlinfo(l, RTLD_DI_LINKMAP, &lm);
    cl1_doctor_add(r, name, label, CL1_DOCTOR_OK, CL1_DOCTOR_NEED_CUDA, NULL, "%s%s%s (%s)", s,
                   ver[0] ? " version " : "", ver, lm && lm->l_name ? lm->l_name : "?");
  }
}

void cl1_doctor_probe_cuda(cl1_doctor_report *r) {
  cuda_facts cf = {0};
  probe_gpu(r, &cf);
  probe_nvcc(r, &cf);
  probe_arch(r);
  probe_libs(r);
}
