/* timing_variance.c — where does run-to-run timing spread come from? (foundation issue: the
 * same candidate in fresh evaluations must agree within 2%). Times the op library's FP32 matmul
 * (cuBLAS, as the reference does) under the evaluator's own timed interval and L2 flush, in P
 * fresh processes x K buffer sets allocated at distinct addresses each, and reports the median
 * of every (process, set). Spread across sets within a process points at buffer placement;
 * spread across processes with sets agreeing points at the context.
 * --op relu times the (memory-bound) ReLU over N*N floats instead. --sleep-us U sleeps U us
 * before each trial, as a worker blocked on its pipe does between trials. --peer 1 keeps a second
 * process with its own CUDA context (idle) alive during the measurement, as the evaluator's other
 * worker is.
 * usage: build/bench/timing_variance [--procs P] [--sets K] [--trials T] [--n N] [--op matmul|relu] */
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cudal1/ops.h"
#include "worker/dev.h"
#include "eval/stats.h"
#include "task/task.h"

typedef __typeof__(cl1_op_matmul) *matmul_fn;
typedef __typeof__(cl1_op_relu) *relu_fn;

static const char *g_op = "matmul";
static int g_sleep_us = 0, g_peer = 0;

static int op_call(matmul_fn mm, relu_fn re, void *st, void *const b[3], int64_t n) {
  return re ? re(st, b[0], b[2], n * n) : mm(st, b[0], b[1], b[2], n, n, n);
}

/* One process: K buffer sets, T trials each (round-robin over sets); prints medians as JSON. */
static int child(int sets, int trials, int64_t n, const char *ops_path) {
  cl1_dev d;
  cl1_err err = {{0}};
  pid_t peer = -1;
  int ready[2];
  if (g_peer && pipe(ready) == 0 && (peer = fork()) == 0) {
    cl1_dev pd;
    if (cl1_dev_open(CL1_BACKEND_CUDA, &pd, &err)) _exit(3);
    if (write(ready[1], "r", 1) != 1) _exit(3);
    pause();  /* killed when the measurement ends */
    _exit(0);
  }
  if (peer > 0) {
    char c;
    if (read(ready[0], &c, 1) != 1) return 3;
  }
  if (cl1_dev_open(CL1_BACKEND_CUDA, &d, &err)) { fprintf(stderr, "%s\n", err.msg); return 3; }
  void *lib = dlopen(ops_path, RTLD_NOW);
  if (!lib) { fprintf(stderr, "%s\n", dlerror()); return 3; }
  matmul_fn mm = (matmul_fn)(uintptr_t)dlsym(lib, "cl1_op_matmul");
  relu_fn re = strcmp(g_op, "relu") ? NULL : (relu_fn)(uintptr_t)dlsym(lib, "cl1_op_relu");
  if (!mm || (!re && !strcmp(g_op, "relu"))) return 3;
  cl1_tinst t = {.name = "x", .dtype = CL1_F32, .ndim = 2, .shape = {n, n}, .numel = n * n,
                 .bytes = (size_t)(n * n) * 4, .dist = 0, .a = 0, .b = 1};
  void *buf[16][3];
  for (int s = 0; s < sets; s++)
    for (int k = 0; k < 3; k++) {
      if (d.alloc(&d, t.bytes, &buf[s][k], &err)) { fprintf(stderr, "%s\n", err.msg); return 3; }
      if (k < 2 && d.gen(&d, &t, buf[s][k], 1 + (uint64_t)s, (uint32_t)k, &err)) return 3;
    }
  double *ms = calloc((size_t)(sets * trials), sizeof(double));
  for (int w = 0; w < 5; w++) op_call(mm, re, d.stream, buf[0], n); /* warm-up */
  for (int i = 0; i < trials; i++)
    for (int s = 0; s < sets; s++) {
      double ev, wall;
      if (g_sleep_us) usleep((useconds_t)g_sleep_us);
      if (d.flush(&d, &err) || d.begin(&d, &err)) return 3;
      if (op_call(mm, re, d.stream, buf[s], n)) return 3;
      if (d.end(&d, &ev, &wall, &err)) return 3;
      ms[s * trials + i] = ev;
    }
  if (peer > 0) { kill(peer, SIGKILL); waitpid(peer, NULL, 0); }
  printf("[");
  for (int s = 0; s < sets; s++) printf("%s%.6f", s ? ", " : "", cl1_median(ms + s * trials, trials));
  printf("]\n");
  return 0;
}

int main(int argc, char **argv) {
  int procs = 5, sets = 4, trials = 100, is_child = 0;
  int64_t n = 2048;
  const char *ops = "build/libcl1ops_cuda.so";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--procs")) procs = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--sets")) sets = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--trials")) trials = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--n")) n = atoll(argv[i + 1]);
    else if (!strcmp(argv[i], "--ops")) ops = argv[i + 1];
    else if (!strcmp(argv[i], "--op")) g_op = argv[i + 1];
    else if (!strcmp(argv[i], "--sleep-us")) g_sleep_us = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--peer")) g_peer = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--child")) is_child = 1;
  }
  if (is_child) return child(sets, trials, n, ops);
  if (sets < 1 || sets > 16 || procs < 1 || trials < 5 || n < 16 ||
      (strcmp(g_op, "matmul") && strcmp(g_op, "relu"))) {
    fprintf(stderr, "timing_variance: bad arguments\n");
    return 2;
  }
  cJSON *doc = cJSON_CreateObject(), *rows = cJSON_AddArrayToObject(doc, "medians_ms");
  cJSON_AddStringToObject(doc, "op", g_op);
  cJSON_AddNumberToObject(doc, "sleep_us", g_sleep_us);
  cJSON_AddNumberToObject(doc, "peer", g_peer);
  cJSON_AddNumberToObject(doc, "n", (double)n);
  cJSON_AddNumberToObject(doc, "sets", sets);
  cJSON_AddNumberToObject(doc, "trials", trials);
  double lo = 1e30, hi = 0, worst_within = 1;
  for (int p = 0; p < procs; p++) {
    char cmd[1024], line[4096] = "";
    snprintf(cmd, sizeof cmd, "%s --child 1 --sets %d --trials %d --n %lld --ops %s --op %s --sleep-us %d --peer %d",
             argv[0], sets, trials, (long long)n, ops, g_op, g_sleep_us, g_peer);
    FILE *f = popen(cmd, "r");
    if (!f || !fgets(line, sizeof line, f)) { if (f) pclose(f); return 3; }
    if (pclose(f)) return 3;
    cJSON *r = cJSON_Parse(line);
    if (!r) return 3;
    double plo = 1e30, phi = 0;
    for (int s = 0; s < cJSON_GetArraySize(r); s++) {
      double v = cJSON_GetArrayItem(r, s)->valuedouble;
      if (v < plo) plo = v;
      if (v > phi) phi = v;
    }
    if (phi / plo > worst_within) worst_within = phi / plo;
    double pm = 0;
    for (int s = 0; s < cJSON_GetArraySize(r); s++) pm += cJSON_GetArrayItem(r, s)->valuedouble;
    pm /= cJSON_GetArraySize(r);
    if (pm < lo) lo = pm;
    if (pm > hi) hi = pm;
    cJSON_AddItemToArray(rows, r);
  }
  cJSON_AddNumberToObject(doc, "within_process_max_over_min", worst_within);
  cJSON_AddNumberToObject(doc, "across_process_mean_max_over_min", hi / lo);
  char *s = cJSON_Print(doc);
  puts(s);
  free(s);
  cJSON_Delete(doc);
  return 0;
}
