/* doctor_int.h — what the doctor's files share (doctor.c: the run, the verdict and the output;
 * doctor_host.c, doctor_cuda.c, doctor_kernel.c, doctor_server.c: the probes). Private to them. */
#ifndef CL1_DOCTOR_INT_H
#define CL1_DOCTOR_INT_H
#include <stddef.h>
#include "doctor.h"

/* Display groups, in output order. */
enum { CL1_DOC_SEC_GPU, CL1_DOC_SEC_BUILD, CL1_DOC_SEC_SANDBOX, CL1_DOC_SEC_MEMORY,
       CL1_DOC_SEC_PYTHON, CL1_DOC_SEC_SERVER };

/* Appends an item in r->section (value from fmt; fix NULL or "" for none); NULL when full. */
cl1_doctor_item *cl1_doctor_add(cl1_doctor_report *r, const char *name, const char *label,
                                cl1_doctor_status st, cl1_doctor_need need, const char *fix,
                                const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* The probes, each adding its items to r. */
void cl1_doctor_probe_kernel(cl1_doctor_report *r);     /* seccomp, no_new_privs, Landlock, ... */
void cl1_doctor_probe_cuda(cl1_doctor_report *r);       /* GPU, driver, nvcc, arch, libraries */
void cl1_doctor_probe_build(cl1_doctor_report *r);      /* cc, op library, worker, suite, cache */
void cl1_doctor_probe_memory(cl1_doctor_report *r);     /* LLC, flush, budgets, RAM, RLIMIT_AS */
void cl1_doctor_probe_python(cl1_doctor_report *r, int timeout_s);
void cl1_doctor_probe_server(cl1_doctor_report *r, const char *base_url, const char *model,
                             const char *api_key, double timeout_s);
#endif
