/* ops_host.h — what the host op-library tests (tests/test_ops*.c) share: build/libcl1ops_host.so
 * loaded with dlopen (the test binaries do not link it), a symbol from it that fails the test when
 * absent (OP(cl1_op_x): typed as the header declares it, so a signature change breaks the build
 * instead of the call), reproducible uniform values (xorshift64, seeded per file: define OPS_SEED before the
 * include), NaN-poisoned output buffers, and the elementwise closeness check. */
#ifndef CL1_TEST_OPS_HOST_H
#define CL1_TEST_OPS_HOST_H
#include "harness.h"
#include <dlfcn.h>
#include <math.h>

static void *g_lib;

static inline int setup_lib(void **state) {
  (void)state;
  g_lib = th_dlopen_build("libcl1ops_host.so");
  return g_lib ? 0 : -1;
}

static inline void *sym(const char *name) {
  void *p = dlsym(g_lib, name);
  if (!p) fail_msg("%s: %s", name, dlerror());
  return p;
}

/* The op `name` from the library, with the type ops.h gives it. */
#define OP(name) ((__typeof__(&name))sym(#name))

#ifdef OPS_SEED
static uint64_t g_rng = OPS_SEED;
static inline float frand(void) {  // uniform in [-1, 1)
  g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
  return (float)((g_rng >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0);
}
#endif

/* n floats set to NaN, so that an element an op leaves unwritten fails close_all(). */
static inline float *poisoned(int64_t n) {
  float *p = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
  assert_non_null(p);
  for (int64_t i = 0; i < n; i++) p[i] = NAN;
  return p;
}

/* |got - want| <= atol + rtol |want| for every element, NaN and inf where want has them; names
 * the first bad one. */
static inline void close_all(const char *what, const float *got, const double *want, int64_t n,
                             double atol, double rtol) {
  for (int64_t i = 0; i < n; i++) {
    double g = got[i], w = want[i];
    if (isnan(w) || isinf(w)) {
      if (isnan(w) ? !isnan(g) : g != w)
        fail_msg("%s: element %lld: got %.9g want %.9g", what, (long long)i, g, w);
      continue;
    }
    if (!(fabs(g - w) <= atol + rtol * fabs(w)))
      fail_msg("%s: element %lld: got %.9g want %.9g", what, (long long)i, g, w);
  }
}

#endif
