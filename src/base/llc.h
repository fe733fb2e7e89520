/* llc.h — the size of the CPU's last-level cache, which the host backend's flush must cover.
 *
 * Read from sysfs — the highest-level data/unified cache that CPU 0 actually shares
 * (/sys/devices/system/cpu/cpu0/cache/index*: level, type, size, shared_cpu_list) — because
 * glibc's sysconf(_SC_LEVEL3_CACHE_SIZE) is not that figure on every machine: on a 2-core AMD
 * EPYC VM it reported 384 MB (and 320 MB on another) where sysfs and lscpu said 32 MB, and a
 * flush sized from it took the candidate's address space (issue 17). sysconf is the fallback,
 * a default the last resort; the flush buffer is capped at CL1_LLC_FLUSH_MAX either way. */
#ifndef CL1_LLC_H
#define CL1_LLC_H
#include <stddef.h>

/* The largest flush buffer: twice the largest last-level cache one core shares today (AMD's
 * 3D V-Cache parts: 96 MB per CCD) with room to spare. A bigger figure is a misreport. */
#define CL1_LLC_FLUSH_MAX ((size_t)256 << 20)
#define CL1_LLC_DEFAULT ((size_t)8 << 20)

typedef struct {
  size_t bytes;          /* the last-level cache (as read, before the cap) */
  size_t flush_bytes;    /* the flush buffer: 2 x bytes, capped at CL1_LLC_FLUSH_MAX */
  int level;             /* its level (3, 2, ...); 0 when not from sysfs */
  char source[96];       /* "sysfs L3 (shared by CPUs 0-1)", "sysconf", "default (...)" */
} cl1_llc;

/* Fills *out; never fails (the default is the last resort, said in source). sysfs_root: the
 * folder standing for /sys; NULL = $CUDAL1_SYSFS_ROOT (tests: a fake tree) or /sys. */
void cl1_llc_read(const char *sysfs_root, cl1_llc *out);
/* "32K", "32768K", "96M", "1024" (bytes) as sysfs writes sizes; 0 when unreadable. */
size_t cl1_llc_parse_size(const char *s);
#endif
