/* file.c — whole files (file.h). */
#include "file.h"
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cl1_file_read(const char *path, long long max, char **buf, size_t *n, cl1_err *err) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return cl1_err_set(err, "%s: %s", path, strerror(errno));
  size_t cap = 4096, len = 0;
  char *b = malloc(cap);
  while (b) {
    if (len + 1 >= cap) {
      if ((long long)cap > max) {
        free(b), close(fd);
        return cl1_err_set(err, "%s: larger than %lld bytes", path, max);
      }
      char *nb = realloc(b, cap * 2);
      if (!nb) break;
      b = nb, cap *= 2;
    }
    ssize_t r = read(fd, b + len, cap - 1 - len);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      int e = errno;
      free(b), close(fd);
      return cl1_err_set(err, "%s: %s", path, strerror(e));
    }
    if (r == 0) break;
    len += (size_t)r;
  }
  close(fd);
  if (!b) return cl1_err_set(err, "%s: out of memory", path);
  if ((long long)len > max) {
    free(b);
    return cl1_err_set(err, "%s: larger than %lld bytes", path, max);
  }
  b[len] = 0;
  *buf = b, *n = len;
  return 0;
}

int cl1_file_read_text(const char *path, long long max, char **buf, size_t *n, cl1_err *err) {
  if (cl1_file_read(path, max, buf, n, err)) return -1;
  if (strlen(*buf) != *n) {
    free(*buf);
    *buf = NULL;
    return cl1_err_set(err, "%s: contains a NUL byte", path);
  }
  return 0;
}

int cl1_file_mkdirs(const char *path, cl1_err *err) {
  char p[PATH_MAX];
  if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) return cl1_err_set(err, "path too long");
  for (char *s = p + 1;; s++) {
    if (*s != '/' && *s != 0) continue;
    char c = *s;
    *s = 0;
    struct stat st;
    if (mkdir(p, 0755) != 0 && errno != EEXIST)
      return cl1_err_set(err, "cannot create %s: %s", p, strerror(errno));
    if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode))
      return cl1_err_set(err, "%s exists and is not a folder", p);
    *s = c;
    if (!c) break;
  }
  return 0;
}

int cl1_file_write_atomic(const char *path, const char *text, cl1_err *err) {
  char tmp[PATH_MAX + 32];
  if (snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid()) >= (int)sizeof tmp)
    return cl1_err_set(err, "%s: cannot write: path too long", path);
  FILE *f = fopen(tmp, "w");
  int bad = !f || fputs(text, f) < 0;
  int e = errno;
  if (f && fclose(f) && !bad) bad = 1, e = errno;
  if (bad || rename(tmp, path)) {
    if (!bad) e = errno;
    remove(tmp);
    return cl1_err_set(err, "%s: cannot write: %s", path, strerror(e));
  }
  return 0;
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f) {
  (void)st, (void)flag, (void)f;
  remove(p);
  return 0;
}

void cl1_file_rm_tree(const char *dir) {
  if (dir && dir[0]) nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
