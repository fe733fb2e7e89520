/* cmd_gpu.c — `cudal1 gpu peaks`: the GPU's measured ceilings (peaks.h), measured once and
 * cached; the judge's roofline floor reads the cache. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "eval/compile.h"
#include "peaks/peaks.h"

static const char usage[] =
    "usage: cudal1 gpu peaks [--force] [--json] [--cache DIR]\n"
    "\n"
    "Measures GPU 0's device-to-device copy bandwidth and its dense FP32, TF32 and BF16 matmul\n"
    "rates (cuBLASLt, 8192^3), once: the result is cached as DIR/peaks/<GPU name>.json (DIR:\n"
    "$XDG_CACHE_HOME/cudal1, else ~/.cache/cudal1) and printed. `cudal1 eval` builds its roofline\n"
    "floor (bytes / bandwidth, FLOPs / fastest rate) from that file.\n"
    "  --force   measure again even if a cached result exists\n"
    "  --json    print the JSON document instead of a table\n";

static void print_peaks(const cl1_peaks *p, const char *path, bool cached, bool json) {
  if (json) {
    printf("{\"device\": \"%s\", \"driver\": \"%s\", \"date\": \"%s\", \"cached\": %s, "
           "\"path\": \"%s\", \"copy_bytes_per_s\": %.6g, \"fp32_flops\": %.6g, "
           "\"tf32_flops\": %.6g, \"bf16_flops\": %.6g, \"gemm_n\": %d}\n",
           p->device, p->driver, p->date, cached ? "true" : "false", path, p->copy_bps,
           p->fp32_flops, p->tf32_flops, p->bf16_flops, p->gemm_n);
    return;
  }
  printf("%s (%s), measured %s%s\n", p->device, p->driver, p->date, cached ? " (cached)" : "");
  printf("  copy bandwidth   %8.1f GB/s (read + write)\n", p->copy_bps / 1e9);
  printf("  FP32 matmul      %8.1f TFLOP/s\n", p->fp32_flops / 1e12);
  printf("  TF32 matmul      %8.1f TFLOP/s\n", p->tf32_flops / 1e12);
  printf("  BF16 matmul      %8.1f TFLOP/s\n", p->bf16_flops / 1e12);
  printf("  cache            %s\n", path);
}

static int peaks(int argc, char **argv) {
  bool force = false, json = false;
  const char *cache = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--force")) force = true;
    else if (!strcmp(argv[i], "--json")) json = true;
    else if (!strcmp(argv[i], "--cache")) {
      if (i + 1 >= argc) { fprintf(stderr, "cudal1 gpu peaks: --cache needs a folder\n"); return 2; }
      cache = argv[++i];
    } else return cl1_cli_unknown("gpu peaks", argv[i]);
  }
  cl1_err err = {{0}};
  char root[4096], path[4400];
  cl1_peaks p;
  if (cl1_cache_root(cache, root, sizeof root, &err)) {
    fprintf(stderr, "cudal1 gpu peaks: %s\n", err.msg);
    return 2;
  }
  char name[128];
  if (cl1_peaks_device_name(name, sizeof name, &err) ||
      cl1_peaks_path(root, name, path, sizeof path, &err)) {
    fprintf(stderr, "cudal1 gpu peaks: %s\n", err.msg);
    return 3;
  }
  int lr = force ? 1 : cl1_peaks_load(path, &p, &err);
  if (lr < 0) fprintf(stderr, "cudal1 gpu peaks: %s; measuring again\n", err.msg);
  if (lr == 0) {
    print_peaks(&p, path, true, json);
    return 0;
  }
  if (cl1_peaks_measure(&p, &err)) {
    fprintf(stderr, "cudal1 gpu peaks: %s\n", err.msg);
    return 3;
  }
  if (cl1_peaks_save(path, &p, &err)) {
    fprintf(stderr, "cudal1 gpu peaks: %s\n", err.msg);
    return 3;
  }
  print_peaks(&p, path, false, json);
  return 0;
}

int cl1_cmd_gpu(int argc, char **argv) {
  if (cl1_cli_help(argc, argv, usage)) return 0;
  if (argc >= 2 && !strcmp(argv[1], "peaks")) return peaks(argc - 1, argv + 1);
  return cl1_cli_verb("gpu", argc >= 2 ? argv[1] : NULL, "peaks");
}
