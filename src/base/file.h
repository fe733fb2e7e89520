/* file.h — whole files: reading one into memory, creating a folder with its parents, and writing
 * one so that a reader never sees half of it. Errors name the path and the cause. */
#ifndef CL1_FILE_H
#define CL1_FILE_H
#include <stddef.h>
#include "err.h"

/* Reads path (at most max bytes) into a malloc'd NUL-terminated buffer (*buf, caller frees) of
 * *n bytes. 0, or -1 with err "PATH: cause" (the system's reason, "larger than MAX bytes",
 * "out of memory"). */
int cl1_file_read(const char *path, long long max, char **buf, size_t *n, cl1_err *err);
/* The same for a text file (JSON, source): -1 with err "PATH: contains a NUL byte" where one
 * would cut the text short for every reader of a C string. */
int cl1_file_read_text(const char *path, long long max, char **buf, size_t *n, cl1_err *err);
/* mkdir -p. 0, or -1 with err "cannot create DIR: cause", "DIR exists and is not a folder" or
 * "path too long". */
int cl1_file_mkdirs(const char *path, cl1_err *err);
/* Writes text to a file beside path and renames it over path; the temporary file is removed on
 * failure. 0, or -1 with err "PATH: cannot write: cause". */
int cl1_file_write_atomic(const char *path, const char *text, cl1_err *err);
/* rm -rf dir (symlinks removed, never followed); best effort. */
void cl1_file_rm_tree(const char *dir);
#endif
