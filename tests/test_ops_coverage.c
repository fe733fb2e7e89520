/* test_ops_coverage.c — the op library's exported surface, read from the built shared objects'
 * dynamic symbol tables (no GPU needed): both backends (libcl1ops_host.so, libcl1ops_cuda.so)
 * export the same cl1_op_* functions, and each of them has a row in the backend-comparison
 * table of gpu/test_ops_gpu.c (ops_rows.h), so an op added without a CUDA-vs-host case fails
 * here on every CPU run, not only on the GPU machine. */
#include "harness.h"
#include "ops_rows.h"
#include "ops_syms.h"

#define ROW_NAME(name, atol, rtol) "cl1_op_" #name,
static const char *const g_rows[] = {CL1_OP_ROWS(ROW_NAME)};
#undef ROW_NAME
enum { N_ROWS = sizeof g_rows / sizeof g_rows[0] };

static void read_lib(const char *file, ops_syms *s) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", th_build(), file);
  if (ops_syms_read(path, "cl1_op_", s)) fail_msg("cannot read the symbols of %s", path);
  if (s->n == 0) fail_msg("%s exports no cl1_op_* function", path);
}

static void test_backends_export_the_same_ops(void **state) {
  (void)state;
  ops_syms h, c;
  read_lib("libcl1ops_host.so", &h);
  read_lib("libcl1ops_cuda.so", &c);
  for (int i = 0; i < h.n; i++)
    if (!ops_syms_has(&c, h.name[i])) fail_msg("%s: host only (no CUDA version)", h.name[i]);
  for (int i = 0; i < c.n; i++)
    if (!ops_syms_has(&h, c.name[i])) fail_msg("%s: CUDA only (no host version)", c.name[i]);
}

static void test_every_exported_op_has_a_gpu_table_row(void **state) {
  (void)state;
  ops_syms c;
  read_lib("libcl1ops_cuda.so", &c);
  for (int i = 0; i < c.n; i++) {
    int found = 0;
    for (int r = 0; r < N_ROWS && !found; r++) found = !strcmp(g_rows[r], c.name[i]);
    if (!found) fail_msg("%s is exported but has no row in tests/ops_rows.h", c.name[i]);
  }
  for (int r = 0; r < N_ROWS; r++)
    if (!ops_syms_has(&c, g_rows[r])) fail_msg("row %s: no such exported op", g_rows[r]);
}

/* The reader itself: a file that is not a shared object is an error, not an empty set. */
static void test_symbol_reader_rejects_a_non_elf_file(void **state) {
  (void)state;
  ops_syms s;
  char path[1024];
  snprintf(path, sizeof path, "%s/test-ops-coverage-not-elf.txt", th_build());
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("not an ELF file, but long enough to hold an ELF header's worth of bytes....\n", f);
  fclose(f);
  assert_int_equal(ops_syms_read(path, "cl1_op_", &s), -1);
  remove(path);
  assert_int_equal(ops_syms_read("/nonexistent/libnothing.so", "cl1_op_", &s), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_backends_export_the_same_ops),
      cmocka_unit_test(test_every_exported_op_has_a_gpu_table_row),
      cmocka_unit_test(test_symbol_reader_rejects_a_non_elf_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
