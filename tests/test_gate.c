/* test_gate.c — the static gate: source rules on small inline sources (each rule hit, the legit
 * look-alikes passing, the preprocessor/lexer tricks that would hide host asm refused), imports of
 * .so files built here with cc, and the symbol table for CUDA names. */
#include "harness.h"
#include "eval/gate.h"

/* Gate verdict of src: "" for pass, else the rule; why copied out when given. */
static const char *gate(const char *src, cl1_backend b, char *why) {
  static cl1_gate_verdict v;
  cl1_err err = {{0}};
  int rc = cl1_gate_source(src, strlen(src), b, &v, &err);
  assert_true(rc >= 0);
  if (why) snprintf(why, 512, "%s", v.why);
  return rc ? v.rule : "";
}
#define CU CL1_BACKEND_CUDA
#define HO CL1_BACKEND_HOST

static void test_asm_placement(void **s) {
  (void)s;
  char why[512];
  assert_string_equal(gate("__global__ void k(unsigned *o) {\n"
                           "  unsigned t; asm volatile(\"mov.u32 %0, %%tid.x;\" : \"=r\"(t));\n"
                           "  o[t] = t;\n}\n", CU, NULL), "");
  assert_string_equal(gate("#include <cuda_runtime.h>\nstatic __device__ __forceinline__ float f(float x)"
                           " { float y; asm(\"mov.f32 %0, %1;\" : \"=f\"(y) : \"f\"(x)); return y; }\n",
                           CU, NULL), "");
  assert_string_equal(gate("int foo(void) {\n  int x = 1;\n  asm(\"nop\");\n  return x;\n}\n", CU, why),
                      "host_asm");
  assert_non_null(strstr(why, "line 3"));
  assert_non_null(strstr(why, "host function 'foo'"));
  assert_string_equal(gate("\n__asm__(\".text\");\n", CU, why), "host_asm");
  assert_non_null(strstr(why, "line 2: inline asm at file scope"));
  assert_string_equal(gate("__host__ __device__ void hd() { asm(\"nop\"); }\n", CU, why), "host_asm");
  assert_non_null(strstr(why, "host too"));
  /* namespaces, extern "C", classes, object-like macros, templates */
  assert_string_equal(gate("namespace n { namespace m {\n__global__ void k() { asm(\"exit;\"); }\n} }\n",
                           CU, NULL), "");
  assert_string_equal(gate("extern \"C\" {\n__global__ void k() { asm(\"exit;\"); }\n}\n", CU, NULL), "");
  assert_string_equal(gate("struct S { int a; __device__ int f() const { int r; asm(\"mov.u32 %0, 1;\""
                           " : \"=r\"(r)); return r; } };\n", CU, NULL), "");
  assert_string_equal(gate("#define DEV __device__ __forceinline__\nDEV void f() { asm(\"nop;\"); }\n",
                           CU, NULL), "");
  assert_string_equal(gate("template <typename T, int N = 4> __global__ void k(T *x) "
                           "{ asm(\"nop;\"); }\n", CU, NULL), "");
  assert_string_equal(gate("#define PTX_NOP asm volatile(\"nop;\")\n"
                           "__global__ void k() { PTX_NOP; }\n", CU, NULL), "");
  assert_string_equal(gate("#if __CUDA_ARCH__ >= 800\n__global__ void k() { asm(\"nop;\"); }\n#endif\n",
                           CU, NULL), "");
  assert_string_equal(gate("#define PTX_NOP asm volatile(\"nop;\")\n"
                           "void h() { PTX_NOP; }\n", CU, why), "host_asm");
  assert_non_null(strstr(why, "line 2"));
  /* a host lambda-ish block inside a host function stays host */
  assert_string_equal(gate("void h() { if (1) { asm(\"nop\"); } }\n", CU, NULL), "host_asm");
}

static void test_asm_in_literals_and_comments(void **s) {
  (void)s;
  const char *src = "// asm(\"nop\") in a comment\n/* __asm__ too */\n"
                    "static const char *m = \"asm(\\\"nop\\\")\"; char c = 'a';\n"
                    "int f(void) { return m[0] + c; }\n";
  assert_string_equal(gate(src, CU, NULL), "");
  assert_string_equal(gate(src, HO, NULL), "");
  assert_string_equal(gate("const char *r = R\"x(asm(\"nop\"))x\";\n", CU, NULL), "");
  assert_string_equal(gate("int f(void) { __asm__(\"nop\"); return 0; }\n", HO, NULL), "host_asm");
  assert_string_equal(gate("int asmx, xasm; int f(void) { return asmx + xasm; }\n", HO, NULL), "");
}

/* tricks that would make the gate think host code is device code */
static void test_asm_evasions(void **s) {
  (void)s;
  /* digraph braces close the kernel early */
  assert_string_equal(gate("__global__ void k() <% %> void h() { asm(\"nop\"); }\n", CU, NULL),
                      "host_asm");
  /* a macro that closes one function and opens another */
  assert_string_equal(gate("#define SWITCH } void h() {\n__global__ void k() { SWITCH asm(\"nop\"); }\n",
                           CU, NULL), "host_asm");
  /* #if groups that unbalance braces */
  assert_string_equal(gate("__global__ void k() {\n#if 0\n{\n#endif\n}\nvoid h() { asm(\"nop\"); }\n"
                           "#if 0\n}\n#endif\n", CU, NULL), "host_asm");
  assert_string_equal(gate("__global__ void k() {\n#ifndef __CUDA_ARCH__\n}\nvoid h() {\n#endif\n"
                           "asm(\"nop\"); }\n", CU, NULL), "host_asm");
  /* __device__ that exists only in a dead #if branch, or redefined away */
  assert_string_equal(gate("#if 0\n__global__\n#endif\nvoid h() { asm(\"nop\"); }\n", CU, NULL),
                      "host_asm");
  assert_string_equal(gate("__host__\n#if 0\nstruct Z { }\n#endif\n__device__ void f() { asm(\"nop\"); }\n",
                           CU, NULL), "host_asm");
  assert_string_equal(gate("#define __device__\n__device__ void h() { asm(\"nop\"); }\n", CU, NULL),
                      "host_asm");
  /* a host declaration makes nvcc treat the device definition as __host__ __device__ */
  assert_string_equal(gate("void h();\n__device__ void h() { asm(\"nop\"); }\n", CU, NULL), "host_asm");
  /* a macro the gate cannot expand in the declaration */
  assert_string_equal(gate("__device__ CUB_RUNTIME_FUNCTION void h() { asm(\"nop\"); }\n", CU, NULL),
                      "host_asm");
  assert_string_equal(gate("#define HD(x) __host__ x\nHD(__device__) void h() { asm(\"nop\"); }\n", CU,
                           NULL), "host_asm");
  /* C++14 digit separators: read as a char literal they would hide the asm */
  assert_string_equal(gate("int a = 1'000; void h() { asm(\"nop\"); } char c = 'y';\n", CU, NULL),
                      "host_asm");
  /* a trigraph backslash continues a // comment for a C compiler, or not: both readings count */
  assert_string_equal(gate("int f(void) { return 0; } // ?\?/\nint g(void) { __asm__(\"\"); return 0; }\n",
                           HO, NULL), "host_asm");
  /* a raw string holding a quote and asm text is a string in C++ */
  assert_string_equal(gate("const char *r = R\"d(\" asm(\")d\";\n", CU, NULL), "");
  /* token pasting can build `asm` from pieces */
  assert_string_equal(gate("#define CAT(a, b) a##b\nvoid h() { CAT(__as, m__)(\"nop\"); }\n", CU, NULL),
                      "token_paste");
  assert_string_equal(gate("#define CAT(a, b) a %:%: b\n", HO, NULL), "token_paste");
}

static void test_constructor_include_size(void **s) {
  (void)s;
  char why[512];
  assert_string_equal(gate("__attribute__((constructor)) static void init(void) {}\n", HO, why),
                      "constructor");
  assert_non_null(strstr(why, "line 1"));
  assert_string_equal(gate("static void fini(void) __attribute__((__destructor__));\n", HO, NULL),
                      "constructor");
  assert_string_equal(gate("[[gnu::constructor]] static void init() {}\n", CU, NULL), "constructor");
  assert_string_equal(gate("__attribute__((section(\".init_array\"))) void (*p)(void) = 0;\n", HO, NULL),
                      "constructor");
  assert_string_equal(gate("struct S { S() {} }; static S s __attribute__((init_priority(101)));\n", CU,
                           NULL), "constructor");
  assert_string_equal(gate("#pragma init(f)\nvoid f(void) {}\n", HO, NULL), "constructor");
  assert_string_equal(gate("_Pragma(\"fini(f)\") void f(void) {}\n", HO, NULL), "constructor");
  /* the word inside a string or comment is fine */
  assert_string_equal(gate("// runs no constructor\nconst char *s = \"destructor\";\n", HO, NULL), "");
  assert_string_equal(gate("#include <cuda_runtime.h>\n#include <cudal1/solution.h>\n"
                           "#include \"local.h\"\n", CU, NULL), "");
  assert_string_equal(gate("#include \"/etc/passwd\"\n", HO, why), "include");
  assert_non_null(strstr(why, "/etc/passwd"));
  assert_string_equal(gate("  #  include </etc/shadow>\n", HO, NULL), "include");
  assert_string_equal(gate("#include \"../secret.h\"\n", CU, NULL), "include");
  assert_string_equal(gate("#include_next <../x.h>\n", CU, NULL), "include");
  assert_string_equal(gate("#define P \"/etc/passwd\"\n#include P\n", HO, NULL), "include");
  assert_string_equal(gate("%:include \"/etc/hosts\"\n", HO, NULL), "include");
  size_t n = CL1_GATE_MAX_SOURCE + 1;
  char *big = malloc(n + 1);
  assert_non_null(big);
  memset(big, ' ', n);
  big[n] = 0;
  cl1_gate_verdict v;
  cl1_err err;
  assert_int_equal(cl1_gate_source(big, n, HO, &v, &err), 1);
  assert_string_equal(v.rule, "size");
  free(big);
}

/* Builds a .so from C source with cc; returns its path. */
static const char *build_so(const char *name, const char *src) {
  static char so[8][512];
  static int k;
  char *p = so[k++ % 8], c[512], cmd[2048], out[4096];
  const char *dir = th_tmpdir();
  assert_non_null(dir);
  snprintf(c, sizeof c, "%s/%s.c", dir, name);
  snprintf(p, 512, "%s/%s.so", dir, name);
  assert_int_equal(th_write(c, src), 0);
  snprintf(cmd, sizeof cmd, "cc -std=c11 -O2 -shared -fPIC -o %s %s -lm 2>&1", p, c);
  int rc = th_run(cmd, out, sizeof out);
  if (rc) fprintf(stderr, "%s\n", out);
  assert_int_equal(rc, 0);
  return p;
}

static void test_symbols_of_built_objects(void **s) {
  (void)s;
  cl1_gate_verdict v;
  cl1_err err;
  const char *bad = build_so("uses_fopen", "#include <stdio.h>\n"
                                           "int cl1_forward(const void *c) { FILE *f = fopen(\"/etc/hostname\", \"r\");"
                                           " (void)c; return f != 0; }\n");
  assert_int_equal(cl1_gate_symbols(bad, HO, &v, &err), 1);
  assert_string_equal(v.rule, "symbol");
  assert_non_null(strstr(v.why, "'fopen'"));
  assert_non_null(strstr(v.why, "files"));
  const char *ok = build_so("uses_math", "#include <math.h>\n#include <string.h>\n"
                                         "void cl1_forward(float *y, const float *x, int n) {\n"
                                         "  float t[64]; memcpy(t, x, sizeof t);\n"
                                         "  for (int i = 0; i < n; i++) y[i] = expf(t[i % 64]) + y[i];\n}\n");
  assert_int_equal(cl1_gate_symbols(ok, HO, &v, &err), 0);
  const char *thr = build_so("uses_thread", "#include <pthread.h>\nstatic void *f(void *a) { return a; }\n"
                                            "int cl1_forward(void) { pthread_t t; return pthread_create(&t, 0, f, 0); }\n");
  assert_int_equal(cl1_gate_symbols(thr, HO, &v, &err), 1);
  assert_non_null(strstr(v.why, "'pthread_create'"));
  assert_non_null(strstr(v.why, "threads"));
  /* an unreadable path is an infrastructure error, not a verdict */
  assert_int_equal(cl1_gate_symbols("/nonexistent/x.so", HO, &v, &err), -1);
  assert_non_null(strstr(err.msg, "/nonexistent/x.so"));
}

/* Exports: a solution's own names pass; libc's, libm's or CUDA's are an interposition attempt. */
static void test_interposed_exports(void **s) {
  (void)s;
  cl1_gate_verdict v;
  cl1_err err;
  const char *clk = build_so("defines_clock",
                             "#define _POSIX_C_SOURCE 200809L\n#include <time.h>\n"
                             "int clock_gettime(clockid_t id, struct timespec *t) {\n"
                             "  (void)id; t->tv_sec = 1; t->tv_nsec = 0; return 0; }\n"
                             "int cl1_forward(const void *c) { (void)c; return 0; }\n");
  assert_int_equal(cl1_gate_symbols(clk, HO, &v, &err), 1);
  assert_string_equal(v.rule, "interpose");
  assert_non_null(strstr(v.why, "'clock_gettime'"));
  const char *ev = build_so("defines_event_time",
                            "int cudaEventElapsedTime(float *ms, void *a, void *b) {\n"
                            "  (void)a; (void)b; *ms = 0.001f; return 0; }\n"
                            "int cl1_forward(const void *c) { (void)c; return 0; }\n");
  assert_int_equal(cl1_gate_symbols(ev, CU, &v, &err), 1);
  assert_string_equal(v.rule, "interpose");
  assert_non_null(strstr(v.why, "'cudaEventElapsedTime'"));
  const char *drv = build_so("defines_driver_sync", "int cuCtxSynchronize(void) { return 0; }\n"
                                                    "int cl1_forward(void) { return 0; }\n");
  assert_int_equal(cl1_gate_symbols(drv, CU, &v, &err), 1);
  assert_string_equal(v.rule, "interpose");
  const char *mal = build_so("defines_malloc", "#include <stddef.h>\n"
                                               "static char pool[1 << 16];\n"
                                               "void *malloc(size_t n) { return n <= sizeof pool ? pool : 0; }\n"
                                               "int cl1_forward(void) { return 0; }\n");
  assert_int_equal(cl1_gate_symbols(mal, HO, &v, &err), 1);
  assert_string_equal(v.rule, "interpose");
  assert_non_null(strstr(v.why, "'malloc'"));
  /* helpers with external linkage under ordinary names (even ones that start like a libc family
     a glob denies on import: send*, wait*, clock*) are the solution's own */
  const char *own = build_so("defines_helpers",
                             "long numel(const long *s, int n) { long k = 1; for (int i = 0; i < n; i++) k *= s[i]; return k; }\n"
                             "int send_rows(int r) { return r + 1; }\n"
                             "int wait_tiles(int t) { return t * 2; }\n"
                             "int clockwise(int t) { return -t; }\n"
                             "int cudal1_helper(int t) { return t; }\n"
                             "int cl1_forward(const void *c) { (void)c; return send_rows(1) + wait_tiles(2) + clockwise(3) + cudal1_helper(4); }\n"
                             "int cl1_setup(const void *c, void **s) { (void)c; *s = 0; return 0; }\n");
  assert_int_equal(cl1_gate_symbols(own, HO, &v, &err), 0);
  assert_int_equal(cl1_gate_symbols(own, CU, &v, &err), 0); /* cudal1_helper is no CUDA name */
}

/* The CUDA runtime a kernel needs is allowed; resetting the device, changing its limits or
 * sharing its memory with other processes is not. */
static void test_symbols_cuda_runtime_allowed_device_control_denied(void **s) {
  (void)s;
  assert_true(cl1_gate_symbol_allowed("cudaMalloc", CU));
  assert_true(cl1_gate_symbol_allowed("cudaLaunchKernel", CU));
  assert_true(cl1_gate_symbol_allowed("__cudaRegisterFatBinary", CU));
  assert_true(cl1_gate_symbol_allowed("__cudaPushCallConfiguration", CU));
  assert_false(cl1_gate_symbol_allowed("cudaDeviceReset", CU));
  /* glibc 2.38+ renames strtol/atoi in C++ builds (tests/escapes/cuda/pinned.cu was rejected) */
  assert_true(cl1_gate_symbol_allowed("__isoc23_strtol", CU));
  assert_true(cl1_gate_symbol_allowed("__isoc23_strtoull", HO));
  assert_false(cl1_gate_symbol_allowed("cudaStreamSetAttribute", CU));
  assert_false(cl1_gate_symbol_allowed("cudaDeviceSetLimit", CU));
  assert_false(cl1_gate_symbol_allowed("cudaIpcGetMemHandle", CU));
}

/* Work run on the host from the GPU stream is denied under every name it has. */
static void test_symbols_host_work_denied_under_every_name(void **s) {
  (void)s;
  /* issue 18: a denied runtime call under its per-thread-stream names, the graph host-node
     APIs (also through the generic node API) and the driver API's equivalents */
  assert_false(cl1_gate_symbol_allowed("cudaLaunchHostFunc_ptsz", CU));
  assert_false(cl1_gate_symbol_allowed("cudaLaunchHostFunc_ptds", CU));
  assert_false(cl1_gate_symbol_allowed("cudaStreamAddCallback_ptsz", CU));
  assert_false(cl1_gate_symbol_allowed("cudaStreamSetAttribute_ptsz", CU));
  assert_false(cl1_gate_symbol_allowed("cudaGraphAddHostNode", CU));
  assert_false(cl1_gate_symbol_allowed("cudaGraphExecHostNodeSetParams", CU));
  assert_false(cl1_gate_symbol_allowed("cudaGraphAddNode", CU));
  assert_false(cl1_gate_symbol_allowed("cudaGraphAddNode_v2", CU));
  assert_false(cl1_gate_symbol_allowed("cudaGraphNodeSetParams", CU));
  assert_false(cl1_gate_symbol_allowed("cudaGraphExecNodeSetParams", CU));
  assert_false(cl1_gate_symbol_allowed("cuLaunchHostFunc", CU));
  assert_false(cl1_gate_symbol_allowed("cuLaunchHostFunc_ptsz", CU));
  assert_false(cl1_gate_symbol_allowed("cuGraphAddHostNode", CU));
  assert_false(cl1_gate_symbol_allowed("cuGraphAddNode_v2", CU));
  assert_false(cl1_gate_symbol_allowed("cuGetProcAddress_v2", CU));
  assert_string_equal(cl1_gate_symbol_category("cudaLaunchHostFunc_ptsz", CU), "host work");
  /* the ordinary per-thread-stream names stay allowed */
  assert_true(cl1_gate_symbol_allowed("cudaMemcpyAsync_ptsz", CU));
  assert_true(cl1_gate_symbol_allowed("cudaLaunchKernel_ptsz", CU));
  assert_true(cl1_gate_symbol_allowed("cudaGraphLaunch_ptsz", CU));
  assert_true(cl1_gate_symbol_allowed("cudaGraphInstantiate", CU));
  assert_true(cl1_gate_symbol_allowed("cudaGraphExecKernelNodeSetParams", CU)); /* legit l3_1 */
  assert_true(cl1_gate_symbol_allowed("cudaGraphKernelNodeSetParams", CU));
  assert_false(cl1_gate_symbol_allowed("cudaLaunchHostFunc", CU));
  assert_false(cl1_gate_symbol_allowed("cudaStreamAddCallback", CU));
  assert_false(cl1_gate_symbol_allowed("cudaGetDriverEntryPoint", CU));
}

/* cuBLAS, cuBLASLt and cuDNN are CUDA solutions' alone; a host solution gets no CUDA at all. */
static void test_symbols_cuda_libraries_on_the_cuda_backend_only(void **s) {
  (void)s;
  assert_true(cl1_gate_symbol_allowed("cublasSgemm_v2", CU));
  assert_true(cl1_gate_symbol_allowed("cublasLtMatmul", CU));
  assert_true(cl1_gate_symbol_allowed("cudnnConvolutionForward", CU));
  assert_false(cl1_gate_symbol_allowed("cudaMalloc", HO));
  assert_false(cl1_gate_symbol_allowed("cublasSgemm_v2", HO));
}

/* The C++ runtime's allocation and errors, libc's math and memory functions and the op library
 * are allowed; threads, exits, dynamic symbols, sockets, clocks, the environment, page
 * protections, non-local jumps and any name not on the list are not. */
static void test_symbols_runtime_math_and_ops_allowed_system_services_denied(void **s) {
  (void)s;
  assert_false(cl1_gate_symbol_allowed(
      "_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE", CU));
  assert_true(cl1_gate_symbol_allowed("_Znwm", CU));
  assert_true(cl1_gate_symbol_allowed("_ZdlPvm", CU));
  assert_true(cl1_gate_symbol_allowed("_ZSt20__throw_length_errorPKc", CU));
  assert_true(cl1_gate_symbol_allowed("__cxa_atexit", HO));
  assert_true(cl1_gate_symbol_allowed("cl1_op_relu", HO));
  assert_true(cl1_gate_symbol_allowed("cl1_op_matmul", CU));
  assert_true(cl1_gate_symbol_allowed("expf", HO));
  assert_true(cl1_gate_symbol_allowed("sqrt", HO));
  assert_true(cl1_gate_symbol_allowed("tanhl", HO));
  assert_false(cl1_gate_symbol_allowed("expx", HO));
  assert_true(cl1_gate_symbol_allowed("memcpy", HO));
  assert_true(cl1_gate_symbol_allowed("__printf_chk", HO));
  assert_false(cl1_gate_symbol_allowed("exit", HO));
  assert_false(cl1_gate_symbol_allowed("dlsym", HO));
  assert_false(cl1_gate_symbol_allowed("socket", CU));
  assert_false(cl1_gate_symbol_allowed("clock_gettime", CU));
  assert_false(cl1_gate_symbol_allowed("getenv", CU));
  assert_false(cl1_gate_symbol_allowed("mprotect", CU));
  assert_false(cl1_gate_symbol_allowed("_setjmp", CU));
  assert_false(cl1_gate_symbol_allowed("some_unknown_function", CU));
  assert_false(cl1_gate_symbol_allowed("", CU));
}

/* A denied symbol is reported with the category of what it would reach. */
static void test_denied_symbols_name_their_category(void **s) {
  (void)s;
  assert_string_equal(cl1_gate_symbol_category("fopen", HO), "files");
  assert_string_equal(cl1_gate_symbol_category("pthread_create", CU), "threads");
  assert_string_equal(cl1_gate_symbol_category("dlopen", CU), "dynamic loading");
  assert_string_equal(cl1_gate_symbol_category("cudaDeviceReset", CU), "device reset/limits");
  assert_string_equal(cl1_gate_symbol_category("some_unknown_function", CU), "");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_asm_placement),
      cmocka_unit_test(test_asm_in_literals_and_comments),
      cmocka_unit_test(test_asm_evasions),
      cmocka_unit_test(test_constructor_include_size),
      cmocka_unit_test(test_symbols_of_built_objects),
      cmocka_unit_test(test_interposed_exports),
      cmocka_unit_test(test_symbols_cuda_runtime_allowed_device_control_denied),
      cmocka_unit_test(test_symbols_host_work_denied_under_every_name),
      cmocka_unit_test(test_symbols_cuda_libraries_on_the_cuda_backend_only),
      cmocka_unit_test(test_symbols_runtime_math_and_ops_allowed_system_services_denied),
      cmocka_unit_test(test_denied_symbols_name_their_category),
  };
  return cmocka_run_group_tests_name("gate", tests, NULL, NULL);
}
