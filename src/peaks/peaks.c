/* peaks.c — the peaks cache (see peaks.h): file naming, JSON load/save, the floor. */
#include "peaks.h"
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../eval/compile.h"
#include "../base/file.h"

int cl1_peaks_path(const char *cache_dir, const char *device, char *out, size_t n, cl1_err *err) {
  char name[128];
  size_t k = 0;
  for (const char *c = device; *c && k + 1 < sizeof name; c++)
    name[k++] = ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9'))
                    ? *c : '_';
  name[k] = 0;
  if (!k) return cl1_err_set(err, "peaks: empty device name");
  int w = snprintf(out, n, "%s/peaks/%s.json", cache_dir, name);
  if (w < 0 || (size_t)w >= n) return cl1_err_set(err, "peaks: cache path too long");
  return 0;
}

static int num_field(const cJSON *o, const char *path, const char *k, double *v, cl1_err *err) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
  if (!cJSON_IsNumber(x) || !(x->valuedouble > 0))
    return cl1_err_set(err, "%s: %s: expected a positive number", path, k);
  *v = x->valuedouble;
  return 0;
}

static void str_field(const cJSON *o, const char *k, char *dst, size_t n) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
  cl1_strcpy(dst, n, cJSON_IsString(x) ? x->valuestring : "");
}

int cl1_peaks_load(const char *path, cl1_peaks *p, cl1_err *err) {
  FILE *f = fopen(path, "r");
  if (!f) {
    if (errno == ENOENT) return 1;
    return cl1_err_set(err, "%s: %s", path, strerror(errno));
  }
  char buf[4096];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  cJSON *o = cJSON_Parse(buf);
  if (!o || !cJSON_IsObject(o)) {
    cJSON_Delete(o);
    return cl1_err_set(err, "%s: not a JSON object (delete it and run `cudal1 gpu peaks`)", path);
  }
  memset(p, 0, sizeof *p);
  double gn = 0;
  int rc = num_field(o, path, "copy_bytes_per_s", &p->copy_bps, err) ||
           num_field(o, path, "fp32_flops", &p->fp32_flops, err) ||
           num_field(o, path, "tf32_flops", &p->tf32_flops, err) ||
           num_field(o, path, "bf16_flops", &p->bf16_flops, err) ||
           num_field(o, path, "gemm_n", &gn, err);
  if (!rc) {
    p->gemm_n = (int)gn;
    str_field(o, "device", p->device, sizeof p->device);
    str_field(o, "driver", p->driver, sizeof p->driver);
    str_field(o, "date", p->date, sizeof p->date);
  }
  cJSON_Delete(o);
  return rc ? -1 : 0;
}

int cl1_peaks_save(const char *path, const cl1_peaks *p, cl1_err *err) {
  char dir[4096];
  cl1_strcpy(dir, sizeof dir, path);
  char *slash = strrchr(dir, '/');
  if (slash && slash != dir) {
    *slash = 0;
    if (cl1_file_mkdirs(dir, err)) return -1;
  }
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "device", p->device);
  cJSON_AddStringToObject(o, "driver", p->driver);
  cJSON_AddStringToObject(o, "date", p->date);
  cJSON_AddNumberToObject(o, "copy_bytes_per_s", p->copy_bps);
  cJSON_AddNumberToObject(o, "fp32_flops", p->fp32_flops);
  cJSON_AddNumberToObject(o, "tf32_flops", p->tf32_flops);
  cJSON_AddNumberToObject(o, "bf16_flops", p->bf16_flops);
  cJSON_AddNumberToObject(o, "gemm_n", p->gemm_n);
  char *s = cJSON_Print(o);
  cJSON_Delete(o);
  if (!s) return cl1_err_set(err, "out of memory");
  int rc = cl1_file_write_atomic(path, s, err);
  free(s);
  return rc;
}

double cl1_peaks_floor_ms(const cl1_peaks *p, double flops, double bytes) {
  double rate = p->fp32_flops;
  if (p->tf32_flops > rate) rate = p->tf32_flops;
  if (p->bf16_flops > rate) rate = p->bf16_flops;
  /* the fastest unit a candidate could use: a floor must never catch an honest kernel */
  double t_mem = bytes > 0 && p->copy_bps > 0 ? bytes / p->copy_bps : 0;
  double t_math = flops > 0 && rate > 0 ? flops / rate : 0;
  return 1e3 * (t_mem > t_math ? t_mem : t_math);
}

/* libcl1peaks.so beside the op libraries (the folder a compile would use). */
static void *peaks_fn(const char *name, cl1_err *err) {
  static void *lib;
  if (!lib) {
    char ops[4096], inc[4096], path[4200];
    cl1_compile_opts o = {.backend = CL1_BACKEND_CUDA};
    if (cl1_compile_find_dirs(&o, NULL, ops, sizeof ops, inc, sizeof inc, err)) return NULL;
    snprintf(path, sizeof path, "%s/libcl1peaks.so", ops);
    lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) return cl1_err_set(err, "cannot load %s: %s", path, dlerror()), NULL;
  }
  void *f = dlsym(lib, name);
  if (!f) cl1_err_set(err, "libcl1peaks.so has no %s", name);
  return f;
}

int cl1_peaks_device_name(char *out, size_t n, cl1_err *err) {
  int (*f)(char *, size_t, cl1_err *) =
      (int (*)(char *, size_t, cl1_err *))(uintptr_t)peaks_fn("cl1_peaksk_device_name", err);
  return f ? f(out, n, err) : -1;
}

int cl1_peaks_measure(cl1_peaks *p, cl1_err *err) {
  int (*f)(cl1_peaks *, cl1_err *) =
      (int (*)(cl1_peaks *, cl1_err *))(uintptr_t)peaks_fn("cl1_peaksk_measure", err);
  return f ? f(p, err) : -1;
}
