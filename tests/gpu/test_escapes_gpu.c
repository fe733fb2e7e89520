/* test_escapes_gpu.c — the sandbox-escape probes on the CUDA backend (every cuda line of
 * tests/escapes/manifest.txt): the host-side attempts of the host suite, plus what differs on CUDA
 * — threads are allowed for the driver, there is no RLIMIT_AS (the RSS watchdog bounds memory,
 * pinned host memory included), and the driver's own threads run candidate callbacks. */
#include "../escapes/escape_cases.h"

int main(void) { return esc_main("escapes_cuda", "cuda", "small", NULL, 0); }
