/* test_parse.c — the reply parser (src/loop/parse.h): every status (ok, no_code, truncated,
 * too_large, invalid_utf8, empty) and its store name; the last complete block wins, a block in
 * the Code Implementation section is preferred; ~~~ and 4-backtick fences, nested markdown
 * wrappers, inline triple backticks, CRLF; host vs cuda language tags; markdown, bold and
 * numbered section headings for the analysis; a reply that is only code; NUL bytes inside (length
 * given); huge and pathological replies; and a fuzz loop of 2000 random and mutated replies that
 * must all come back with a valid status and well-formed outputs. KernelBench mode: the python
 * block that defines class ModelNew (the last of several, the one with ModelNew among others),
 * the reason when there is none (no block, a C block), untagged and bare modules, a truncated
 * module, and mutated KernelBench replies. */
#include "harness.h"
#include "loop/format.h"
#include "loop/parse.h"

/* Parses a NUL-terminated reply; asserts the call itself succeeded. */
static cl1_parsed parse(const char *text, const char *lang) {
  cl1_parsed p;
  cl1_err err = {{0}};
  int rc = cl1_parse_reply(text, strlen(text), lang, &p, &err);
  if (rc) fprintf(stderr, "parse failed: %s\n", err.msg);
  assert_int_equal(rc, 0);
  assert_non_null(p.analysis);
  return p;
}

/* Parses text, expects status ok and exactly code. */
static void expect_code(const char *text, const char *lang, const char *code) {
  cl1_parsed p = parse(text, lang);
  assert_int_equal(p.status, CL1_PARSE_OK);
  assert_string_equal(p.code, code);
  cl1_parsed_free(&p);
}

#define KERNEL "#include <cudal1/solution.h>\nCL1_EXPORT int cl1_forward(const cl1_call *c) {\n" \
               "  return 0;\n}\n"

static const char FULL[] =
    "## Performance Analysis\n"
    "The reference launches two kernels; solution B fuses them.\n"
    "\n"
    "## Algorithm Design\n"
    "One fused kernel, float4 loads.\n"
    "\n"
    "## Code Implementation\n"
    "```cuda\n" KERNEL "```\n"
    "That is all.\n";

static void test_status_names(void **st) {
  (void)st;
  assert_string_equal(cl1_parse_status_name(CL1_PARSE_OK), "ok");
  assert_string_equal(cl1_parse_status_name(CL1_PARSE_NO_CODE), "no_code");
  assert_string_equal(cl1_parse_status_name(CL1_PARSE_TRUNCATED), "truncated");
  assert_string_equal(cl1_parse_status_name(CL1_PARSE_TOO_LARGE), "too_large");
  assert_string_equal(cl1_parse_status_name(CL1_PARSE_INVALID_UTF8), "invalid_utf8");
  assert_string_equal(cl1_parse_status_name(CL1_PARSE_EMPTY), "empty");
  assert_string_equal(cl1_parse_status_name((cl1_parse_status)99), "unknown");
}

static void test_ok_sections(void **st) {
  (void)st;
  cl1_parsed p = parse(FULL, "cuda");
  assert_int_equal(p.status, CL1_PARSE_OK);
  assert_string_equal(p.code, KERNEL);
  assert_int_equal(p.code_len, strlen(KERNEL));
  assert_string_equal(p.lang, "cuda");
  assert_false(p.bare);
  assert_non_null(strstr(p.note, "Code Implementation"));
  assert_string_equal(p.analysis, "## Performance Analysis\n\n"
                                  "The reference launches two kernels; solution B fuses them.\n\n"
                                  "## Algorithm Design\n\n"
                                  "One fused kernel, float4 loads.");
  cl1_parsed_free(&p);
  assert_null(p.code);
}

static void test_last_block_wins(void **st) {
  (void)st;
  cl1_parsed p = parse("First try:\n```cuda\nint a;\n```\nBetter:\n```cu\nint b;\n```\n"
                       "```python\nprint(1)\n```\n", "cuda");
  assert_int_equal(p.status, CL1_PARSE_OK);
  assert_string_equal(p.code, "int b;\n");
  assert_string_equal(p.lang, "cu");
  /* no sections: the analysis is the text before the chosen block */
  assert_string_equal(p.analysis, "First try:\n```cuda\nint a;\n```\nBetter:");
  cl1_parsed_free(&p);
}

static void test_prefer_code_section(void **st) {
  (void)st;
  cl1_parsed p = parse("## Code Implementation\n```cuda\nint main_one;\n```\n"
                       "## Notes\nA variant:\n```cuda\nint snippet;\n```\n", "cuda");
  assert_int_equal(p.status, CL1_PARSE_OK);
  assert_string_equal(p.code, "int main_one;\n");
  cl1_parsed_free(&p);
  /* sub-headings inside the section keep it open */
  expect_code("## Code Implementation\n### Kernel\n```cuda\nint k;\n```\n", "cuda", "int k;\n");
  /* a Code Implementation section without code: the last block elsewhere */
  expect_code("```cuda\nint early;\n```\n## Code Implementation\nsee above\n", "cuda",
              "int early;\n");
}

static void test_truncated(void **st) {
  (void)st;
  cl1_parsed p = parse("## Code Implementation\n```cuda\n#include <cudal1/solution.h>\nint f(",
                       "cuda");
  assert_int_equal(p.status, CL1_PARSE_TRUNCATED);
  assert_null(p.code);
  assert_non_null(strstr(p.note, "line 2"));
  cl1_parsed_free(&p);
  /* an earlier complete draft does not stand in for the cut-off final answer */
  p = parse("```cuda\nint v1;\n```\nImproved:\n```cuda\nint v2 = ", "cuda");
  assert_int_equal(p.status, CL1_PARSE_TRUNCATED);
  assert_null(p.code);
  assert_string_equal(p.analysis, "```cuda\nint v1;\n```\nImproved:");
  cl1_parsed_free(&p);
  /* a stray closing fence after the answer is not a truncation */
  expect_code("```cuda\nint ok;\n```\n```\nthanks\n", "cuda", "int ok;\n");
  /* an untagged open block with no complete code before it is half a file */
  p = parse("```\n#include <x.h>\nint a", "cuda");
  assert_int_equal(p.status, CL1_PARSE_TRUNCATED);
  cl1_parsed_free(&p);
  /* an open block of another language after complete code: the code stands */
  p = parse("```cuda\nint ok;\n```\n```text\nlog output", "cuda");
  assert_int_equal(p.status, CL1_PARSE_OK);
  cl1_parsed_free(&p);
}

static void test_no_code(void **st) {
  (void)st;
  cl1_parsed p = parse("I think the kernel should use shared memory.", "cuda");
  assert_int_equal(p.status, CL1_PARSE_NO_CODE);
  assert_null(p.code);
  assert_string_equal(p.analysis, "I think the kernel should use shared memory.");
  cl1_parsed_free(&p);
  p = parse("```python\nimport torch\n```\n", "cuda");
  assert_int_equal(p.status, CL1_PARSE_NO_CODE);
  assert_non_null(strstr(p.note, "python"));
  cl1_parsed_free(&p);
  p = parse("```cuda\n\n   \n```\n", "cuda"); /* an empty block is not code */
  assert_int_equal(p.status, CL1_PARSE_NO_CODE);
  cl1_parsed_free(&p);
  /* prose that mentions cl1_forward and #include is not a source file */
  p = parse("You should #include the header and define cl1_forward.", "cuda");
  assert_int_equal(p.status, CL1_PARSE_NO_CODE);
  cl1_parsed_free(&p);
}

static void test_language_tags_accepted_per_backend(void **st) {
  (void)st;
  static const char *const cuda_ok[] = {"cuda", "CUDA", "cu", "cpp", "c++", "c", "",
                                        "cuda title=solution.cu", "{.cuda}"};
  for (size_t i = 0; i < sizeof cuda_ok / sizeof *cuda_ok; i++) {
    char buf[128];
    snprintf(buf, sizeof buf, "```%s\nint x;\n```\n", cuda_ok[i]);
    cl1_parsed p = parse(buf, "cuda");
    if (p.status != CL1_PARSE_OK) fail_msg("tag '%s' refused", cuda_ok[i]);
    cl1_parsed_free(&p);
  }
  cl1_parsed p = parse("```c\nint x;\n```\n", "host");
  assert_int_equal(p.status, CL1_PARSE_OK);
  assert_string_equal(p.lang, "c");
  cl1_parsed_free(&p);
  p = parse("```cuda\n__global__ void k() {}\n```\n", "host");
  assert_int_equal(p.status, CL1_PARSE_NO_CODE);
  cl1_parsed_free(&p);
  /* host: the c block wins over a later cuda one */
  expect_code("```c\nint host;\n```\n```cuda\nint dev;\n```\n", "host", "int host;\n");
}

static void test_tilde_and_longer_fences_close_only_their_own(void **st) {
  (void)st;
  cl1_parsed p = parse("~~~cuda\nint t;\n~~~\n", "cuda");
  assert_int_equal(p.status, CL1_PARSE_OK);
  assert_string_equal(p.code, "int t;\n");
  cl1_parsed_free(&p);
  /* a 4-backtick fence holds a ``` line; a shorter fence does not close it */
  expect_code("````cuda\nint a; // ```\n```\nint b;\n````\n", "cuda",
              "int a; // ```\n```\nint b;\n");
  /* ~~~ inside a ``` block is content */
  expect_code("```cuda\nint a;\n~~~\nint b;\n```\n", "cuda", "int a;\n~~~\nint b;\n");
  /* an indented fence (inside a list item) */
  expect_code("1. The code:\n   ```cuda\n   int i;\n   ```\n", "cuda", "   int i;\n");
  /* inline triple backticks on one line are not a fence */
  expect_code("Use ```cuda x``` here.\n```cuda\nint real;\n```\n", "cuda", "int real;\n");
  /* a longer closing fence closes */
  p = parse("```cuda\nint l;\n`````\n", "cuda");
  assert_int_equal(p.status, CL1_PARSE_OK);
  cl1_parsed_free(&p);
}

static void test_nested_wrapper(void **st) {
  (void)st;
  /* the whole answer wrapped in a markdown block, code nested with equal fences */
  cl1_parsed p = parse("```markdown\n## Performance Analysis\nslow loads\n"
                       "## Code Implementation\n```cuda\nint nested;\n```\n```\n", "cuda");
  assert_int_equal(p.status, CL1_PARSE_OK);
  assert_string_equal(p.code, "int nested;\n");
  assert_non_null(strstr(p.analysis, "slow loads"));
  cl1_parsed_free(&p);
  /* an untagged wrapper is not code itself */
  expect_code("```\nintro\n```cuda\nint inner;\n```\n```\n", "cuda", "int inner;\n");
}

static void test_crlf_replies_parse_like_lf(void **st) {
  (void)st;
  cl1_parsed p = parse("## Performance Analysis\r\nslow\r\n## Code Implementation\r\n"
                       "```cuda\r\nint a;\r\nint b;\r\n```\r\n", "cuda");
  assert_int_equal(p.status, CL1_PARSE_OK);
  assert_string_equal(p.code, "int a;\nint b;\n");
  assert_null(strchr(p.analysis, '\r'));
  assert_string_equal(p.analysis, "## Performance Analysis\n\nslow");
  cl1_parsed_free(&p);
}

static void test_bold_and_numbered_headings_count_as_sections(void **st) {
  (void)st;
  cl1_parsed p = parse("**Performance Analysis**: memory bound.\n\n"
                       "**2. Algorithm Design:**\nvectorise\n\n"
                       "3. Code Implementation\n```cuda\nint h;\n```\n", "cuda");
  assert_int_equal(p.status, CL1_PARSE_OK);
  assert_string_equal(p.analysis, "## Performance Analysis\n\nmemory bound.\n\n"
                                  "## Algorithm Design\n\nvectorise");
  assert_non_null(strstr(p.note, "Code Implementation"));
  cl1_parsed_free(&p);
  /* case-insensitive, # level 1, extra words after the title */
  p = parse("# PERFORMANCE ANALYSIS of the reference\nbandwidth\n# algorithm design\nfuse\n"
            "```cuda\nint x;\n```\n", "cuda");
  assert_string_equal(p.analysis, "## Performance Analysis\n\nbandwidth\n\n"
                                  "## Algorithm Design\n\nfuse");
  cl1_parsed_free(&p);
  /* a '#' line inside code is not a heading */
  p = parse("```cuda\n# Performance Analysis\n```\n", "cuda");
  assert_string_equal(p.code, "# Performance Analysis\n");
  assert_string_equal(p.analysis, "");
  cl1_parsed_free(&p);
}

static void test_bare_code(void **st) {
  (void)st;
  cl1_parsed p = parse(KERNEL, "cuda");
  assert_int_equal(p.status, CL1_PARSE_OK);
  assert_true(p.bare);
  assert_string_equal(p.code, KERNEL);
  assert_string_equal(p.analysis, "");
  assert_non_null(strstr(p.note, "no fences"));
  cl1_parsed_free(&p);
  /* unfenced code under the Code Implementation heading, analysis above it */
  p = parse("## Performance Analysis\nslow\n## Code Implementation\n" KERNEL "\n\n", "host");
  assert_int_equal(p.status, CL1_PARSE_OK);
  assert_true(p.bare);
  assert_string_equal(p.code, KERNEL);
  assert_string_equal(p.analysis, "## Performance Analysis\n\nslow");
  cl1_parsed_free(&p);
  /* code followed by prose is not clearly a file */
  p = parse(KERNEL "Hope this helps!\n", "cuda");
  assert_int_equal(p.status, CL1_PARSE_NO_CODE);
  cl1_parsed_free(&p);
}

static void test_empty_reply_is_empty_status(void **st) {
  (void)st;
  cl1_parsed p;
  cl1_err err = {{0}};
  assert_int_equal(cl1_parse_reply("", 0, "cuda", &p, &err), 0);
  assert_int_equal(p.status, CL1_PARSE_EMPTY);
  assert_string_equal(p.analysis, "");
  cl1_parsed_free(&p);
  assert_int_equal(cl1_parse_reply(NULL, 0, "host", &p, &err), 0);
  assert_int_equal(p.status, CL1_PARSE_EMPTY);
  cl1_parsed_free(&p);
  p = parse(" \n\t\r\n ", "cuda");
  assert_int_equal(p.status, CL1_PARSE_EMPTY);
  cl1_parsed_free(&p);
}

static void test_bad_arguments_are_errors_naming_them(void **st) {
  (void)st;
  cl1_parsed p;
  cl1_err err = {{0}};
  assert_int_equal(cl1_parse_reply("x", 1, "rust", &p, &err), -1);
  assert_non_null(strstr(err.msg, "rust"));
  assert_int_equal(cl1_parse_reply("x", 1, NULL, &p, &err), -1);
  assert_int_equal(cl1_parse_reply(NULL, 5, "cuda", &p, &err), -1);
  assert_non_null(strstr(err.msg, "NULL"));
  assert_int_equal(cl1_parse_reply("x", 1, "cuda", NULL, &err), -1);
  cl1_parsed_free(&p); /* safe after a failure */
  cl1_parsed_free(NULL);
}

static void test_invalid_utf8_replaced_in_prose_refused_in_code(void **st) {
  (void)st;
  /* the checker: valid 2/3/4-byte sequences; overlong, surrogate, too high, cut, stray, NUL */
  assert_int_equal(cl1_parse_utf8_check("a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80", 10), 10);
  assert_int_equal(cl1_parse_utf8_check("a\xC0\xAF", 3), 1);
  assert_int_equal(cl1_parse_utf8_check("\xE0\x80\x80", 3), 0);
  assert_int_equal(cl1_parse_utf8_check("ab\xED\xA0\x80", 5), 2);
  assert_int_equal(cl1_parse_utf8_check("\xF4\x90\x80\x80", 4), 0);
  assert_int_equal(cl1_parse_utf8_check("xy\xE2\x82", 4), 2);
  assert_int_equal(cl1_parse_utf8_check("\x80", 1), 0);
  assert_int_equal(cl1_parse_utf8_check("ab\0c", 4), 2);
  assert_int_equal(cl1_parse_utf8_check("\xFF", 1), 0);
  /* bad bytes in the prose: replaced, status ok */
  cl1_parsed p = parse("caf\xE9 is \xFF slow\n```cuda\nint \xC3\xA9;\n```\n", "cuda");
  assert_int_equal(p.status, CL1_PARSE_OK);
  assert_string_equal(p.analysis, "caf\xEF\xBF\xBD is \xEF\xBF\xBD slow");
  assert_string_equal(p.code, "int \xC3\xA9;\n"); /* valid UTF-8 in code is kept */
  cl1_parsed_free(&p);
  /* bad bytes in the code: refused, not repaired */
  p = parse("```cuda\nint x = 1; // \xC0\xAF\n```\n", "cuda");
  assert_int_equal(p.status, CL1_PARSE_INVALID_UTF8);
  assert_null(p.code);
  assert_non_null(strstr(p.note, "line 2"));
  cl1_parsed_free(&p);
}

static void test_nul_bytes(void **st) {
  (void)st;
  static const char prose_nul[] = "look\0here\n```cuda\nint n;\n```\n";
  cl1_parsed p;
  cl1_err err = {{0}};
  assert_int_equal(cl1_parse_reply(prose_nul, sizeof prose_nul - 1, "cuda", &p, &err), 0);
  assert_int_equal(p.status, CL1_PARSE_OK);
  assert_string_equal(p.code, "int n;\n");
  assert_string_equal(p.analysis, "look\xEF\xBF\xBDhere");
  cl1_parsed_free(&p);
  static const char code_nul[] = "```cuda\nint \0n;\n```\n";
  assert_int_equal(cl1_parse_reply(code_nul, sizeof code_nul - 1, "cuda", &p, &err), 0);
  assert_int_equal(p.status, CL1_PARSE_INVALID_UTF8);
  assert_non_null(strstr(p.note, "NUL"));
  cl1_parsed_free(&p);
  /* the length decides, not the first NUL: the block after it is found */
  static const char after[] = "\0\0\0\n```c\nint late;\n```\n";
  assert_int_equal(cl1_parse_reply(after, sizeof after - 1, "host", &p, &err), 0);
  assert_int_equal(p.status, CL1_PARSE_OK);
  assert_string_equal(p.code, "int late;\n");
  cl1_parsed_free(&p);
  /* len shorter than the buffer: the block's end is not seen */
  static const char cut[] = "```cuda\nint a;\n```\n";
  assert_int_equal(cl1_parse_reply(cut, 15, "cuda", &p, &err), 0);
  assert_int_equal(p.status, CL1_PARSE_TRUNCATED);
  cl1_parsed_free(&p);
}

static void test_reply_or_code_over_the_limit_is_too_large(void **st) {
  (void)st;
  cl1_err err = {{0}};
  cl1_parsed p;
  size_t big = CL1_PARSE_MAX_REPLY + 1;
  char *t = malloc(big);
  assert_non_null(t);
  memset(t, 'a', big);
  assert_int_equal(cl1_parse_reply(t, big, "cuda", &p, &err), 0);
  assert_int_equal(p.status, CL1_PARSE_TOO_LARGE);
  assert_string_equal(p.analysis, "");
  cl1_parsed_free(&p);
  /* a code block over 1 MiB inside an acceptable reply */
  size_t code = CL1_PARSE_MAX_CODE + 100, k = 0;
  k += (size_t)sprintf(t + k, "```cuda\n");
  for (size_t i = 0; i < code; i += 64) k += (size_t)sprintf(t + k, "%063d\n", 0);
  k += (size_t)sprintf(t + k, "```\n");
  assert_int_equal(cl1_parse_reply(t, k, "cuda", &p, &err), 0);
  assert_int_equal(p.status, CL1_PARSE_TOO_LARGE);
  assert_null(p.code);
  cl1_parsed_free(&p);
  /* a 3.9 MiB reply of prose and a normal block: ok */
  k = 0;
  while (k < CL1_PARSE_MAX_REPLY - 4096) k += (size_t)sprintf(t + k, "Some long analysis line.\n");
  k += (size_t)sprintf(t + k, "```cuda\nint fine;\n```\n");
  assert_int_equal(cl1_parse_reply(t, k, "cuda", &p, &err), 0);
  assert_int_equal(p.status, CL1_PARSE_OK);
  assert_string_equal(p.code, "int fine;\n");
  assert_true(strlen(p.analysis) > CL1_PARSE_MAX_REPLY / 2);
  cl1_parsed_free(&p);
  free(t);
}

/* Replies built to be slow for a careless parser: a million fences, a million headings with
 * Code Implementation sections, deep nesting. They must simply come back. */
static void test_pathological_replies_come_back(void **st) {
  (void)st;
  cl1_err err = {{0}};
  cl1_parsed p;
  size_t cap = CL1_PARSE_MAX_REPLY, k;
  char *t = malloc(cap + 64);
  assert_non_null(t);
  for (k = 0; k + 8 < cap;) k += (size_t)sprintf(t + k, "```c\nx\n");
  assert_int_equal(cl1_parse_reply(t, k, "cuda", &p, &err), 0);
  assert_in_range(p.status, CL1_PARSE_OK, CL1_PARSE_EMPTY);
  cl1_parsed_free(&p);
  for (k = 0; k + 64 < cap;)
    k += (size_t)sprintf(t + k, "## Code Implementation\n# x\n```cuda\nint a;\n```\n");
  assert_int_equal(cl1_parse_reply(t, k, "cuda", &p, &err), 0);
  assert_int_equal(p.status, CL1_PARSE_OK);
  cl1_parsed_free(&p);
  for (k = 0; k + 32 < cap;) k += (size_t)sprintf(t + k, "## Performance Analysis\n");
  assert_int_equal(cl1_parse_reply(t, k, "cuda", &p, &err), 0);
  assert_int_equal(p.status, CL1_PARSE_NO_CODE);
  cl1_parsed_free(&p);
  /* half a million closed python blocks, then as many text blocks: no code */
  for (k = 0; k + 32 < cap;)
    k += (size_t)sprintf(t + k, k < cap / 2 ? "```python\nx\n```\n" : "```text\nx\n```\n");
  assert_int_equal(cl1_parse_reply(t, k, "cuda", &p, &err), 0);
  assert_int_equal(p.status, CL1_PARSE_NO_CODE);
  assert_non_null(strstr(p.note, "python, text"));
  cl1_parsed_free(&p);
  for (k = 0; k + 32 < cap;) k += (size_t)sprintf(t + k, "```markdown\n");
  assert_int_equal(cl1_parse_reply(t, k, "cuda", &p, &err), 0);
  assert_in_range(p.status, CL1_PARSE_OK, CL1_PARSE_EMPTY);
  cl1_parsed_free(&p);
  free(t);
}


/* ---- kernelbench: a Python module defining class ModelNew ------------------------------------ */

#define MODELNEW "import torch\nimport torch.nn as nn\n\n\nclass ModelNew(nn.Module):\n" \
                 "    def forward(self, x):\n        return torch.relu(x)\n"

static const char KB_FULL[] =
    "## Performance Analysis\nOne elementwise pass; nothing to fuse.\n\n"
    "## Algorithm Design\nKeep torch.relu.\n\n"
    "## Code Implementation\n```python\n" MODELNEW "```\n";

static void test_kernelbench_takes_the_python_block_defining_modelnew(void **st) {
  (void)st;
  cl1_parsed p = parse(KB_FULL, "kernelbench");
  assert_int_equal(p.status, CL1_PARSE_OK);
  assert_string_equal(p.code, MODELNEW);
  assert_string_equal(p.lang, "python");
  assert_non_null(strstr(p.note, "Code Implementation"));
  assert_string_equal(p.analysis, "## Performance Analysis\n\nOne elementwise pass; nothing to "
                                  "fuse.\n\n## Algorithm Design\n\nKeep torch.relu.");
  cl1_parsed_free(&p);
  /* ``` untagged and ```py blocks count too */
  expect_code("Here:\n```\n" MODELNEW "```\n", "kernelbench", MODELNEW);
  expect_code("```py\n" MODELNEW "```\n", "kernelbench", MODELNEW);
}

static void test_kernelbench_among_several_blocks_takes_the_modelnew_one(void **st) {
  (void)st;
  /* a usage snippet after the module: not the solution */
  expect_code("```python\n" MODELNEW "```\nUse it like this:\n```python\n"
              "m = ModelNew().cuda()\nprint(m(torch.randn(4)))\n```\n",
              "kernelbench", MODELNEW);
  /* a CUDA source shown before the module: not the solution either */
  expect_code("The kernel:\n```cuda\n__global__ void k() {}\n```\n```python\n" MODELNEW "```\n",
              "kernelbench", MODELNEW);
  /* two modules: the last */
  expect_code("```python\nclass ModelNew(nn.Module):\n    pass\n```\nBetter:\n```python\n"
              MODELNEW "```\n", "kernelbench", MODELNEW);
}

static void test_kernelbench_without_a_modelnew_block_says_why(void **st) {
  (void)st;
  const char *const replies[] = {
      "I would fuse the two ops into one kernel.",                        /* no block at all */
      "## Code Implementation\n```c\n" KERNEL "```\n",                     /* the C ABI's file */
      "```python\nclass Model(nn.Module):\n    pass\n```\n",              /* not ModelNew */
      "```python\n# class ModelNew(nn.Module) comes later\nx = 1\n```\n", /* only a comment */
      "```python\nclass ModelNewer(nn.Module):\n    pass\n```\n",          /* another name */
  };
  for (size_t i = 0; i < sizeof replies / sizeof *replies; i++) {
    cl1_parsed p = parse(replies[i], "kernelbench");
    if (p.status != CL1_PARSE_NO_CODE) fail_msg("reply %zu: status %d", i, p.status);
    assert_null(p.code);
    const char *want = "the reply has no python code block defining class ModelNew";
    if (strncmp(p.note, want, strlen(want))) fail_msg("reply %zu: note '%s'", i, p.note);
    cl1_parsed_free(&p);
  }
  /* the note names the blocks it saw */
  cl1_parsed p = parse(replies[1], "kernelbench");
  assert_non_null(strstr(p.note, "blocks seen: c"));
  cl1_parsed_free(&p);
  /* the same C reply is code for the C ABI */
  expect_code(replies[1], "cuda", KERNEL);
}

static void test_kernelbench_truncated_and_bare_modules(void **st) {
  (void)st;
  cl1_parsed p = parse("## Code Implementation\n```python\nimport torch\nclass ModelNew(nn.Module)"
                       ":\n    def forward(self, x):\n", "kernelbench");
  assert_int_equal(p.status, CL1_PARSE_TRUNCATED);
  assert_non_null(strstr(p.note, "python code block"));
  cl1_parsed_free(&p);
  /* no fences: a reply that is the module itself */
  p = parse(MODELNEW, "kernelbench");
  assert_int_equal(p.status, CL1_PARSE_OK);
  assert_true(p.bare);
  assert_string_equal(p.code, MODELNEW);
  cl1_parsed_free(&p);
  /* prose naming ModelNew is not a module */
  p = parse("I will write class ModelNew next time.", "kernelbench");
  assert_int_equal(p.status, CL1_PARSE_NO_CODE);
  cl1_parsed_free(&p);
}

static void test_format_names_extensions_and_modelnew_detection(void **st) {
  (void)st;
  cl1_format f = CL1_FORMAT_CABI;
  assert_int_equal(cl1_format_parse("kernelbench", &f), 0);
  assert_int_equal(f, CL1_FORMAT_KERNELBENCH);
  assert_int_equal(cl1_format_parse("cabi", &f), 0);
  assert_int_equal(f, CL1_FORMAT_CABI);
  assert_int_equal(cl1_format_parse("python", &f), -1);
  assert_int_equal(cl1_format_parse(NULL, &f), -1);
  assert_string_equal(cl1_format_name(CL1_FORMAT_KERNELBENCH), "kernelbench");
  assert_string_equal(cl1_format_ext(CL1_FORMAT_KERNELBENCH, CL1_BACKEND_CUDA), "py");
  assert_string_equal(cl1_format_ext(CL1_FORMAT_KERNELBENCH, CL1_BACKEND_HOST), "py");
  assert_string_equal(cl1_format_ext(CL1_FORMAT_CABI, CL1_BACKEND_CUDA), "cu");
  assert_string_equal(cl1_format_ext(CL1_FORMAT_CABI, CL1_BACKEND_HOST), "c");
  assert_string_equal(cl1_format_parse_lang(CL1_FORMAT_KERNELBENCH, CL1_BACKEND_HOST),
                      "kernelbench");
  assert_string_equal(cl1_format_parse_lang(CL1_FORMAT_CABI, CL1_BACKEND_HOST), "host");
  static const struct {
    const char *src;
    cl1_format want;
  } cases[] = {{MODELNEW, CL1_FORMAT_KERNELBENCH},
               {"class ModelNew:\n  pass\n", CL1_FORMAT_KERNELBENCH},
               {"if True:\n    class  ModelNew (nn.Module): pass", CL1_FORMAT_KERNELBENCH},
               {KERNEL, CL1_FORMAT_CABI},
               {"# class ModelNew(nn.Module)\n", CL1_FORMAT_CABI},
               {"x = 'class ModelNew'\n", CL1_FORMAT_CABI},
               {"class ModelNew2(nn.Module):\n", CL1_FORMAT_CABI},
               {"classModelNew\n", CL1_FORMAT_CABI},
               {"", CL1_FORMAT_CABI}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    if (cl1_format_of_source(cases[i].src) != cases[i].want)
      fail_msg("case %zu ('%s'): not %s", i, cases[i].src, cl1_format_name(cases[i].want));
  assert_int_equal(cl1_format_of_source(NULL), CL1_FORMAT_CABI);
}

/* xorshift64*: the fuzz loop's own generator, fixed seed */
static uint64_t fz_next(uint64_t *s) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}

static void check_invariants(const cl1_parsed *p, int rc) {
  assert_int_equal(rc, 0);
  assert_in_range(p->status, CL1_PARSE_OK, CL1_PARSE_EMPTY);
  assert_string_not_equal(cl1_parse_status_name(p->status), "unknown");
  assert_non_null(p->analysis);
  size_t al = strlen(p->analysis);
  assert_int_equal(cl1_parse_utf8_check(p->analysis, al), al);
  assert_non_null(memchr(p->note, 0, sizeof p->note));
  if (p->status == CL1_PARSE_OK) {
    assert_non_null(p->code);
    assert_int_equal(strlen(p->code), p->code_len);
    assert_true(p->code_len > 0 && p->code_len <= CL1_PARSE_MAX_CODE);
    assert_int_equal(cl1_parse_utf8_check(p->code, p->code_len), p->code_len);
  } else {
    assert_null(p->code);
  }
}

static void test_random_replies_never_crash(void **st) {
  (void)st;
  static const char *const pieces[] = {"```", "```cuda\n", "~~~", "````", "\n", "\r\n", "## ",
                                       "**", "Code Implementation", "Performance Analysis\n",
                                       "# Algorithm Design\n", "cl1_forward", "#include <x>\n",
                                       "}\n", "\xC3", "\xA9", "\xFF", "\0", " ", "```c\n", "x"};
  uint64_t s = 0x9E3779B97F4A7C15ull;
  char buf[4096];
  int counts[6] = {0};
  for (int it = 0; it < 2000; it++) {
    size_t n = 0, want = fz_next(&s) % sizeof buf;
    int mode = it % 3;
    if (mode == 0) { /* raw random bytes */
      for (; n < want; n++) buf[n] = (char)fz_next(&s);
    } else if (mode == 1) { /* random sequences of meaningful pieces */
      while (n < want) {
        const char *pc = pieces[fz_next(&s) % (sizeof pieces / sizeof *pieces)];
        size_t l = *pc ? strlen(pc) : 1;
        if (n + l > want) break;
        memcpy(buf + n, pc, l), n += l;
      }
    } else { /* a valid reply, mutated and cut */
      n = strlen(FULL);
      memcpy(buf, FULL, n);
      int muts = (int)(fz_next(&s) % 8);
      for (int m = 0; m < muts; m++) buf[fz_next(&s) % n] = (char)fz_next(&s);
      n = fz_next(&s) % 4 == 0 ? fz_next(&s) % (n + 1) : n;
    }
    cl1_parsed p;
    cl1_err err = {{0}};
    int rc = cl1_parse_reply(buf, n, it % 2 ? "cuda" : "host", &p, &err);
    check_invariants(&p, rc);
    counts[p.status]++;
    cl1_parsed_free(&p);
  }
  /* the generators reach the interesting statuses, so the loop is not vacuous */
  assert_true(counts[CL1_PARSE_OK] > 50);
  assert_true(counts[CL1_PARSE_NO_CODE] > 50);
  assert_true(counts[CL1_PARSE_TRUNCATED] > 10);
}

/* KernelBench replies mutated and cut: the same invariants, and a code found is a module. */
static void test_random_kernelbench_replies_never_crash(void **st) {
  (void)st;
  uint64_t s = 0xD1B54A32D192ED03ull;
  char buf[1024];
  int ok = 0;
  for (int it = 0; it < 1000; it++) {
    size_t n = strlen(KB_FULL);
    memcpy(buf, KB_FULL, n);
    int muts = (int)(fz_next(&s) % 6);
    for (int m = 0; m < muts; m++) buf[fz_next(&s) % n] = (char)fz_next(&s);
    n = fz_next(&s) % 4 == 0 ? fz_next(&s) % (n + 1) : n;
    cl1_parsed p;
    cl1_err err = {{0}};
    int rc = cl1_parse_reply(buf, n, "kernelbench", &p, &err);
    check_invariants(&p, rc);
    if (p.status == CL1_PARSE_OK) {
      ok++;
      assert_true(cl1_format_defines_modelnew(p.code, p.code_len));
    }
    cl1_parsed_free(&p);
  }
  assert_true(ok > 100);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_status_names),   cmocka_unit_test(test_ok_sections),
      cmocka_unit_test(test_last_block_wins), cmocka_unit_test(test_prefer_code_section),
      cmocka_unit_test(test_truncated),      cmocka_unit_test(test_no_code),
      cmocka_unit_test(test_language_tags_accepted_per_backend),      cmocka_unit_test(test_tilde_and_longer_fences_close_only_their_own),
      cmocka_unit_test(test_nested_wrapper), cmocka_unit_test(test_crlf_replies_parse_like_lf),
      cmocka_unit_test(test_bold_and_numbered_headings_count_as_sections),       cmocka_unit_test(test_bare_code),
      cmocka_unit_test(test_empty_reply_is_empty_status),          cmocka_unit_test(test_bad_arguments_are_errors_naming_them),
      cmocka_unit_test(test_invalid_utf8_replaced_in_prose_refused_in_code),           cmocka_unit_test(test_nul_bytes),
      cmocka_unit_test(test_reply_or_code_over_the_limit_is_too_large),          cmocka_unit_test(test_pathological_replies_come_back),
      cmocka_unit_test(test_random_replies_never_crash),
      cmocka_unit_test(test_kernelbench_takes_the_python_block_defining_modelnew),
      cmocka_unit_test(test_kernelbench_among_several_blocks_takes_the_modelnew_one),
      cmocka_unit_test(test_kernelbench_without_a_modelnew_block_says_why),
      cmocka_unit_test(test_kernelbench_truncated_and_bare_modules),
      cmocka_unit_test(test_format_names_extensions_and_modelnew_detection),
      cmocka_unit_test(test_random_kernelbench_replies_never_crash),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
