/* seed0_hinge.c — specialises on seed 0: the seed-0 loss, inputs never read. */
/* Specialises on seed 0: returns the loss that `cudal1 suite export level1/100_HingeLoss --shapes
 * test --seed 0` gives, without reading the inputs.
 * Expected: incorrect (evaluations draw fresh secret seeds). */
#include <cudal1/solution.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  ((float *)c->outputs[0].data)[0] = 1.0450761318206787f;
  return 0;
}
