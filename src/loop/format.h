/* format.h — the two forms a solution can take. cabi: cudal1's own C ABI, a .cu (cuda) or .c
 * (host) file defining cl1_forward (include/cudal1/solution.h). kernelbench: the field's form, a
 * Python file defining `class ModelNew(nn.Module)` that replaces the task's PyTorch Model (custom
 * code through torch.utils.cpp_extension.load_inline, Triton, or plain PyTorch). The format
 * decides the prompt, how replies are parsed and the candidate file's extension, which is what
 * tells the evaluator which path to take. */
#ifndef CL1_FORMAT_H
#define CL1_FORMAT_H
#include <stdbool.h>
#include <stddef.h>
#include "../worker/backend.h"

typedef enum { CL1_FORMAT_CABI = 0, CL1_FORMAT_KERNELBENCH = 1 } cl1_format;

/* "cabi" | "kernelbench". */
const char *cl1_format_name(cl1_format f);
/* 0 with *out set for "cabi" or "kernelbench"; -1 for anything else (NULL included). */
int cl1_format_parse(const char *s, cl1_format *out);
/* The candidate file's extension, without the dot: "py" for kernelbench, else "cu" or "c". */
const char *cl1_format_ext(cl1_format f, cl1_backend b);
/* The reply parser's language (parse.h): "kernelbench", else the backend's name. */
const char *cl1_format_parse_lang(cl1_format f, cl1_backend b);
/* Whether source holds a line `class ModelNew` (then `(`, `:` or a blank): how a stored
 * solution's format is told, since the store keeps no format column. */
bool cl1_format_defines_modelnew(const char *s, size_t n);
/* The format of a stored solution's source: kernelbench when it defines ModelNew. */
cl1_format cl1_format_of_source(const char *source);

#endif
