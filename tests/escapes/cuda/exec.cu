/* exec.cu — the CUDA twin of ../host/exec.c: the same attempts, made from the CUDA worker.
 * escape_cases.h inlines that file, with this folder's probe_kit.inc (its ReLU is a kernel). */
#include <cuda_runtime.h>
#include "../host/exec.c"
