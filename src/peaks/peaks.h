/* peaks.h — the GPU's measured ceilings (copy bandwidth; FP32, TF32 and BF16 matrix rates) that
 * the roofline floor is built from: measured once per GPU by `cudal1 gpu peaks`, cached as JSON
 * under the cache folder keyed by the device's name, read by the judge. A time under
 * max(bytes / bandwidth, flops / fastest rate) cannot be honest (evaluation.md, class 15). */
#ifndef CL1_PEAKS_H
#define CL1_PEAKS_H
#include <stddef.h>
#include "../base/err.h"

typedef struct {
  char device[128], driver[64], date[32];
  double copy_bps;            /* device-to-device copy, bytes read + written per second */
  double fp32_flops, tf32_flops, bf16_flops;  /* dense matmul, FLOP/s */
  int gemm_n;                 /* square size the rates were measured at */
} cl1_peaks;

/* The cache file of a device name: <cache>/peaks/<name with non-alphanumerics as '_'>.json. */
int cl1_peaks_path(const char *cache_dir, const char *device, char *out, size_t n, cl1_err *err);
/* Reads a peaks file. 1 when it does not exist; -1 (err names the file and field) when malformed. */
int cl1_peaks_load(const char *path, cl1_peaks *p, cl1_err *err);
int cl1_peaks_save(const char *path, const cl1_peaks *p, cl1_err *err);
/* GPU 0's name (CUDA; opens a context). */
int cl1_peaks_device_name(char *out, size_t n, cl1_err *err);
/* Measures device 0 (CUDA; peaks_cuda.cu): a few seconds. */
int cl1_peaks_measure(cl1_peaks *p, cl1_err *err);
/* The physical floor in ms of a call that must move `bytes` and do `flops` (either may be 0). */
double cl1_peaks_floor_ms(const cl1_peaks *p, double flops, double bytes);
#endif
