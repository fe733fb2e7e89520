/* corpus.c — runs a manifest of candidates (tests/legit/manifest.txt, tests/hacks/manifest.txt)
 * through `cudal1 eval` N times each and writes one JSON document: per file its task, expected
 * verdict, every run's verdict, flags, speedup and the two medians, and whether every run met the
 * expectation (for `pass`: verdict pass with no flag). Each evaluation runs the real binary in
 * its own process, as the tests do (tests/eval_cases.h), so a judge that dies shows up in the
 * result instead of taking the tool down with it. The results in bench/results/h200/legit.json
 * and hacks.json are made with it.
 *
 * usage: build/bench/corpus --manifest FILE --backend cuda|host --shapes test|small|large
 *                           [--repeat N] --out FILE.json [--cudal1 PATH] [--eval-args "ARGS"]
 * Manifest lines: `<file> <task> <backend> <expected verdict> [# note]`; lines of another backend
 * are skipped. Exit status: 0 every row matched, 1 some row did not, 2 usage error, 3 the tool
 * itself could not run (no binary, unreadable manifest, unwritable output). */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include "base/err.h"
#include "../tests/expect.h"
#include "base/proc.h"

typedef struct {
  char file[512], task[160], backend[16], expect[64], note[256];
} entry;

static int usage(const char *why) {
  fprintf(stderr,
          "corpus: %s\n"
          "usage: corpus --manifest FILE --backend cuda|host --shapes test|small|large "
          "[--repeat N] --out FILE.json [--cudal1 PATH] [--eval-args \"ARGS\"]\n",
          why);
  return 2;
}

/* The manifest's lines for `backend` into *out (malloc'd); the count, or -1 if unreadable. */
static int read_manifest(const char *path, const char *backend, entry **out) {
  FILE *f = fopen(path, "r");
  *out = NULL;
  if (!f) return -1;
  int n = 0, cap = 0;
  char line[2048];
  while (fgets(line, sizeof line, f)) {
    entry e;
    memset(&e, 0, sizeof e);
    char *hash = strchr(line, '#');
    if (hash) {
      char *s = hash + 1;
      while (*s == ' ') s++;
      snprintf(e.note, sizeof e.note, "%s", s);
      e.note[strcspn(e.note, "\n")] = 0;
      *hash = 0;
    }
    if (sscanf(line, "%511s %159s %15s %63s", e.file, e.task, e.backend, e.expect) != 4) continue;
    if (strcmp(e.backend, backend)) continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 64;
      entry *p = realloc(*out, sizeof(entry) * (size_t)cap);
      if (!p) { fclose(f); return -1; }
      *out = p;
    }
    (*out)[n++] = e;
  }
  fclose(f);
  return n;
}

/* Runs cmd, its stdout into a growing buffer (*buf, malloc'd); the exit status or 128+signal. */
static int run_capture(const char *cmd, char **buf) {
  size_t cap = 1 << 16, n = 0;
  *buf = malloc(cap);
  if (!*buf) return -1;
  FILE *p = popen(cmd, "r");
  if (!p) { (*buf)[0] = 0; return -1; }
  size_t k;
  while ((k = fread(*buf + n, 1, cap - n - 1, p)) > 0) {
    n += k;
    if (cap - n - 1 == 0) {
      char *q = realloc(*buf, cap * 2);
      if (!q) break;
      *buf = q, cap *= 2;
    }
  }
  (*buf)[n] = 0;
  int st = pclose(p);
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return -1;
}

/* Paths go into a shell command in single quotes; refuse the one character that would end them. */
static bool shell_safe(const char *s) { return !strchr(s, '\''); }

static const cJSON *field(const cJSON *o, const char *a, const char *b) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);
  return b ? cJSON_GetObjectItemCaseSensitive(v, b) : v;
}

static double num_or(const cJSON *v, double d) { return cJSON_IsNumber(v) ? v->valuedouble : d; }

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void now_utc(char *out, size_t n) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void commit_of(char *out, size_t n) {
  const char *env = getenv("CL1_COMMIT");
  out[0] = 0;
  if (env && *env) {
    snprintf(out, n, "%s", env);
    return;
  }
  FILE *p = popen("git rev-parse HEAD 2>/dev/null", "r");
  if (!p) return;
  if (!fgets(out, (int)n, p)) out[0] = 0;
  out[strcspn(out, "\n")] = 0;
  pclose(p);
}

int main(int argc, char **argv) {
  const char *manifest = NULL, *backend = NULL, *shapes = NULL, *out_path = NULL;
  const char *bin_arg = NULL, *eval_args = "";
  int repeat = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (i + 1 >= argc) return usage("every option takes a value");
    const char *v = argv[++i];
    if (!strcmp(a, "--manifest")) manifest = v;
    else if (!strcmp(a, "--backend")) backend = v;
    else if (!strcmp(a, "--shapes")) shapes = v;
    else if (!strcmp(a, "--out")) out_path = v;
    else if (!strcmp(a, "--cudal1")) bin_arg = v;
    else if (!strcmp(a, "--eval-args")) eval_args = v;
    else if (!strcmp(a, "--repeat")) {
      char *end;
      long r = strtol(v, &end, 10);
      if (*end || r < 1 || r > 100) return usage("--repeat takes a count from 1 to 100");
      repeat = (int)r;
    } else {
      char why[300];
      snprintf(why, sizeof why, "unknown option '%s'", a);
      return usage(why);
    }
  }
  if (!manifest || !backend || !shapes || !out_path)
    return usage("--manifest, --backend, --shapes and --out are required");
  if (strcmp(backend, "cuda") && strcmp(backend, "host")) return usage("--backend is cuda or host");
  if (strcmp(shapes, "test") && strcmp(shapes, "small") && strcmp(shapes, "large"))
    return usage("--shapes is test, small or large");
  if (strchr(eval_args, '\'') || strchr(eval_args, ';') || strchr(eval_args, '|') ||
      strchr(eval_args, '&') || strchr(eval_args, '`') || strchr(eval_args, '$') ||
      strchr(eval_args, '>') || strchr(eval_args, '<'))
    return usage("--eval-args holds eval options only (no shell syntax)");
  char bin[4096];
  if (bin_arg) {
    snprintf(bin, sizeof bin, "%s", bin_arg);
  } else {
    cl1_err err = {{0}};
    if (cl1_proc_find_program(NULL, "cudal1", bin, sizeof bin, &err)) {
      fprintf(stderr, "corpus: %s (or pass --cudal1)\n", err.msg);
      return 3;
    }
  }
  if (!shell_safe(bin)) return usage("the cudal1 path holds a quote");
  entry *es = NULL;
  int n = read_manifest(manifest, backend, &es);
  if (n < 0) {
    fprintf(stderr, "corpus: cannot read %s\n", manifest);
    return 3;
  }
  FILE *probe = fopen(out_path, "w");  // fail before hours of evaluations, not after
  if (!probe) {
    fprintf(stderr, "corpus: cannot write %s\n", out_path);
    free(es);
    return 3;
  }
  fclose(probe);

  char date[64], commit[128];
  now_utc(date, sizeof date);
  commit_of(commit, sizeof commit);
  cJSON *doc = cJSON_CreateObject();
  cJSON_AddStringToObject(doc, "tool", "bench/corpus");
  cJSON_AddStringToObject(doc, "date", date);
  cJSON *gpu = cJSON_AddStringToObject(doc, "gpu", "");
  cJSON *driver = cJSON_AddStringToObject(doc, "driver", "");
  cJSON_AddStringToObject(doc, "commit", commit);
  cJSON_AddStringToObject(doc, "manifest", manifest);
  cJSON_AddStringToObject(doc, "backend", backend);
  cJSON_AddStringToObject(doc, "shapes", shapes);
  cJSON_AddNumberToObject(doc, "repeat", repeat);
  cJSON_AddStringToObject(doc, "eval_args", eval_args);
  cJSON *rows = cJSON_AddArrayToObject(doc, "rows");
  int matched = 0;
  cJSON *mismatched = cJSON_CreateArray();
  for (int i = 0; i < n; i++) {
    const entry *e = &es[i];
    cJSON *row = cJSON_CreateObject();
    cJSON_AddStringToObject(row, "file", e->file);
    cJSON_AddStringToObject(row, "task", e->task);
    cJSON_AddStringToObject(row, "expected", e->expect);
    cJSON_AddStringToObject(row, "note", e->note);
    cJSON *runs = cJSON_AddArrayToObject(row, "runs");
    cJSON *verdicts = cJSON_AddArrayToObject(row, "verdicts");
    cJSON *speedups = cJSON_AddArrayToObject(row, "speedups");
    double sp[100];
    int nsp = 0;
    bool all = true;
    for (int k = 0; k < repeat; k++) {
      cJSON *run = cJSON_CreateObject();
      char verdict[64] = "no_result";
      int nflags = 0;
      double speedup = 0;
      if (!shell_safe(e->file) || !shell_safe(e->task)) {
        cJSON_AddStringToObject(run, "verdict", "bad_manifest_line");
        cJSON_AddStringToObject(run, "message", "a path holds a quote");
        cJSON_AddItemToArray(runs, run);
        cJSON_AddItemToArray(verdicts, cJSON_CreateString("bad_manifest_line"));
        all = false;
        continue;
      }
      char cmd[8192];
      snprintf(cmd, sizeof cmd,
               "'%s' eval --task '%s' --solution '%s' --device %s --shapes %s --json "
               "--timeout %s %s 2>/dev/null",
               bin, e->task, e->file, backend, shapes, strcmp(e->expect, "timeout") ? "20" : "3",
               eval_args);
      double t0 = cl1_now();
      char *text = NULL;
      int status = run_capture(cmd, &text);
      double wall = cl1_now() - t0;
      cJSON *j = text ? cJSON_Parse(text) : NULL;
      const cJSON *v = field(j, "verdict", NULL), *msg = field(j, "message", NULL);
      if (cJSON_IsString(v)) snprintf(verdict, sizeof verdict, "%s", v->valuestring);
      cJSON_AddStringToObject(run, "verdict", verdict);
      cJSON_AddStringToObject(run, "message", cJSON_IsString(msg) ? msg->valuestring
                                              : j ? "" : "no JSON from cudal1 eval");
      cJSON *flags = cJSON_AddArrayToObject(run, "flags");
      const cJSON *fl = field(j, "flags", NULL), *f;
      cJSON_ArrayForEach(f, fl) {
        if (cJSON_IsString(f)) {
          cJSON_AddItemToArray(flags, cJSON_CreateString(f->valuestring));
          nflags++;
        }
      }
      speedup = num_or(field(j, "speedup", NULL), 0);
      cJSON_AddNumberToObject(run, "speedup", speedup);
      const cJSON *tm = field(j, "timing", NULL);
      cJSON_AddNumberToObject(run, "ref_median_ms", num_or(field(tm, "reference", "median_ms"), 0));
      cJSON_AddNumberToObject(run, "cand_median_ms", num_or(field(tm, "candidate", "median_ms"), 0));
      /* the judge's calibrated clock check (class 4): each side's round-trip excess over its
         own empty trials, whose difference is held against the timer_mismatch margin */
      cJSON_AddNumberToObject(run, "judge_excess_ref_ms", num_or(field(tm, "judge_excess_ref_ms", NULL), 0));
      cJSON_AddNumberToObject(run, "judge_excess_cand_ms", num_or(field(tm, "judge_excess_cand_ms", NULL), 0));
      cJSON_AddNumberToObject(run, "clock_cut_ms", num_or(field(tm, "clock_cut_ms", NULL), 0));
      cJSON_AddNumberToObject(run, "measurements", num_or(field(tm, "measurements", NULL), 1));
      cJSON_AddNumberToObject(run, "checks", num_or(field(j, "correctness", "checks"), 0));
      cJSON_AddNumberToObject(run, "max_abs", num_or(field(j, "correctness", "max_abs"), 0));
      cJSON_AddNumberToObject(run, "max_rel", num_or(field(j, "correctness", "max_rel"), 0));
      cJSON_AddNumberToObject(run, "exit_status", status);
      cJSON_AddNumberToObject(run, "wall_s", wall);
      const cJSON *dev = field(j, "device", NULL), *drv = field(j, "driver", NULL);
      if (cJSON_IsString(dev) && *dev->valuestring && !*gpu->valuestring)
        cJSON_SetValuestring(gpu, dev->valuestring);
      if (cJSON_IsString(drv) && *drv->valuestring && !*driver->valuestring)
        cJSON_SetValuestring(driver, drv->valuestring);
      char why[512];
      const bool ok = j && th_expect_met(e->expect, j, why, sizeof why);
      cJSON_AddBoolToObject(run, "matched", ok);
      all &= ok;
      cJSON_AddItemToArray(runs, run);
      cJSON_AddItemToArray(verdicts, cJSON_CreateString(verdict));
      cJSON_AddItemToArray(speedups, cJSON_CreateNumber(speedup));
      if (!strcmp(verdict, "pass") && nsp < 100) sp[nsp++] = speedup;
      fprintf(stderr, "[%d/%d] %s run %d: %s%s speedup %.3f %s%s\n", i + 1, n, e->file, k + 1,
              verdict, nflags ? " (flagged)" : "", speedup, ok ? "ok" : "MISMATCH: ", ok ? "" : why);
      cJSON_Delete(j);
      free(text);
    }
    if (nsp) {
      qsort(sp, (size_t)nsp, sizeof sp[0], cmp_double);
      cJSON_AddNumberToObject(row, "speedup_median",
                              nsp % 2 ? sp[nsp / 2] : 0.5 * (sp[nsp / 2 - 1] + sp[nsp / 2]));
      cJSON_AddNumberToObject(row, "speedup_min", sp[0]);
      cJSON_AddNumberToObject(row, "speedup_max", sp[nsp - 1]);
    }
    cJSON_AddBoolToObject(row, "matched", all);
    if (all) matched++;
    else cJSON_AddItemToArray(mismatched, cJSON_CreateString(e->file));
    cJSON_AddItemToArray(rows, row);
  }
  cJSON *sum = cJSON_AddObjectToObject(doc, "summary");
  cJSON_AddNumberToObject(sum, "files", n);
  cJSON_AddNumberToObject(sum, "matched", matched);
  cJSON_AddItemToObject(sum, "mismatched", mismatched);
  char *text = cJSON_Print(doc);
  FILE *f = fopen(out_path, "w");
  int rc = 0;
  if (!f || fputs(text, f) < 0 || fputc('\n', f) < 0) rc = 3;
  if (f && fclose(f)) rc = 3;
  if (rc) fprintf(stderr, "corpus: cannot write %s\n", out_path);
  fprintf(stderr, "corpus: %d of %d files matched their expectation (%s)\n", matched, n, out_path);
  free(text);
  cJSON_Delete(doc);
  free(es);
  return rc ? rc : matched == n ? 0 : 1;
}
