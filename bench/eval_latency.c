/* eval_latency.c — per-candidate wall time of the evaluator (issue: foundation, performance):
 * cold and cached compiles, 16 candidates compiled in parallel, cached end-to-end `cudal1 eval`
 * per starter task split into its phases, and the repeatability of speedups across 5 fresh
 * evaluations. Writes one JSON document to stdout.
 * usage: build/bench/eval_latency [--device cuda|host] [--shapes S] [--repeat-task ID --repeat-file F
 *        [--repeat-ref-file G]]   (G: a candidate doing what the reference does, the control) */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/err.h"
#include "eval/compile.h"
#include "eval/stats.h"

static int run(const char *cmd, char *out, size_t cap) {
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  size_t n = fread(out, 1, cap - 1, p);
  out[n] = 0;
  int st = pclose(p);
  return WEXITSTATUS(st);
}

/* A trivial candidate, made distinct by a constant (so no two share a cache entry). */
static void trivial_source(char *buf, size_t n, int k, int cuda) {
  if (cuda)
    snprintf(buf, n,
             "#include <cudal1/solution.h>\n"
             "__global__ static void k(const float *x, float *y, long n) {\n"
             "  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;\n"
             "  if (i < n) y[i] = fmaxf(x[i], 0.f) + 0.0f * %d;\n}\n"
             "CL1_EXPORT int cl1_forward(const cl1_call *c) {\n"
             "  long n = 1; for (int d = 0; d < c->inputs[0].ndim; d++) n *= c->inputs[0].shape[d];\n"
             "  k<<<(n + 255) / 256, 256, 0, (cudaStream_t)c->stream>>>((const float *)c->inputs[0].data,"
             " (float *)c->outputs[0].data, n);\n"
             "  return cudaGetLastError() == cudaSuccess ? 0 : 1;\n}\n", k);
  else
    snprintf(buf, n,
             "#include <cudal1/solution.h>\n"
             "CL1_EXPORT int cl1_forward(const cl1_call *c) {\n"
             "  long n = 1; for (int d = 0; d < c->inputs[0].ndim; d++) n *= c->inputs[0].shape[d];\n"
             "  const float *x = c->inputs[0].data; float *y = c->outputs[0].data;\n"
             "  for (long i = 0; i < n; i++) y[i] = (x[i] > 0 ? x[i] : 0) + 0.0f * %d;\n"
             "  return 0;\n}\n", k);
}

/* 5 evaluations of one candidate in fresh processes into doc[key]: the speedups, each run's two
 * medians (a spread from one side's process running slower for its whole life — seen: the
 * candidate's 0.372 ms vs 0.352 ms in the others — shows there) and max / min. */
static void repeatability(cJSON *doc, const char *key, const char *cache, const char *task,
                          const char *file, const char *device, const char *shapes) {
  static char out[1 << 18];
  cJSON *rj = cJSON_AddObjectToObject(doc, key);
  cJSON_AddStringToObject(rj, "task", task);
  cJSON_AddStringToObject(rj, "solution", file);
  cJSON *arr = cJSON_AddArrayToObject(rj, "speedups");
  cJSON *runs = cJSON_AddArrayToObject(rj, "runs");
  double sp[5];
  int n = 0;
  double cand_ms = 0;
  for (int k = 0; k < 5; k++) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "XDG_CACHE_HOME=%s build/cudal1 eval --task %s --solution %s "
             "--device %s --shapes %s --json --remeasure 0 2>/dev/null", cache, task, file,
             device, shapes);
    run(cmd, out, sizeof out);
    cJSON *j = cJSON_Parse(out);
    cJSON *s = j ? cJSON_GetObjectItem(j, "speedup") : NULL;
    if (cJSON_IsNumber(s) && s->valuedouble > 0) {
      sp[n++] = s->valuedouble;
      cJSON_AddItemToArray(arr, cJSON_CreateNumber(s->valuedouble));
      cJSON *tm = cJSON_GetObjectItem(j, "timing");
      cJSON *t = cJSON_GetObjectItem(tm, "candidate"), *rf = cJSON_GetObjectItem(tm, "reference");
      cJSON *tc = t ? cJSON_GetObjectItem(t, "median_ms") : NULL;
      cJSON *rc = rf ? cJSON_GetObjectItem(rf, "median_ms") : NULL;
      cJSON *nt = rf ? cJSON_GetObjectItem(rf, "n") : NULL;
      if (cJSON_IsNumber(tc)) cand_ms = tc->valuedouble;
      cJSON *one = cJSON_CreateObject();
      cJSON_AddNumberToObject(one, "speedup", s->valuedouble);
      if (cJSON_IsNumber(rc)) cJSON_AddNumberToObject(one, "ref_median_ms", rc->valuedouble);
      if (cJSON_IsNumber(tc)) cJSON_AddNumberToObject(one, "cand_median_ms", tc->valuedouble);
      if (cJSON_IsNumber(nt)) cJSON_AddNumberToObject(one, "trials", nt->valuedouble);
      cJSON_AddItemToArray(runs, one);
    }
    cJSON_Delete(j);
  }
  if (n) {
    double lo = sp[0], hi = sp[0];
    for (int k = 1; k < n; k++) { if (sp[k] < lo) lo = sp[k]; if (sp[k] > hi) hi = sp[k]; }
    cJSON_AddNumberToObject(rj, "candidate_median_ms", cand_ms);
    cJSON_AddNumberToObject(rj, "max_over_min", hi / lo);
    cJSON_AddNumberToObject(rj, "spread_pct", (hi / lo - 1) * 100);
  }
}

int main(int argc, char **argv) {
  const char *device = "cuda", *shapes = "small", *rep_task = NULL, *rep_file = NULL;
  const char *cand_dir = NULL, *rep_ref_file = NULL;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--device")) device = argv[i + 1];
    else if (!strcmp(argv[i], "--shapes")) shapes = argv[i + 1];
    else if (!strcmp(argv[i], "--repeat-task")) rep_task = argv[i + 1];
    else if (!strcmp(argv[i], "--repeat-file")) rep_file = argv[i + 1];
    else if (!strcmp(argv[i], "--repeat-ref-file")) rep_ref_file = argv[i + 1];
    else if (!strcmp(argv[i], "--candidates")) cand_dir = argv[i + 1];
  }
  int cuda = !strcmp(device, "cuda");
  cJSON *doc = cJSON_CreateObject();
  cJSON_AddStringToObject(doc, "device", device);
  cJSON_AddStringToObject(doc, "shapes", shapes);
  char cache[256];
  snprintf(cache, sizeof cache, "/tmp/cl1-bench-cache.XXXXXX");
  if (!mkdtemp(cache)) return 3;
  cl1_compile_opts co = {.backend = cuda ? CL1_BACKEND_CUDA : CL1_BACKEND_HOST, .cache_dir = cache};

  /* 1. cold and cached compile of one trivial candidate */
  char src[4096];
  trivial_source(src, sizeof src, 0, cuda);
  cl1_compile_result res;
  cl1_err err = {{0}};
  double t0 = cl1_now();
  int rc = cl1_compile_source(src, strlen(src), &co, &res, &err);
  double cold = cl1_now() - t0;
  t0 = cl1_now();
  rc |= cl1_compile_source(src, strlen(src), &co, &res, &err);
  double cached = cl1_now() - t0;
  if (rc) { fprintf(stderr, "eval_latency: compile failed: %s %s\n", err.msg, res.diag); return 3; }
  cJSON *cj = cJSON_AddObjectToObject(doc, "compile");
  cJSON_AddNumberToObject(cj, "cold_s", cold);
  cJSON_AddNumberToObject(cj, "cached_s", cached);

  /* 2. 16 distinct candidates in parallel */
  enum { NPAR = 16 };
  char paths[NPAR][300];
  const char *pp[NPAR];
  for (int k = 0; k < NPAR; k++) {
    trivial_source(src, sizeof src, k + 1, cuda);
    snprintf(paths[k], sizeof paths[k], "%s/cand%d.%s", cache, k, cuda ? "cu" : "c");
    FILE *f = fopen(paths[k], "w");
    if (!f) return 3;
    fputs(src, f);
    fclose(f);
    pp[k] = paths[k];
  }
  cl1_compile_result pres[NPAR];
  int prc[NPAR];
  cl1_err perr[NPAR];
  long jobs = sysconf(_SC_NPROCESSORS_ONLN);
  if (jobs > NPAR) jobs = NPAR;
  t0 = cl1_now();
  cl1_compile_many(NPAR, pp, &co, (int)jobs, pres, prc, perr);
  double par = cl1_now() - t0;
  int ok = 0;
  for (int k = 0; k < NPAR; k++) ok += prc[k] == 0;
  cJSON_AddNumberToObject(cj, "parallel_n", NPAR);
  cJSON_AddNumberToObject(cj, "parallel_jobs", (double)jobs);
  cJSON_AddNumberToObject(cj, "parallel_wall_s", par);
  cJSON_AddNumberToObject(cj, "parallel_ok", ok);
  cJSON_AddNumberToObject(cj, "parallel_per_s", NPAR / par);

  /* 3. cached end-to-end evaluation of each starter candidate, twice (cold then cached) */
  cJSON *e2e = cJSON_AddArrayToObject(doc, "end_to_end");
  static char out[1 << 18];
  if (cand_dir) {
    DIR *d = opendir(cand_dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
      const char *dot = strrchr(e->d_name, '.');
      if (!dot || strcmp(dot, cuda ? ".cu" : ".c")) continue;
      char task[256];
      snprintf(task, sizeof task, "%.*s", (int)(dot - e->d_name), e->d_name);
      for (int pass = 0; pass < 2; pass++) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "XDG_CACHE_HOME=%s build/cudal1 eval --task %s --solution %s/%s "
                 "--device %s --shapes %s --json 2>/dev/null", cache, task, cand_dir, e->d_name,
                 device, shapes);
        t0 = cl1_now();
        int st = run(cmd, out, sizeof out);
        double wall = cl1_now() - t0;
        cJSON *j = cJSON_Parse(out);
        cJSON *row = cJSON_CreateObject();
        cJSON_AddStringToObject(row, "task", task);
        cJSON_AddStringToObject(row, "compile", pass ? "cached" : "cold");
        cJSON_AddNumberToObject(row, "wall_s", wall);
        cJSON_AddNumberToObject(row, "exit", st);
        if (j) {
          cJSON_AddItemToObject(row, "verdict", cJSON_Duplicate(cJSON_GetObjectItem(j, "verdict"), 1));
          cJSON_AddItemToObject(row, "speedup", cJSON_Duplicate(cJSON_GetObjectItem(j, "speedup"), 1));
          cJSON_AddItemToObject(row, "phases_s", cJSON_Duplicate(cJSON_GetObjectItem(j, "phases_s"), 1));
          cJSON *t = cJSON_GetObjectItem(j, "timing");
          if (t) cJSON_AddItemToObject(row, "timing", cJSON_Duplicate(t, 1));
          cJSON_Delete(j);
        }
        cJSON_AddItemToArray(e2e, row);
      }
    }
    if (d) closedir(d);
  }

  /* 4. repeatability: the same candidate, 5 evaluations in fresh processes; and, as a control,
     a candidate that runs the reference's own op call (both sides the same code) */
  if (rep_task && rep_file) repeatability(doc, "repeatability", cache, rep_task, rep_file, device, shapes);
  if (rep_task && rep_ref_file)
    repeatability(doc, "repeatability_ref_as_candidate", cache, rep_task, rep_ref_file, device, shapes);
  char *s = cJSON_Print(doc);
  puts(s);
  free(s);
  cJSON_Delete(doc);
  return 0;
}
