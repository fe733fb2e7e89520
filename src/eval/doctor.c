/* doctor.c — `cudal1 doctor` (doctor.h): runs the probes in a safe order, decides which problems
 * are fatal on this machine, and writes the report as text or JSON. */
#include "doctor.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "doctor_int.h"

const char *cl1_doctor_status_name(cl1_doctor_status s) {
  switch (s) {
    case CL1_DOCTOR_OK: return "ok";
    case CL1_DOCTOR_MISSING: return "missing";
    case CL1_DOCTOR_WRONG: return "wrong";
    case CL1_DOCTOR_INFO: return "info";
  }
  return "?";
}

static const char *need_name(cl1_doctor_need n) {
  return n == CL1_DOCTOR_NEED_ALL ? "all" : n == CL1_DOCTOR_NEED_CUDA ? "cuda" : "none";
}

cl1_doctor_item *cl1_doctor_add(cl1_doctor_report *r, const char *name, const char *label,
                                cl1_doctor_status st, cl1_doctor_need need, const char *fix,
                                const char *fmt, ...) {
  if (r->n >= CL1_DOCTOR_MAX_ITEMS) return NULL;
  cl1_doctor_item *it = &r->items[r->n++];
  memset(it, 0, sizeof *it);
  snprintf(it->name, sizeof it->name, "%s", name);
  snprintf(it->label, sizeof it->label, "%s", label);
  it->status = st;
  it->need = need;
  it->section = r->section;
  snprintf(it->fix, sizeof it->fix, "%s", fix ? fix : "");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(it->value, sizeof it->value, fmt, ap);
  va_end(ap);
  return it;
}

void cl1_doctor_bytes(size_t b, char *out, size_t n) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = (double)b;
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, u++;
  if (u == 0 || v >= 100 || v == (double)(long long)v) snprintf(out, n, "%.0f %s", v, unit[u]);
  else snprintf(out, n, "%.1f %s", v, unit[u]);
}

static bool bad(const cl1_doctor_item *it) {
  return it->status == CL1_DOCTOR_MISSING || it->status == CL1_DOCTOR_WRONG;
}

/* Probes that fork run before the CUDA runtime starts its threads; the display order is by
 * section, stable within one. */
void cl1_doctor_run(const cl1_doctor_opts *o, cl1_doctor_report *r) {
  memset(r, 0, sizeof *r);
  r->section = CL1_DOC_SEC_SANDBOX;
  cl1_doctor_probe_kernel(r);
  r->section = CL1_DOC_SEC_BUILD;
  cl1_doctor_probe_build(r);
  r->section = CL1_DOC_SEC_GPU;
  cl1_doctor_probe_cuda(r);
  r->section = CL1_DOC_SEC_MEMORY;
  cl1_doctor_probe_memory(r);
  r->section = CL1_DOC_SEC_PYTHON;
  cl1_doctor_probe_python(r, o->python_timeout_s > 0 ? o->python_timeout_s : 120);
  if (o->base_url && *o->base_url) {
    r->section = CL1_DOC_SEC_SERVER;
    cl1_doctor_probe_server(r, o->base_url, o->model, o->api_key,
                            o->server_timeout_s > 0 ? o->server_timeout_s : 10);
  }
  for (int i = 1; i < r->n; i++) {
    cl1_doctor_item t = r->items[i];
    int j = i;
    for (; j > 0 && r->items[j - 1].section > t.section; j--) r->items[j] = r->items[j - 1];
    r->items[j] = t;
  }
  r->host_ok = true;
  for (int i = 0; i < r->n; i++) {
    cl1_doctor_item *it = &r->items[i];
    if (!bad(it)) continue;
    it->fatal = it->need == CL1_DOCTOR_NEED_ALL || (it->need == CL1_DOCTOR_NEED_CUDA && r->gpu_present);
    if (it->need == CL1_DOCTOR_NEED_ALL) r->host_ok = false;
    if (it->fatal) r->n_fatal++;
    else r->n_warn++;
  }
}

/* The names of the items that are bad and (not) fatal, comma-separated. */
static void names(const cl1_doctor_report *r, bool fatal, char *out, size_t n) {
  size_t k = 0;
  out[0] = 0;
  for (int i = 0; i < r->n && k < n; i++) {
    const cl1_doctor_item *it = &r->items[i];
    if (!bad(it) || it->fatal != fatal) continue;
    int w = snprintf(out + k, n - k, "%s%s", k ? ", " : "", it->name);
    if (w < 0) break;
    k += (size_t)w;
  }
}

void cl1_doctor_verdict(const cl1_doctor_report *r, char *out, size_t n) {
  char warn[512], fatal[512];
  names(r, false, warn, sizeof warn);
  names(r, true, fatal, sizeof fatal);
  if (r->n_fatal) {
    snprintf(out, n, "cudal1 cannot run here: fatal: %s (fix those and run cudal1 doctor again)%s",
             fatal,
             r->gpu_present && r->host_ok ? "; the host backend alone would run (--device host)" : "");
    return;
  }
  int k = snprintf(out, n, "cudal1 can run here: %s",
                   r->gpu_present ? "on the GPU (cuda backend)"
                                  : "on the CPU (host backend: no GPU)");
  if (r->n_warn && k > 0 && (size_t)k < n)
    snprintf(out + k, n - (size_t)k, "; %d warning%s: %s", r->n_warn, r->n_warn == 1 ? "" : "s",
             warn);
}

void cl1_doctor_print(const cl1_doctor_report *r, FILE *f) {
  static const char *const sec[] = {"GPU", "build", "sandbox", "memory", "Python", "server"};
  fprintf(f, "cudal1 doctor: what cudal1 needs on this machine (status, item, value, fix)\n");
  int last = -1;
  for (int i = 0; i < r->n; i++) {
    const cl1_doctor_item *it = &r->items[i];
    if (it->section != last) fprintf(f, "[%s]\n", sec[it->section]);
    last = it->section;
    fprintf(f, "  %-8s %-17s %s%s%s%s\n", cl1_doctor_status_name(it->status), it->label, it->value,
            it->fix[0] ? "  -> fix: " : "", it->fix,
            it->fatal ? "  (FATAL)" : "");
  }
  char v[1200];
  cl1_doctor_verdict(r, v, sizeof v);
  fprintf(f, "%s\n", v);
}

char *cl1_doctor_json(const cl1_doctor_report *r) {
  cJSON *o = cJSON_CreateObject(), *items = o ? cJSON_AddArrayToObject(o, "items") : NULL;
  if (!items) {
    cJSON_Delete(o);
    return NULL;
  }
  for (int i = 0; i < r->n; i++) {
    const cl1_doctor_item *it = &r->items[i];
    cJSON *j = cJSON_CreateObject();
    if (!j) break;
    cJSON_AddStringToObject(j, "name", it->name);
    cJSON_AddStringToObject(j, "label", it->label);
    cJSON_AddStringToObject(j, "status", cl1_doctor_status_name(it->status));
    cJSON_AddStringToObject(j, "value", it->value);
    cJSON_AddStringToObject(j, "fix", it->fix);
    cJSON_AddStringToObject(j, "needed_for", need_name(it->need));
    cJSON_AddBoolToObject(j, "fatal", it->fatal);
    cJSON_AddItemToArray(items, j);
  }
  char v[1200];
  cl1_doctor_verdict(r, v, sizeof v);
  cJSON_AddBoolToObject(o, "can_run", r->n_fatal == 0);
  if (r->n_fatal) cJSON_AddNullToObject(o, "backend");
  else cJSON_AddStringToObject(o, "backend", r->gpu_present ? "cuda" : "host");
  cJSON_AddNumberToObject(o, "fatal", r->n_fatal);
  cJSON_AddNumberToObject(o, "warnings", r->n_warn);
  cJSON_AddStringToObject(o, "verdict", v);
  char *s = cJSON_Print(o);
  cJSON_Delete(o);
  return s;
}
