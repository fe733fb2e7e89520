/* npy.h — NumPy .npy files (format version 1.0), for `cudal1 suite export` and the twin checks. */
#ifndef CL1_NPY_H
#define CL1_NPY_H
#include <stddef.h>
#include <stdint.h>
#include "err.h"

/* Writes a C-order little-endian array; descr is the NumPy type string ("<f4", "<i8", "|b1"). */
int cl1_npy_write(const char *path, const char *descr, const int64_t *shape, int ndim,
                  const void *data, size_t bytes, cl1_err *err);
#endif
