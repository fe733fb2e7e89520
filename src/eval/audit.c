/* audit.c — degenerate-task detection (see audit.h). */
#include "audit.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "embed.h"
#include "../task/task.h"

/* Output values as double, whatever their dtype (int outputs: argmax indices and the like). */
static double *as_double(const cl1_tinst *t, const void *h) {
  double *v = malloc(sizeof(double) * (size_t)(t->numel ? t->numel : 1));
  if (!v) return NULL;
  for (int64_t i = 0; i < t->numel; i++) {
    switch (t->dtype) {
    case CL1_F32: v[i] = ((const float *)h)[i]; break;
    case CL1_F64: v[i] = ((const double *)h)[i]; break;
    case CL1_I32: v[i] = ((const int32_t *)h)[i]; break;
    case CL1_I64: v[i] = (double)((const int64_t *)h)[i]; break;
    case CL1_U8: v[i] = ((const uint8_t *)h)[i]; break;
    case CL1_BOOL: v[i] = ((const uint8_t *)h)[i] != 0; break;
    case CL1_F16: v[i] = cl1_f16_to_f32(((const uint16_t *)h)[i]); break;
    case CL1_BF16: v[i] = cl1_bf16_to_f32(((const uint16_t *)h)[i]); break;
    default: v[i] = NAN;
    }
  }
  return v;
}

/* The evaluator's test, |cand - ref| <= atol + rtol |ref|, for a whole candidate. */
static bool within(double cand, double ref, double atol, double rtol) {
  if (isnan(ref) || isnan(cand)) return isnan(ref) && isnan(cand);
  if (isinf(ref) || isinf(cand)) return cand == ref;
  return fabs(cand - ref) <= atol + rtol * fabs(ref);
}

static void judge_output(const double *a, const double *b, int64_t n, double atol, double rtol,
                         cl1_audit_out *o) {
  double sum = 0, mx = 0;
  int64_t zero_ok = 0, fin = 0;
  bool ins = true;
  for (int64_t i = 0; i < n; i++) {
    if (within(0.0, a[i], atol, rtol)) zero_ok++;
    if (!within(a[i], b[i], atol, rtol)) ins = false;
    if (isfinite(a[i])) sum += a[i], fin++;
    if (fabs(a[i]) > mx) mx = fabs(a[i]);
  }
  double mean = fin ? sum / (double)fin : 0;
  bool cst = n > 1; /* one value is trivially "constant": insensitivity is the test there */
  for (int64_t i = 0; i < n && cst; i++) cst = within(mean, a[i], atol, rtol);
  o->zero_share = n ? (double)zero_ok / (double)n : 1;
  o->zero_passes = zero_ok == n;
  o->insensitive = ins;
  o->constant = cst;
  o->max_abs = mx;
}

static void write_note(cl1_audit_result *r, const char *shapes, const char *backend, double atol) {
  size_t k = 0;
  k += (size_t)snprintf(r->note + k, sizeof r->note - k, "audit (%s, %s):", shapes, backend);
  for (int i = 0; i < r->n_outputs && k < sizeof r->note; i++) {
    const cl1_audit_out *o = &r->out[i];
    if (!o->zero_passes && !o->insensitive && !o->constant) continue;
    k += (size_t)snprintf(r->note + k, sizeof r->note - k, " output '%s'", o->name);
    if (k < sizeof r->note && o->zero_passes)
      k += (size_t)snprintf(r->note + k, sizeof r->note - k,
                            " is so small that all zeros pass (max |y| %.3g, atol %g);",
                            o->max_abs, atol);
    if (k < sizeof r->note && o->constant && !o->zero_passes)
      k += (size_t)snprintf(r->note + k, sizeof r->note - k, " is constant within tolerance;");
    if (k < sizeof r->note && o->insensitive && !o->constant && !o->zero_passes)
      k += (size_t)snprintf(r->note + k, sizeof r->note - k,
                            " does not depend on the inputs within tolerance;");
  }
  if (k < sizeof r->note && k > 0 && r->note[k - 1] == ';') r->note[k - 1] = '.';
}

int cl1_audit_task(const char *task, const char *shapes, const char *backend, cl1_audit_result *r,
                   cl1_err *err) {
  memset(r, 0, sizeof *r);
  char eb[1024];
  cl1_embed *e = cl1_embed_open(task, shapes, backend, eb, sizeof eb);
  if (!e) return cl1_err_set(err, "%s", eb);
  const cl1_inst *in = cl1_embed_inst(e);
  int ret = -1;
  void *ins[CL1_TASK_MAX_TENSORS] = {0}, *outs[CL1_TASK_MAX_TENSORS] = {0};
  void **pars = calloc(CL1_TASK_MAX_PARAMS, sizeof(void *));
  double *res[2][CL1_AUDIT_MAX_OUT] = {{0}};
  void *host = NULL;
  if (!pars) { cl1_err_set(err, "out of memory"); goto out; }
  if (in->n_outputs > CL1_AUDIT_MAX_OUT) {
    cl1_err_set(err, "%s: %d outputs; the audit handles %d", task, in->n_outputs, CL1_AUDIT_MAX_OUT);
    goto out;
  }
  for (int i = 0; i < in->n_params; i++)
    if (cl1_embed_alloc(e, in->params[i].bytes, &pars[i]) || cl1_embed_gen(e, 1, i, pars[i], 1)) goto fail;
  for (int i = 0; i < in->n_inputs; i++)
    if (cl1_embed_alloc(e, in->inputs[i].bytes, &ins[i])) goto fail;
  for (int i = 0; i < in->n_outputs; i++)
    if (cl1_embed_alloc(e, in->outputs[i].bytes, &outs[i])) goto fail;
  if (cl1_embed_setup(e, pars, outs, NULL)) goto fail;
  for (int s = 0; s < 2; s++) {
    /* seeds 1 and 2 give inputs from 2 and 3: never the evaluator's secret seeds */
    for (int i = 0; i < in->n_inputs; i++)
      if (cl1_embed_gen(e, 0, i, ins[i], 1 + (uint64_t)s)) goto fail;
    if (cl1_embed_forward(e, ins) || cl1_embed_sync(e)) goto fail;
    for (int i = 0; i < in->n_outputs; i++) {
      free(host);
      host = malloc(in->outputs[i].bytes ? in->outputs[i].bytes : 1);
      if (!host) { cl1_err_set(err, "out of memory for output '%s'", in->outputs[i].name); goto out; }
      if (cl1_embed_to_host(e, host, outs[i], in->outputs[i].bytes)) goto fail;
      res[s][i] = as_double(&in->outputs[i], host);
      if (!res[s][i]) { cl1_err_set(err, "out of memory for output '%s'", in->outputs[i].name); goto out; }
    }
  }
  r->n_outputs = in->n_outputs;
  for (int i = 0; i < in->n_outputs; i++) {
    snprintf(r->out[i].name, sizeof r->out[i].name, "%s", in->outputs[i].name);
    judge_output(res[0][i], res[1][i], in->outputs[i].numel, in->atol, in->rtol, &r->out[i]);
    r->degenerate |= r->out[i].zero_passes || r->out[i].insensitive || r->out[i].constant;
  }
  if (r->degenerate) write_note(r, shapes, backend, in->atol);
  ret = 0;
  goto out;
fail:
  cl1_err_set(err, "%s: %s", task, cl1_embed_error(e));
out:
  free(host);
  for (int s = 0; s < 2; s++)
    for (int i = 0; i < CL1_AUDIT_MAX_OUT; i++) free(res[s][i]);
  for (int i = 0; i < CL1_TASK_MAX_TENSORS; i++) cl1_embed_free(e, ins[i]), cl1_embed_free(e, outs[i]);
  if (pars)
    for (int i = 0; i < in->n_params; i++) cl1_embed_free(e, pars[i]);
  free(pars);
  cl1_embed_close(e);
  return ret;
}
