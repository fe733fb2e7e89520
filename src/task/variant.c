/* variant.c — verification variants (task.h, docs/verify-variants.md): an instance's tensors with
 * their distributions moved off the task's own, so that verification also sees parameters off
 * their constant init and inputs far from the usual range. A variant is a change of the resolved
 * distribution (and, for EXTREME, of the per-element rule that gen.c and gen_cuda.cu share), never
 * of a shape: the generators then produce it from the same seeds on the host and on the GPU. */
#include <string.h>
#include "../base/rng.h"
#include "task.h"

static const char *const variant_names[CL1_VARIANT_N] = {"none", "off_default", "offset", "wide",
                                                         "extreme"};

const char *cl1_variant_name(cl1_variant v) {
  return (int)v >= 0 && v < CL1_VARIANT_N ? variant_names[v] : "?";
}

int cl1_variant_parse(const char *s) {
  for (int i = 0; s && i < CL1_VARIANT_N; i++)
    if (!strcmp(s, variant_names[i])) return i;
  return -1;
}

static bool is_float(int dtype) {
  return dtype == CL1_F32 || dtype == CL1_F16 || dtype == CL1_BF16 || dtype == CL1_F64;
}

/* A constant c becomes c * U[0.25, 1.75): moderate noise that keeps the sign, so a param that
 * must stay positive (a BatchNorm running variance, a scale) stays so; zero becomes
 * U[-0.75, 0.75). Both have a std of about 0.43 |c| (0.43 for zero). */
static bool off_default(const cl1_tinst *t, cl1_tinst *o) {
  if (t->dist != CL1_DIST_CONST || !is_float(t->dtype)) return false;
  double c = t->a;
  o->dist = CL1_DIST_UNIFORM;
  if (c == 0) o->a = -0.75, o->b = 0.75;
  else if (c > 0) o->a = 0.25 * c, o->b = 1.75 * c;
  else o->a = 1.75 * c, o->b = 0.25 * c;
  return true;
}

/* The centre the input variants scale about: a normal's mean; for a uniform the point of
 * [a, b] nearest 0, so that widening keeps the interval's sign (U[0,1) -> U[0, 100)). */
static double centre(const cl1_tinst *t) {
  if (t->dist == CL1_DIST_NORMAL) return t->a;
  return t->a > 0 ? t->a : t->b < 0 ? t->b : 0.0;
}

static bool input_variant(const cl1_tinst *t, cl1_variant v, cl1_tinst *o) {
  if (!is_float(t->dtype) || (t->dist != CL1_DIST_UNIFORM && t->dist != CL1_DIST_NORMAL))
    return false;
  bool normal = t->dist == CL1_DIST_NORMAL;
  double s = normal ? t->b : t->b - t->a, c = centre(t);
  switch (v) {
  case CL1_VARIANT_OFFSET: {
    double d = CL1_VARIANT_OFFSET_SCALES * s;
    o->a = t->a + d;
    if (!normal) o->b = t->b + d;
    return true;
  }
  case CL1_VARIANT_WIDE:
    if (normal) {
      o->b = t->b * CL1_VARIANT_WIDE_FACTOR;
    } else {
      o->a = c + (t->a - c) * CL1_VARIANT_WIDE_FACTOR;
      o->b = c + (t->b - c) * CL1_VARIANT_WIDE_FACTOR;
    }
    return true;
  case CL1_VARIANT_EXTREME:
    o->extreme_p = CL1_VARIANT_EXTREME_P;
    o->extreme_scale = CL1_VARIANT_EXTREME_SCALE;
    o->extreme_center = c;
    return true;
  default: return false;
  }
}

bool cl1_tinst_variant(const cl1_tinst *t, int group, cl1_variant v, cl1_tinst *out) {
  cl1_tinst o = *t;
  bool changed = false;
  if (group == 1 && v == CL1_VARIANT_OFF_DEFAULT) changed = off_default(t, &o);
  else if (group == 0 && v >= CL1_VARIANT_OFFSET && v <= CL1_VARIANT_EXTREME)
    changed = input_variant(t, v, &o);
  *out = changed ? o : *t;
  return changed;
}

bool cl1_inst_variant(const cl1_inst *in, cl1_variant v, cl1_inst *out) {
  if (out != in) memcpy(out, in, sizeof *out);
  bool any = false;
  for (int i = 0; i < out->n_inputs; i++) any |= cl1_tinst_variant(&out->inputs[i], 0, v, &out->inputs[i]);
  for (int i = 0; i < out->n_params; i++) any |= cl1_tinst_variant(&out->params[i], 1, v, &out->params[i]);
  return any;
}

bool cl1_inst_variant_applies(const cl1_inst *in, cl1_variant v) {
  cl1_tinst scratch;
  for (int i = 0; i < in->n_inputs; i++)
    if (cl1_tinst_variant(&in->inputs[i], 0, v, &scratch)) return true;
  for (int i = 0; i < in->n_params; i++)
    if (cl1_tinst_variant(&in->params[i], 1, v, &scratch)) return true;
  return false;
}

int cl1_inst_variants(const cl1_inst *in, cl1_variant out[], int max) {
  int n = 0;
  for (int v = CL1_VARIANT_NONE + 1; v < CL1_VARIANT_N && n < max; v++) {
    if (in->task && in->task->variant_optout[v]) continue;
    if (cl1_inst_variant_applies(in, (cl1_variant)v)) out[n++] = (cl1_variant)v;
  }
  return n;
}
