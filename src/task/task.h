/* task.h — a task: its task.json (schema in docs/task-format.md), loaded and validated, and an
 * instance of it (a task resolved at one shape set: concrete shapes, attrs and init distributions).
 * Inputs, params and outputs keep task.json's order, which is the ABI's order. */
#ifndef CL1_TASK_H
#define CL1_TASK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cudal1/solution.h"
#include "../base/err.h"

enum { CL1_SHAPES_TEST = 0, CL1_SHAPES_SMALL = 1, CL1_SHAPES_LARGE = 2, CL1_SHAPES_N = 3 };
#define CL1_TASK_MAX_TENSORS 32   /* inputs, outputs */
/* Parameters: whole networks (level 3: ResNet-101, DenseNet-201) carry hundreds of tensors. */
#define CL1_TASK_MAX_PARAMS 1024
#define CL1_TASK_MAX_DIMS 48
#define CL1_TASK_MAX_ATTRS 32

const char *cl1_shapes_name(int set);          /* "test", "small", "large" */
int cl1_shapes_parse(const char *s);           /* -1 if unknown */
const char *cl1_dtype_name(int dtype);         /* "f32", ... */
int cl1_dtype_parse(const char *s);            /* accepts "f32" and "float32" forms; -1 if unknown */
size_t cl1_dtype_size(int dtype);
const char *cl1_task_group_name(int g);        /* 0: "inputs", 1: "params", 2: "outputs" */

/* Verification variants (docs/verify-variants.md): an instance's tensors drawn off the task's own
 * distributions, so that a candidate cannot pass by assuming them. Timing uses
 * CL1_VARIANT_NONE; a variant only ever changes the distribution, never a shape, so the same
 * buffers, seeds and tensor ids serve every variant. */
typedef enum {
  CL1_VARIANT_NONE = 0,    /* the task's distributions */
  CL1_VARIANT_OFF_DEFAULT, /* params with a constant init (ones, zeros, const c) drawn around it:
                              c * U[0.25, 1.75), zeros U[-0.75, 0.75); the sign is kept */
  CL1_VARIANT_OFFSET,      /* float inputs shifted up by 100 times their scale s */
  CL1_VARIANT_WIDE,        /* float inputs' spread widened 100 times about their centre */
  CL1_VARIANT_EXTREME,     /* a seeded 1/256 of float input elements moved 1024 times further
                              from their centre */
  CL1_VARIANT_N
} cl1_variant;

/* An init distribution as written: kind + numbers or dim expressions (fan_in). */
typedef enum {
  CL1_INIT_UNIFORM, CL1_INIT_NORMAL, CL1_INIT_ONES, CL1_INIT_ZEROS, CL1_INIT_CONST,
  CL1_INIT_RANDINT, CL1_INIT_KAIMING_UNIFORM, CL1_INIT_FAN_IN_UNIFORM, CL1_INIT_BERNOULLI,
  CL1_INIT_RADEMACHER,      /* +-1 with probability 1/2 each */
  CL1_INIT_SOFTMAX_NORMAL,  /* normal(a, b), then softmax over the last dim, per row */
  CL1_INIT_SOFTMAX_UNIFORM  /* uniform[a, b), then softmax over the last dim, per row */
} cl1_init_kind;

typedef struct {
  cl1_init_kind kind;
  double a, b;          /* uniform low/high, normal mean/std, const value, randint low/high,
                           kaiming: a = negative slope (default sqrt(5)), bernoulli: a = p,
                           softmax_normal mean/std, softmax_uniform low/high */
  char *fan_in;         /* dim expression, kaiming/fan_in_uniform only */
} cl1_init;

typedef struct {
  char *name;
  int dtype;                       /* cl1_dtype */
  int ndim;
  char *shape[CL1_MAX_DIMS];       /* dim expressions ("N", "H-K+1", "1") */
  bool has_init[CL1_SHAPES_N];     /* per-set override present */
  cl1_init init;                   /* default init (inputs, params) */
  cl1_init init_set[CL1_SHAPES_N]; /* "init_test"/"init_small"/"init_large" overrides */
} cl1_tensor_spec;

typedef struct {
  char *path;                     /* the task.json path as given */
  char *dir;                      /* its folder */
  char *reference;                /* the reference's C file: dir/"reference" (reference.c); for a
                                     KernelBench-format task its PyTorch module (reference.py) */
  bool py;                        /* "python": the reference is a PyTorch `Model` (reference.py) */
  char *py_class;                 /* its class ("Model") */
  char *py_init[CL1_SHAPES_N];    /* the constructor's arguments per set, JSON text ("[64, 3]") */
  bool py_train;                  /* run in training mode, as KernelBench does (no .eval()) */
  char *py_scalars;               /* forward's non-tensor arguments, JSON [[position, value]] */
  char *id;                       /* "level1/19_ReLU": level folder + name */
  char *name;                     /* "19_ReLU" (KernelBench's file stem) */
  int level, number;
  char *description;
  int n_dims;
  char *dim_names[CL1_TASK_MAX_DIMS];
  bool has_set[CL1_SHAPES_N];
  int64_t dims[CL1_SHAPES_N][CL1_TASK_MAX_DIMS];
  char *shapes_note[CL1_SHAPES_N]; /* why a set was scaled down, if it was */
  int n_inputs, n_params, n_outputs;
  cl1_tensor_spec inputs[CL1_TASK_MAX_TENSORS], params[CL1_TASK_MAX_PARAMS],
      outputs[CL1_TASK_MAX_TENSORS];
  int n_attrs;
  char *attr_names[CL1_TASK_MAX_ATTRS];
  char *attr_exprs[CL1_TASK_MAX_ATTRS]; /* a number or a dim expression, as text */
  double atol, rtol;               /* "tolerance" */
  double set_atol[CL1_SHAPES_N], set_rtol[CL1_SHAPES_N]; /* with "tolerance_<set>" applied */
  char *flops, *bytes;            /* optional dim expressions (may be NULL) */
  char *notes;                    /* optional */
  char *degenerate;               /* optional audit note */
  char *variant_optout[CL1_VARIANT_N]; /* "verify_variants": why the task opts out of a variant,
                                         by cl1_variant; NULL where it does not */
} cl1_task;

/* Loads and validates PATH (a task.json or a folder holding one). Errors read
 * "PATH: FIELD: what is wrong", e.g. "suite/x/task.json: inputs[0].shape[1]: unknown dim 'M'". */
int cl1_task_load(const char *path, cl1_task **out, cl1_err *err);
void cl1_task_free(cl1_task *t);

/* Resolves a task id ("level1/19_ReLU", "19_ReLU", "level1/19", "1/19") or a path (a task folder,
 * relative or absolute, with or without a trailing slash, or a file named task.json) to its task
 * folder under suite_root. Writes the folder into out. Returns 0; 1 when nothing matches (err
 * says what was tried); -1 on other errors (ambiguous, too long). */
int cl1_task_find(const char *suite_root, const char *id_or_path, char *out, size_t n,
                  cl1_err *err);

/* A task as a user named it, found and loaded. */
typedef struct {
  cl1_task *task;
  char dir[4096];       /* its folder */
  bool in_suite;        /* dir is suite_root/<task->id>, so the id alone finds this task again */
} cl1_task_ref;
/* cl1_task_find, then cl1_task_load: the one resolver of every command's task argument.
 * Returns 0; 1 when nothing matches; -1 on other errors (ambiguous, an invalid task.json). */
int cl1_task_resolve(const char *suite_root, const char *arg, cl1_task_ref *ref, cl1_err *err);
void cl1_task_ref_release(cl1_task_ref *ref);
/* The suite folder: $CUDAL1_SUITE, else <exe dir>/../suite, else ./suite. */
const char *cl1_suite_root(void);

/* A concrete tensor at one shape set. */
typedef struct {
  const char *name;
  int dtype, ndim;
  int64_t shape[CL1_MAX_DIMS];
  int64_t numel;
  size_t bytes;
  int dist;              /* CL1_DIST_* (base/rng.h) */
  double a, b;           /* resolved distribution parameters */
  /* The extreme verification variant (cl1_tinst_variant): each element is, with probability
   * extreme_p, moved away from extreme_center by the factor extreme_scale; 0: no element is. */
  double extreme_p, extreme_scale, extreme_center;
} cl1_tinst;

/* A task at one shape set. Owns nothing but its arrays; the task must outlive it. */
typedef struct cl1_inst {
  const cl1_task *task;
  int set;
  int n_inputs, n_params, n_outputs, n_attrs;
  cl1_tinst inputs[CL1_TASK_MAX_TENSORS], params[CL1_TASK_MAX_PARAMS],
      outputs[CL1_TASK_MAX_TENSORS];
  cl1_attr attrs[CL1_TASK_MAX_ATTRS];
  double flops, bytes;   /* 0 when the task gives no formula */
  double atol, rtol;     /* the tolerance at this shape set */
  size_t in_bytes, par_bytes, out_bytes;
} cl1_inst;

int cl1_task_instance(const cl1_task *t, int set, cl1_inst *out, cl1_err *err);

/* For inputs, the scale s is the std of a normal and high - low of a uniform; the centre is a
 * normal's mean and the point of a uniform's interval nearest 0, so that a uniform's sign is
 * kept (U[0,1) stays non-negative: WIDE gives U[0, 100)). The input variants apply to float
 * inputs drawn from uniform or normal only (integer, bool, rademacher, bernoulli and the
 * row-softmax dists, whose rows are probabilities, never change); OFF_DEFAULT to float params
 * with a constant init only. */
#define CL1_VARIANT_OFFSET_SCALES 100.0
#define CL1_VARIANT_WIDE_FACTOR 100.0
#define CL1_VARIANT_EXTREME_P (1.0 / 256.0)   /* exact in the generators' 24-bit uniforms */
#define CL1_VARIANT_EXTREME_SCALE 1024.0      /* a power of two: see cl1_gen_value */

const char *cl1_variant_name(cl1_variant v);  /* "none", "off_default", "offset", "wide", "extreme" */
int cl1_variant_parse(const char *s);          /* a cl1_variant, or -1 if unknown */
/* One tensor of group `group` (0 inputs, 1 params; outputs never change) under variant v: *out
 * is *t with the variant's distribution and the function returns true, or *out is *t unchanged
 * and it returns false when the variant does not apply to this tensor (and for NONE). */
bool cl1_tinst_variant(const cl1_tinst *t, int group, cl1_variant v, cl1_tinst *out);
/* A whole instance under variant v (every input and param through cl1_tinst_variant; outputs,
 * attrs and tolerance unchanged); true when at least one tensor changed. The task's opt-outs are
 * not consulted here (the twin checks measure opted-out variants too): cl1_inst_variants says
 * which to verify with. *out may be `in`. */
bool cl1_inst_variant(const cl1_inst *in, cl1_variant v, cl1_inst *out);
/* Whether v changes at least one tensor of the instance (cl1_inst_variant's result, without the
 * copy); opt-outs are not consulted. */
bool cl1_inst_variant_applies(const cl1_inst *in, cl1_variant v);
/* The variants to verify this instance with: those, in enum order, that change at least one of
 * its tensors and that its task does not opt out of. Writes at most max, returns how many. */
int cl1_inst_variants(const cl1_inst *in, cl1_variant out[], int max);

/* Dim expressions: integers, dim names, + - * / (floor division) %, parentheses. */
int cl1_expr_eval(const char *expr, const cl1_task *t, int set, int64_t *out, cl1_err *err);

/* Tensor ids keep inputs and params of one call apart in the RNG's counter space. */
static inline uint32_t cl1_tensor_id_input(int i) { return 0x100u + (uint32_t)i; }
static inline uint32_t cl1_tensor_id_param(int i) { return 0x200u + (uint32_t)i; }

/* The ABI view of an instance tensor at `data`: shape and contiguous row-major strides. */
void cl1_tensor_of(cl1_tensor *t, const cl1_tinst *ti, void *data);

/* Fills dst (host memory, t->numel elements of t->dtype) from the task's generator. */
void cl1_gen_host(const cl1_tinst *t, void *dst, uint64_t seed, uint32_t tid);

/* Half and bfloat16 bits from float, round-to-nearest-even (NaN stays NaN, overflow -> inf):
 * the same results as CUDA's __float2half_rn / __float2bfloat16_rn. And back, exactly. */
uint16_t cl1_f16_from_f32(float f);
uint16_t cl1_bf16_from_f32(float f);
float cl1_f16_to_f32(uint16_t h);
float cl1_bf16_to_f32(uint16_t h);

/* Whether the task's `degenerate` note applies at shape set `set` (a note naming one set applies
 * to that set alone). */
bool cl1_task_degenerate_at(const cl1_task *t, int set);
#endif
