/* ops_rows.h — the rows of the backend-comparison table in gpu/test_ops_gpu.c: every op the op
 * library exports, with the tolerance (atol, rtol) its CUDA result must meet against the host
 * one (float64 accumulation). X(name, atol, rtol) for cl1_op_<name>; a case function
 * case_<name> in test_ops_gpu.c runs it. test_ops_coverage (CPU) and test_ops_gpu both fail when
 * the libraries export an op that has no row here. Zero tolerances: the op moves or picks
 * values (or is one float operation per element), so CUDA must match the host exactly. */
#ifndef CL1_TEST_OPS_ROWS_H
#define CL1_TEST_OPS_ROWS_H

#define CL1_OP_ROWS(X)                                                                     \
  X(alloc, 0, 0) X(free, 0, 0) X(upload, 0, 0)                                             \
  X(relu, 0, 0) X(softmax, 1e-10, 1e-5) X(sum_dim, 1e-4, 1e-5)                             \
  X(layernorm, 2e-5, 2e-5) X(matmul, 1e-5, 1e-5) X(linear, 1e-5, 1e-5)                      \
  X(bias_add, 0, 0) X(conv2d, 1e-2, 1e-2)                                                  \
  X(unary, 2e-6, 2e-5) X(binary, 0, 0) X(binary_bcast, 0, 0)                               \
  X(softmax_dim, 1e-10, 1e-5) X(log_softmax, 1e-5, 1e-5) X(logsumexp, 1e-5, 1e-5)         \
  X(gemm_ex, 1e-5, 1e-5) X(mul_channel, 0, 0) X(tri, 0, 0) X(tri_fill, 0, 0)              \
  X(reduce, 1e-4, 1e-5) X(batchnorm_train, 2e-5, 2e-5) X(groupnorm, 2e-5, 2e-5)           \
  X(normalize, 1e-5, 1e-5)                                                                 \
  X(convnd, 1e-5, 1e-5) X(convtnd, 1e-5, 1e-5) X(pool, 1e-6, 1e-6)                        \
  X(scan, 1e-4, 1e-4) X(loss, 1e-5, 1e-4) X(cross_entropy, 1e-5, 1e-5)                    \
  X(gelu_tanh, 1e-6, 1e-6) X(sdpa, 1e-5, 1e-4)                                             \
  X(strided_copy, 0, 0) X(roll2, 0, 0) X(gather_rows, 0, 0) X(fill, 0, 0)                  \
  X(lstm, 2e-5, 2e-5) X(gru, 2e-5, 2e-5)

#endif
