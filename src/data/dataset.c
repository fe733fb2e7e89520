/* dataset.c — what both datasets share: opening the store without creating one, chat messages,
 * prompt ids, and the JSONL text rows are appended to. */
#include "dataset.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cjson/cJSON.h>

int cl1_dataset_open_store(const char *path, cl1_store **out, cl1_err *err) {
  struct stat sb;
  *out = NULL;
  /* cl1_store_open creates a missing file: a mistyped --db would then export nothing, silently */
  if (stat(path, &sb))
    return cl1_err_set(err, "--db %s: %s", path,
                       errno == ENOENT ? "no such store (run cudal1 optimize first)"
                                       : strerror(errno));
  if (!S_ISREG(sb.st_mode)) return cl1_err_set(err, "--db %s: not a file", path);
  return cl1_store_open(path, out, err);
}

void cl1_dataset_msg(void *arr, const char *role, const char *content) {
  cJSON *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "role", role);
  cJSON_AddStringToObject(m, "content", content);
  cJSON_AddItemToArray(arr, m);
}

int cl1_dataset_put_row(cl1_dataset_buf *b, void *row, cl1_err *err) {
  char *line = cJSON_PrintUnformatted(row);
  if (!line) return cl1_err_set(err, "out of memory");
  size_t n = strlen(line);
  if (b->len + n + 2 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (b->len + n + 2 > cap) cap *= 2;
    char *t = realloc(b->text, cap);
    if (!t) {
      free(line);
      return cl1_err_set(err, "out of memory");
    }
    b->text = t;
    b->cap = cap;
  }
  memcpy(b->text + b->len, line, n);
  b->len += n;
  b->text[b->len++] = '\n';
  b->text[b->len] = 0;
  free(line);
  return 0;
}
