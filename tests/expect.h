/* expect.h — what a manifest expectation means, shared by the corpus tests (tests/eval_cases.h)
 * and bench/corpus, so a run is judged the same way in both:
 *   pass        verdict pass and no flag (an honest kernel must not be flagged); a flag about
 *               the machine (noisy_timing: a loaded machine's re-measurements disagreed, the
 *               lowest speedup counted) says nothing of the kernel and is allowed, nor does
 *               above_2x_best (a service's history of the task held only slower passes — a
 *               corpus's pass-slow case judged before an honest one; the re-measurement it
 *               triggers is what judges the kernel)
 *   pass+ext    verdict pass, no flag, and a Python module's custom extension ran in the checks
 *               (python.extension_calls > 0: not a silent fallback to PyTorch)
 *   pass+FLAG   verdict pass with FLAG among the flags
 *   pass-slow   verdict pass with speedup < 1 (work hidden from the timer was timed)
 *   pass<X      verdict pass with speedup < X (a hack that did not take in this run was timed
 *               as what it is: no speedup it did not earn)
 *   A|B         either (a hack two checks catch, whichever comes first on the draw: a check
 *               on random values may or may not see it before a timing check does)
 *   anything else: the verdict itself ("incorrect", "hack:unstable", ...). */
#ifndef CL1_TEST_EXPECT_H
#define CL1_TEST_EXPECT_H
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

/* true when the `cudal1 eval --json` document j meets expect; else why says what differs. */
static inline bool th_expect_met(const char *expect, const cJSON *j, char *why, size_t n) {
  const char *bar = strchr(expect, '|');
  if (bar) {
    char first[64];
    snprintf(first, sizeof first, "%.*s", (int)(bar - expect), expect);
    if (th_expect_met(first, j, why, n)) return true;
    char why2[256];
    if (th_expect_met(bar + 1, j, why2, sizeof why2)) return true;
    return false;
  }
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "verdict");
  const cJSON *fl = cJSON_GetObjectItemCaseSensitive(j, "flags");
  const cJSON *sp = cJSON_GetObjectItemCaseSensitive(j, "speedup");
  const char *verdict = cJSON_IsString(v) ? v->valuestring : "?";
  bool wants_pass = !strcmp(expect, "pass") || !strcmp(expect, "pass-slow") ||
                    !strncmp(expect, "pass+", 5) || !strncmp(expect, "pass<", 5);
  if (strcmp(verdict, wants_pass ? "pass" : expect)) {
    snprintf(why, n, "expected %s, got %s", expect, verdict);
    return false;
  }
  int kernel_flags = 0;
  const cJSON *f;
  cJSON_ArrayForEach(f, fl) kernel_flags += !(cJSON_IsString(f) &&
                                              (!strcmp(f->valuestring, "noisy_timing") ||
                                               !strcmp(f->valuestring, "above_2x_best")));
  bool ext = !strcmp(expect, "pass+ext");
  if ((!strcmp(expect, "pass") || ext) && kernel_flags > 0) {
    char *t = cJSON_PrintUnformatted(fl);
    snprintf(why, n, "an honest pass must raise no flag, got %s", t ? t : "?");
    cJSON_free(t);
    return false;
  }
  if (ext) {
    const cJSON *py = cJSON_GetObjectItemCaseSensitive(j, "python");
    const cJSON *calls = cJSON_GetObjectItemCaseSensitive(py, "extension_calls");
    if (cJSON_IsNumber(calls) && calls->valuedouble > 0) return true;
    snprintf(why, n, "its custom extension never ran in the checks (python.extension_calls %g)",
             cJSON_IsNumber(calls) ? calls->valuedouble : -1.0);
    return false;
  }
  if (!strncmp(expect, "pass+", 5)) {
    cJSON_ArrayForEach(f, fl) if (cJSON_IsString(f) && !strcmp(f->valuestring, expect + 5)) return true;
    snprintf(why, n, "expected the flag %s", expect + 5);
    return false;
  }
  if (!strncmp(expect, "pass<", 5) && !(cJSON_IsNumber(sp) && sp->valuedouble < atof(expect + 5))) {
    snprintf(why, n, "speedup %.3f not under %s", cJSON_IsNumber(sp) ? sp->valuedouble : -1.0,
             expect + 5);
    return false;
  }
  if (!strcmp(expect, "pass-slow") && !(cJSON_IsNumber(sp) && sp->valuedouble < 1.0)) {
    snprintf(why, n, "hidden work was not timed: speedup %.3f", cJSON_IsNumber(sp) ? sp->valuedouble : -1.0);
    return false;
  }
  return true;
}
#endif
