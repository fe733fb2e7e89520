/* pysol_rt.c — libcl1py_rt.so: the C side of python/cudal1/pysol.py, loaded by libcl1py.so once
 * libpython is in the global scope (pysol.c says why). Built against CPython's stable ABI
 * (Py_LIMITED_API 3.10), so one build runs under the python3 of whichever machine evaluates.
 * The worker is single-threaded: the interpreter's lock is held throughout. Each entry point
 * turns the ABI's tensors into (address, dtype, shape) tuples and calls pysol.py, which answers
 * "" or an error text. */
#define Py_LIMITED_API 0x030a0000
#include <Python.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cudal1/solution.h"

static PyObject *g_mod;
static char g_report[4096];

static const char *dtype_name(int d) {
  static const char *names[] = {"f32", "f16", "bf16", "f64", "i32", "i64", "u8", "bool"};
  return d >= 0 && d < 8 ? names[d] : "?";
}

/* The error pysol.py answered, or the Python exception, to stderr and msg; -1. */
static int failed(PyObject *res, const char *what, char *msg, size_t n) {
  if (!res) {
    PyErr_Print();
    snprintf(msg, n, "%s: the Python runtime raised (see the worker's stderr)", what);
  } else {
    const char *s = PyUnicode_AsUTF8AndSize(res, NULL);
    snprintf(msg, n, "%s", s ? s : what);
    if (!s) PyErr_Clear();
  }
  Py_XDECREF(res);
  return -1;
}

/* Calls pysol.<fn>(args...) (args stolen); 0 when it answered "". */
static int call(const char *fn, PyObject *args, char *msg, size_t n) {
  PyObject *f = g_mod ? PyObject_GetAttrString(g_mod, fn) : NULL;
  PyObject *res = f && args ? PyObject_CallObject(f, args) : NULL;
  Py_XDECREF(f);
  Py_XDECREF(args);
  if (!res || !PyUnicode_Check(res)) return failed(res, fn, msg, n);
  Py_ssize_t len = 0;
  if (!PyUnicode_AsUTF8AndSize(res, &len)) return failed(NULL, fn, msg, n);
  if (len) return failed(res, fn, msg, n);
  Py_DECREF(res);
  return 0;
}

static PyObject *tensors(const cl1_tensor *t, int n) {
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++) {
    PyObject *shape = PyTuple_New(t[i].ndim);
    for (int d = 0; shape && d < t[i].ndim; d++)
      PyTuple_SetItem(shape, d, PyLong_FromLongLong(t[i].shape[d]));
    PyObject *e = shape ? Py_BuildValue("(NsN)", PyLong_FromVoidPtr(t[i].data),
                                        dtype_name(t[i].dtype), shape)
                        : NULL;
    if (!e) {
      Py_DECREF(l);
      return NULL;
    }
    PyList_SetItem(l, i, e);
  }
  return l;
}

/* The interpreter, with $CUDAL1_PYHOME and $CUDAL1_PYPATH (the judge's python3: its prefix and
 * sys.path plus cudal1's package) so it finds the same torch; then pysol.preload(). */
int cl1_pyrt_init(void) {
  if (g_mod) return 0;
  const char *home = getenv("CUDAL1_PYHOME"), *path = getenv("CUDAL1_PYPATH");
  if (home && home[0]) setenv("PYTHONHOME", home, 1);
  if (path && path[0]) setenv("PYTHONPATH", path, 1);
  setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
  setenv("OMP_NUM_THREADS", "1", 1);
  Py_InitializeEx(0);
  g_mod = PyImport_ImportModule("cudal1.pysol");
  char msg[512];
  if (!g_mod) {
    PyErr_Print();
    fprintf(stderr, "libcl1py: cannot import cudal1.pysol (PYTHONPATH=%s)\n", path ? path : "");
    return -1;
  }
  if (call("preload", PyTuple_New(0), msg, sizeof msg)) {
    fprintf(stderr, "libcl1py: %s\n", msg);
    return -1;
  }
  return 0;
}

/* pysol.prepare(spec): before the sandbox, what the module will need that it may not do itself
 * there (Triton's tools run once, its cache found); never the candidate's code. */
int cl1_pyrt_prepare(const char *spec, char *msg, size_t n) {
  return call("prepare", Py_BuildValue("(s)", spec), msg, n);
}

int cl1_pyrt_load(const char *spec, char *msg, size_t n) {
  return call("load", Py_BuildValue("(s)", spec), msg, n);
}

int cl1_pyrt_params(uint64_t seed, const char *variant) {
  char msg[256];
  return call("params", Py_BuildValue("(Ks)", (unsigned long long)seed, variant ? variant : ""),
              msg, sizeof msg) ? -1 : 0;
}

int cl1_pyrt_setup(const cl1_call *c, void **state) {
  char msg[1024];
  *state = NULL;
  PyObject *p = tensors(c->params, c->n_params);
  if (!p) return failed(NULL, "setup", msg, sizeof msg);
  return call("setup", Py_BuildValue("(NN)", p, PyLong_FromVoidPtr(c->stream)), msg, sizeof msg)
             ? 1 : 0;
}

int cl1_pyrt_forward(const cl1_call *c) {
  char msg[1024];
  PyObject *in = tensors(c->inputs, c->n_inputs), *out = tensors(c->outputs, c->n_outputs);
  if (!in || !out) {
    Py_XDECREF(in), Py_XDECREF(out);
    return failed(NULL, "forward", msg, sizeof msg), 1;
  }
  return call("forward", Py_BuildValue("(NNN)", in, out, PyLong_FromVoidPtr(c->stream)), msg,
              sizeof msg) ? 1 : 0;
}

void cl1_pyrt_teardown(void *state) {
  (void)state;
  char msg[256];
  call("teardown", PyTuple_New(0), msg, sizeof msg);
}

/* pysol.report()'s JSON (informational: numerics flags changed, extension calls), or NULL. */
const char *cl1_pyrt_report(void) {
  PyObject *f = g_mod ? PyObject_GetAttrString(g_mod, "report") : NULL;
  PyObject *res = f ? PyObject_CallObject(f, NULL) : NULL;
  Py_XDECREF(f);
  const char *s = res && PyUnicode_Check(res) ? PyUnicode_AsUTF8AndSize(res, NULL) : NULL;
  if (!s) PyErr_Clear();
  snprintf(g_report, sizeof g_report, "%s", s ? s : "");
  Py_XDECREF(res);
  return g_report[0] ? g_report : NULL;
}
