/* pytask.h — KernelBench-format problems as tasks: `cudal1 task import PROBLEM.py DIR` and the
 * folder `cudal1 eval --task PROBLEM.py` imports into. python/cudal1/kbtask.py does the work (it
 * runs the problem once per shape set), confined like a build (pybuild.h): the problem's code
 * writes only into DIR. The result is validated as any task.json is. */
#ifndef CL1_PYTASK_H
#define CL1_PYTASK_H
#include <stddef.h>
#include "../base/err.h"

/* Imports problem into dir (created). extra: kbtask.py's options (--set test:batch=2, --level 2,
 * --name, --number, --atol, --rtol), n_extra of them. 0; 1 the problem cannot become a task (err:
 * the problem's file and why); -1 the harness's failure (err). */
int cl1_pytask_import(const char *problem, const char *dir, char *const *extra, int n_extra,
                      cl1_err *err);

/* The folder a problem is imported into by content (<cache>/kbtasks/<sha256 of the file>),
 * importing it unless already there. 0 with out set; 1 / -1 as cl1_pytask_import. */
int cl1_pytask_cached(const char *problem, const char *cache_dir, char *out, size_t n,
                      cl1_err *err);
#endif
