/* gate.h — static checks before and after compiling a candidate (evaluation.md, stage 1):
 * source rules (no host inline asm, no constructor/destructor/section attributes, no absolute or
 * parent-relative #include, size limit) and the built .so's undefined dynamic symbols against the
 * allowlist (abi.md: CUDA runtime minus reset/limit/persisting-L2/IPC, cuBLAS/cuBLASLt, cuDNN,
 * cl1_op_*, libc memory/math, the C++ runtime's allocation/exception glue). */
#ifndef CL1_GATE_H
#define CL1_GATE_H
#include <stdbool.h>
#include <stddef.h>
#include "../worker/backend.h"
#include "../base/err.h"

#define CL1_GATE_MAX_SOURCE (256 * 1024)

/* Rules: "size" (over CL1_GATE_MAX_SOURCE); "include" (absolute or parent-relative path, or a
 * computed #include); "constructor" (constructor/destructor/init_priority/ifunc attribute words,
 * section(...), #pragma init/fini); "token_paste" (## anywhere: it can assemble asm or
 * constructor); "host_asm" (any asm on the host backend; on CUDA asm outside a function the gate
 * can show is __device__/__global__-only, or any preprocessor trick that would hide the boundary);
 * "symbol" (an import off the allowlist); "interpose" (it defines a name of the C library or the
 * CUDA libraries, which would stand in for the real one). */
typedef struct {
  char rule[64];    /* machine code: "host_asm", "constructor", "include", "size", "symbol", ... */
  char why[512];    /* human sentence naming the line or symbol */
} cl1_gate_verdict;

/* 0: passes; 1: rejected (v filled); -1: could not check (err). */
int cl1_gate_source(const char *src, size_t n, cl1_backend b, cl1_gate_verdict *v, cl1_err *err);
/* Also the "size" rule: the memory the .so's segments take once loaded (PT_LOAD and PT_TLS
 * p_memsz: static arrays count in full) must not pass CL1_GATE_MAX_LOAD_BYTES, which the
 * candidate's memory budget (CL1_HOST_MEM_ROOM) covers, so a gated solution that then cannot be
 * mapped is the harness's failure, never the candidate's. */
#define CL1_GATE_MAX_LOAD_BYTES ((size_t)256 << 20)
int cl1_gate_symbols(const char *so_path, cl1_backend b, cl1_gate_verdict *v, cl1_err *err);

/* 1 if an undefined symbol `name` may be imported by a solution on backend b. */
int cl1_gate_symbol_allowed(const char *name, cl1_backend b);

/* NULL if allowed; else the category word of the denial ("files", "threads", ...), or "" for a
 * name that is simply not on the allowlist. */
const char *cl1_gate_symbol_category(const char *name, cl1_backend b);
/* What a built solution is made of: it imports cl1_op_* (the reference's own op library), it
 * imports cuBLAS/cuDNN, it carries device code of its own (it registers a kernel: a .cu without
 * kernels still has an .nv_fatbin section, so that section proves nothing). */
typedef struct {
  bool calls_op_library, calls_vendor, own_device_code;
} cl1_so_facts;
int cl1_gate_so_facts(const char *so_path, cl1_so_facts *f, cl1_err *err);
#endif
