/* export.h — `cudal1 suite export`: one task instance's inputs, params and reference outputs as
 * .npy files plus meta.json, for interop (the PyTorch twin checks, baselines) and debugging. The
 * reference is trusted code and runs in this process. */
#ifndef CL1_EXPORT_H
#define CL1_EXPORT_H
#include <stdint.h>
#include "../worker/backend.h"
#include "../base/err.h"

/* Seeds: params use `seed`, inputs `seed + 1` (documented in meta.json). `variant` is a
 * cl1_variant (task.h): the instance's tensors under that verification variant, opted out or
 * not (meta.json records both); an error when the variant changes none of them. */
int cl1_export_instance(const char *task, int set, uint64_t seed, int variant, cl1_backend b,
                        const char *dir, cl1_err *err);
#endif
