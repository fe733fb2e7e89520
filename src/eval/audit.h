/* audit.h — `cudal1 suite audit`: finds tasks a candidate could pass without computing them
 * (KernelBench #165: outputs so small that zeros pass the tolerance, outputs that do not depend
 * on the inputs, constant outputs). Runs the trusted reference in this process on two input
 * seeds with the same params and tests what an all-zero, a cached and a constant-fill candidate
 * would score. */
#ifndef CL1_AUDIT_H
#define CL1_AUDIT_H
#include <stdbool.h>
#include "../base/err.h"

#define CL1_AUDIT_MAX_OUT 8

typedef struct {
  char name[64];
  bool zero_passes;       /* an all-zero output is within tolerance everywhere */
  bool insensitive;       /* the outputs for input seed 1 pass as the outputs for seed 2 */
  bool constant;          /* filling with the mean passes */
  double zero_share;      /* share of elements an all-zero output gets within tolerance */
  double max_abs;         /* max |y| */
} cl1_audit_out;

typedef struct {
  int n_outputs;
  cl1_audit_out out[CL1_AUDIT_MAX_OUT];
  bool degenerate;        /* any output flagged */
  char note[1024];        /* one sentence: what a lazy candidate could do, and why */
} cl1_audit_result;

/* Audits task (id or folder) at shapes on backend "host" or "cuda". 0 on success (the result
 * says whether the task is degenerate), -1 with err on failure. */
int cl1_audit_task(const char *task, const char *shapes, const char *backend, cl1_audit_result *r,
                   cl1_err *err);
#endif
