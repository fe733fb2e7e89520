/* llc.c — the last-level cache size from sysfs, sysconf or a default (llc.h). */
#include "llc.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t cl1_llc_parse_size(const char *s) {
  char *end;
  while (s && isspace((unsigned char)*s)) s++;
  if (!s || !isdigit((unsigned char)*s)) return 0;
  unsigned long long v = strtoull(s, &end, 10);
  size_t mult = 1;
  if (*end == 'K' || *end == 'k') mult = 1024, end++;
  else if (*end == 'M' || *end == 'm') mult = (size_t)1 << 20, end++;
  else if (*end == 'G' || *end == 'g') mult = (size_t)1 << 30, end++;
  while (isspace((unsigned char)*end)) end++;
  if (*end) return 0;
  return (size_t)v * mult;
}

/* One line of a sysfs file, trailing newline removed; 0 on success. */
static int read_line(const char *path, char *buf, size_t n) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char *ok = fgets(buf, (int)n, f);
  fclose(f);
  if (!ok) return -1;
  buf[strcspn(buf, "\n")] = 0;
  return 0;
}

/* The highest-level data or unified cache of cpu0 under root; 0 when sysfs has none. */
static size_t from_sysfs(const char *root, cl1_llc *out) {
  size_t best = 0;
  for (int i = 0; i < 16; i++) {
    char dir[4200], path[4300], level[32], type[32], size[64], shared[64] = "";
    snprintf(dir, sizeof dir, "%s/devices/system/cpu/cpu0/cache/index%d", root, i);
    snprintf(path, sizeof path, "%s/level", dir);
    if (read_line(path, level, sizeof level)) continue;  /* index numbers may have gaps */
    snprintf(path, sizeof path, "%s/type", dir);
    if (read_line(path, type, sizeof type) || !strcmp(type, "Instruction")) continue;
    snprintf(path, sizeof path, "%s/size", dir);
    size_t b = read_line(path, size, sizeof size) ? 0 : cl1_llc_parse_size(size);
    int lv = atoi(level);
    if (!b || lv <= 0 || lv < out->level) continue;
    snprintf(path, sizeof path, "%s/shared_cpu_list", dir);
    if (read_line(path, shared, sizeof shared)) snprintf(shared, sizeof shared, "?");
    best = b;
    out->level = lv;
    snprintf(out->source, sizeof out->source, "sysfs L%d (shared by CPUs %.40s)", lv, shared);
  }
  return best;
}

void cl1_llc_read(const char *sysfs_root, cl1_llc *out) {
  memset(out, 0, sizeof *out);
  const char *root = sysfs_root;
  if (!root) root = getenv("CUDAL1_SYSFS_ROOT");
  if (!root || !*root) root = "/sys";
  out->bytes = from_sysfs(root, out);
  if (!out->bytes) {
    out->level = 0;
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (l3 > 0 || l2 > 0) {
      out->bytes = (size_t)(l3 > 0 ? l3 : l2);
      snprintf(out->source, sizeof out->source, "sysconf (no cache in %s)", root);
    } else {
      out->bytes = CL1_LLC_DEFAULT;
      snprintf(out->source, sizeof out->source, "default (neither %s nor sysconf says)", root);
    }
  }
  out->flush_bytes = 2 * out->bytes;
  if (out->flush_bytes > CL1_LLC_FLUSH_MAX) out->flush_bytes = CL1_LLC_FLUSH_MAX;
}
