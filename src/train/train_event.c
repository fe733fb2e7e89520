/* train_event.c — the engine's event lines ("CL1TRAIN " + one JSON object on its stdout, the
 * contract's start/step/round/eval/checkpoint/done/error): parsed and checked where the store
 * and the report rely on a field (event, stage, round, step), kept whole otherwise (extra keys
 * are allowed), and summarised in one line for the terminal. */
#include "train.h"
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

bool cl1_train_is_event(const char *line) {
  return !strncmp(line, CL1_TRAIN_EVENT_PREFIX, strlen(CL1_TRAIN_EVENT_PREFIX));
}

/* A non-negative integer field into *v (-1 when absent or null); -1 when it is something else. */
static int int_field(const cJSON *o, const char *k, int *v, cl1_err *err) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
  *v = -1;
  if (!x || cJSON_IsNull(x)) return 0;
  if (!cJSON_IsNumber(x) || x->valuedouble < 0 || x->valuedouble > 1e9 ||
      x->valuedouble != floor(x->valuedouble))
    return cl1_err_set(err, "\"%s\" is not a non-negative integer", k);
  *v = (int)x->valuedouble;
  return 0;
}

int cl1_train_event_parse(const char *line, cl1_train_event *ev, cl1_err *err) {
  memset(ev, 0, sizeof *ev);
  ev->round = ev->step = -1;
  if (!cl1_train_is_event(line)) return cl1_err_set(err, "not an event line");
  cJSON *o = cJSON_Parse(line + strlen(CL1_TRAIN_EVENT_PREFIX));
  if (!cJSON_IsObject(o)) {
    cJSON_Delete(o);
    return cl1_err_set(err, "not one JSON object after CL1TRAIN");
  }
  const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "event");
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "stage");
  int rc = 0;
  if (!cJSON_IsString(e) || !*e->valuestring || strlen(e->valuestring) >= sizeof ev->event)
    rc = cl1_err_set(err, "\"event\" is missing or not a short string");
  else if (s && !cJSON_IsNull(s) &&
           (!cJSON_IsString(s) || strlen(s->valuestring) >= sizeof ev->stage))
    rc = cl1_err_set(err, "\"stage\" is not a short string");
  else if (int_field(o, "round", &ev->round, err) || int_field(o, "step", &ev->step, err))
    rc = -1;
  if (rc) {
    cJSON_Delete(o);
    return -1;
  }
  strcpy(ev->event, e->valuestring);
  if (cJSON_IsString(s)) strcpy(ev->stage, s->valuestring);
  ev->json = o;
  return 0;
}

void cl1_train_event_free(cl1_train_event *ev) {
  if (!ev) return;
  cJSON_Delete(ev->json);
  ev->json = NULL;
}

char *cl1_train_event_text(const cl1_train_event *ev) {
  return cJSON_PrintUnformatted((const cJSON *)ev->json);
}

/* ---- the terminal's summary ---- */

typedef struct {
  char *p;
  size_t n, k;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...) {
  if (b->k + 1 >= b->n) return;
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(b->p + b->k, b->n - b->k, fmt, ap);
  va_end(ap);
  if (w > 0) b->k = b->k + (size_t)w < b->n ? b->k + (size_t)w : b->n - 1;
}

static bool num(const cJSON *o, const char *k, double *v) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
  if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble)) return false;
  *v = x->valuedouble;
  return true;
}

static const char *str(const cJSON *o, const char *k) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(x) ? x->valuestring : NULL;
}

/* ", verdicts pass 3 compile_error 5": why samples failed, for a run whose success stays at 0. */
static void verdicts(sbuf *b, const cJSON *v, const char **sep) {
  if (!cJSON_IsObject(v) || !v->child) return;
  put(b, "%sverdicts", *sep), *sep = ", ";
  for (const cJSON *x = v->child; x; x = x->next)
    if (cJSON_IsNumber(x) && x->string) put(b, " %s %.0f", x->string, x->valuedouble);
}

/* ", name FORMAT" for each field present, the first without its comma. */
static void fields(sbuf *b, const cJSON *o) {
  double v, w;
  const char *sep = "";
  if (num(o, "n_samples", &v)) put(b, "%s%.0f samples", sep, v), sep = ", ";
  if (num(o, "reward_mean", &v)) {
    put(b, "%sreward %.3f", sep, v), sep = ", ";
    if (num(o, "reward_std", &w)) put(b, " +- %.3f", w);
  }
  if (num(o, "success_rate", &v)) put(b, "%ssuccess %.1f%%", sep, 100 * v), sep = ", ";
  bool mean = num(o, "speedup_mean", &v), best = num(o, "speedup_best", &w);
  if (mean || best) put(b, "%sspeedup", sep), sep = ", ";
  if (mean) put(b, " mean %.2fx", v);
  if (best) put(b, " best %.2fx", w);
  verdicts(b, cJSON_GetObjectItemCaseSensitive(o, "verdicts"), &sep);
  if (num(o, "loss", &v)) put(b, "%sloss %.4g", sep, v), sep = ", ";
  if (num(o, "tokens", &v)) put(b, "%s%.0f tokens", sep, v), sep = ", ";
  const char *tk[] = {"t_generate", "t_reward", "t_update"}, *tn[] = {"generate", "reward", "update"};
  const char *open = " (";
  for (int i = 0; i < 3; i++)
    if (num(o, tk[i], &v)) put(b, "%s%s %.1f s", open, tn[i], v), open = ", ";
  if (num(o, "gpu_busy", &v)) put(b, "%sGPU busy %.0f%%", open, 100 * v), open = ", ";
  if (strcmp(open, " (")) put(b, ")");
}

void cl1_train_event_summary(const cl1_train_event *ev, char *buf, size_t n) {
  sbuf b = {buf, n, 0};
  buf[0] = 0;
  const cJSON *o = ev->json;
  if (*ev->stage) {
    put(&b, "[%s", ev->stage);
    if (ev->round >= 0) put(&b, " r%d", ev->round);
    if (ev->step >= 0) put(&b, " s%d", ev->step);
    put(&b, "] ");
  }
  const char *e = ev->event;
  if (!strcmp(e, "step")) fields(&b, o);
  else if (!strcmp(e, "round")) put(&b, "round: "), fields(&b, o);
  else if (!strcmp(e, "eval")) {  /* stage 3's probe (--grpo-probe) is an eval of fixed prompts */
    bool probe = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "probe"));
    put(&b, probe ? (ev->round < 0 ? "probe before round 0: " : "probe: ") : "eval: ");
    fields(&b, o);
  }
  else if (!strcmp(e, "checkpoint")) put(&b, "checkpoint %s", str(o, "path") ? str(o, "path") : "?");
  else if (!strcmp(e, "error")) {
    char m[1024];
    cl1_train_event_error(ev, m, sizeof m);
    put(&b, "error: %s", m);
  } else put(&b, "%s", e);
}

bool cl1_train_event_error(const cl1_train_event *ev, char *buf, size_t n) {
  if (strcmp(ev->event, "error")) return false;
  const char *m = str(ev->json, "message"), *h = str(ev->json, "hint");
  snprintf(buf, n, "%s%s%s%s", m ? m : "(no message)", h && *h ? " (" : "", h && *h ? h : "",
           h && *h ? ")" : "");
  return true;
}
