/* backend.h — the two device backends. A solution for `host` is C (compiled by cc, runs on the
 * CPU: CI tests the whole pipeline with it); for `cuda` it is CUDA C++ (nvcc, runs on the GPU). */
#ifndef CL1_BACKEND_H
#define CL1_BACKEND_H
typedef enum { CL1_BACKEND_HOST = 0, CL1_BACKEND_CUDA = 1 } cl1_backend;
static inline const char *cl1_backend_name(cl1_backend b) { return b == CL1_BACKEND_CUDA ? "cuda" : "host"; }
#endif
