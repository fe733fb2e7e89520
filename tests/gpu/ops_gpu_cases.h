/* ops_gpu_cases.h — the case functions of test_ops_gpu.c's table, one per exported op
 * (case_<name> for row X(name, ..) of tests/ops_rows.h), included there after its helpers:
 * each builds its inputs from the row's generator, calls the host and the CUDA op on the same
 * data over the op's edge shapes and checks the CUDA result against the host one. Kept apart
 * from the table so that each file stays readable; it is not a header of its own. */

/* ---- memory ---- */

static void case_alloc(void) {
  const size_t sizes[] = {0, 1, 4, 4099, 1 << 24};
  for (size_t i = 0; i < N_OF(sizes); i++) {
    void *h = HOST(alloc)(sizes[i]), *c = CUDA(alloc)(sizes[i]);
    if (!h || !c) fail_msg("alloc %zu: host %p cuda %p", sizes[i], h, c);
    struct cudaPointerAttributes a;
    assert_int_equal(cudaPointerGetAttributes(&a, c), cudaSuccess);
    assert_int_equal(a.type, cudaMemoryTypeDevice);  // device memory on the CUDA backend
    if (sizes[i]) assert_int_equal(cudaMemset(c, 0, sizes[i]), cudaSuccess);
    memset(h, 0, sizes[i]);
    HOST(free)(h), CUDA(free)(c);
  }
}

static void case_free(void) {
  HOST(free)(NULL), CUDA(free)(NULL);  // free(NULL) is a no-op on both, as free()
  void *c = CUDA(alloc)(256);
  assert_non_null(c);
  CUDA(free)(c);
  assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
}

static void case_upload(void) {
  const int64_t sizes[] = {0, 1, 3, 4099};
  for (size_t i = 0; i < N_OF(sizes); i++) {
    int64_t n = sizes[i];
    tens src = t_rand(n, 1, 0, 0), dh = t_out(n, 0);
    float *dc = CUDA(alloc)(sizeof(float) * (size_t)(n ? n : 1));
    assert_non_null(dc);
    BOTH(HOST(upload)(NULL, dh.h, src.h, sizeof(float) * (size_t)n),
         CUDA(upload)(NULL, dc, src.h, sizeof(float) * (size_t)n));
    assert_int_equal(cudaMemcpy(dh.d, dc, sizeof(float) * (size_t)n, cudaMemcpyDeviceToDevice),
                     cudaSuccess);
    t_check("upload", &dh);
    CUDA(free)(dc), t_free(&src), t_free(&dh);
  }
}

/* ---- elementwise ---- */

static void case_relu(void) {
  for (size_t s = 0; s < N_OF(EW_N); s++)
    for (int skew = 0; skew <= 4; skew += 4) {
      int64_t n = EW_N[s];
      tens x = t_rand(n, 2, 0, skew), y = t_out(n, skew);
      if (n > 2) x.h[n / 2] = NAN, t_upload(&x);  // relu keeps NaN
      BOTH(HOST(relu)(NULL, x.h, y.h, n), CUDA(relu)(NULL, x.d, y.d, n));
      t_check("relu", &y);
      t_free(&x), t_free(&y);
    }
}

/* Per-kind parameters that reach each branch of the unary kinds. */
static void unary_params(int kind, double *a, double *b) {
  *a = 0.25, *b = 0;
  if (kind == CL1_UNARY_SOFTPLUS) *a = 1.5, *b = 3;
  if (kind == CL1_UNARY_HARDTANH) *a = -0.5, *b = 0.75;
  if (kind == CL1_UNARY_ELU) *a = 1.3;
  if (kind == CL1_UNARY_DIV_SCALAR) *a = 3;
}

static void case_unary(void) {
  const int64_t sizes[] = {0, 1, 3, 5, 1027, (1 << 20) + 1};
  for (int kind = 0; kind < CL1_UNARY_N; kind++)
    for (size_t s = 0; s < N_OF(sizes); s++) {
      int64_t n = sizes[s];
      int skew = s % 2 ? 4 : 0;
      double a, b;
      unary_params(kind, &a, &b);
      tens x = t_rand(n, 5, 0, skew), y = t_out(n, skew);
      if (n > 4) x.h[1] = 0, x.h[2] = -3, x.h[3] = NAN, t_upload(&x);  // branch points, NaN
      BOTH(HOST(unary)(NULL, (cl1_unary_kind)kind, x.h, y.h, n, a, b),
           CUDA(unary)(NULL, (cl1_unary_kind)kind, x.d, y.d, n, a, b));
      t_check("unary", &y);
      BOTH(HOST(unary)(NULL, (cl1_unary_kind)kind, x.h, x.h, n, a, b),  // in place
           CUDA(unary)(NULL, (cl1_unary_kind)kind, x.d, x.d, n, a, b));
      t_check("unary in place", &x);
      t_free(&x), t_free(&y);
    }
  float v = 1;
  BOTH_REJECT(HOST(unary)(NULL, CL1_UNARY_N, &v, &v, 1, 0, 0),
              CUDA(unary)(NULL, CL1_UNARY_N, &v, &v, 1, 0, 0));
}

static void case_binary(void) {
  for (int kind = 0; kind < CL1_BINARY_N; kind++)
    for (size_t s = 0; s < N_OF(EW_N); s++) {
      int64_t n = EW_N[s];
      int skew = s % 2 ? 4 : 0;
      tens x = t_rand(n, 4, 0, skew), z = t_rand(n, 1, 2, skew), y = t_out(n, skew);
      if (n > 3) z.h[n - 1] = NAN, t_upload(&z);  // min/max propagate NaN
      BOTH(HOST(binary)(NULL, (cl1_binary_kind)kind, x.h, z.h, y.h, n),
           CUDA(binary)(NULL, (cl1_binary_kind)kind, x.d, z.d, y.d, n));
      t_check("binary", &y);
      t_free(&x), t_free(&z), t_free(&y);
    }
}

/* y = x (op) z over `shape` with operands given by their strides. */
static void bcast_case(int nd, const int64_t *shape, const int64_t *xs, int64_t nx,
                       const int64_t *zs, int64_t nz) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= shape[i];
  for (int kind = 0; kind < CL1_BINARY_N; kind++) {
    tens x = t_rand(nx, 3, 0, 0), z = t_rand(nz, 1, 2, 4), y = t_out(n, 0);
    BOTH(HOST(binary_bcast)(NULL, (cl1_binary_kind)kind, x.h, xs, z.h, zs, y.h, nd, shape),
         CUDA(binary_bcast)(NULL, (cl1_binary_kind)kind, x.d, xs, z.d, zs, y.d, nd, shape));
    t_check("binary_bcast", &y);
    t_free(&x), t_free(&z), t_free(&y);
  }
}

static void case_binary_bcast(void) {
  {  // 1-d, a 0-dim z
    const int64_t sh[1] = {1027}, xs[1] = {1}, zs[1] = {0};
    bcast_case(1, sh, xs, 1027, zs, 1);
  }
  {  // per-channel (C, 1, 1) z on (N, C, HW), odd sizes; and empty
    const int64_t sh[3] = {3, 5, 7}, xs[3] = {35, 7, 1}, zs[3] = {0, 1, 0};
    bcast_case(3, sh, xs, 105, zs, 5);
    const int64_t e[3] = {0, 5, 7};
    bcast_case(3, e, xs, 1, zs, 5);
  }
  {  // outer sum (B, 1) + (1, C), a transposed x (2-d)
    const int64_t sh[2] = {33, 17}, xs[2] = {1, 33}, zs[2] = {0, 1};
    bcast_case(2, sh, xs, 33 * 17, zs, 17);
  }
  {  // 4-d and 5-d (the n-d path): a transposed x, a broadcast mask z
    const int64_t sh[4] = {2, 3, 5, 7}, xs[4] = {105, 7, 21, 1}, zs[4] = {0, 35, 7, 1};
    bcast_case(4, sh, xs, 210, zs, 105);
    const int64_t s5[5] = {2, 1, 3, 4, 5}, x5[5] = {60, 0, 20, 5, 1}, z5[5] = {0, 0, 1, 0, 3};
    bcast_case(5, s5, x5, 120, z5, 15);
  }
  {  // one large: 4M elements, z broadcast along the middle
    const int64_t sh[3] = {64, 257, 255}, xs[3] = {257 * 255, 255, 1}, zs[3] = {255, 0, 1};
    bcast_case(3, sh, xs, 64 * 257 * 255, zs, 64 * 255);
  }
  const int64_t sh[1] = {4}, st[1] = {1};
  float v[4] = {0};
  BOTH_REJECT(HOST(binary_bcast)(NULL, CL1_BINARY_ADD, v, st, v, st, v, 0, sh),
              CUDA(binary_bcast)(NULL, CL1_BINARY_ADD, v, st, v, st, v, 0, sh));
  BOTH_REJECT(HOST(binary_bcast)(NULL, CL1_BINARY_N, v, st, v, st, v, 1, sh),
              CUDA(binary_bcast)(NULL, CL1_BINARY_N, v, st, v, st, v, 1, sh));
}

static void case_gelu_tanh(void) {
  for (size_t s = 0; s < N_OF(EW_N); s++) {
    int64_t n = EW_N[s];
    tens x = t_rand(n, 4, 0, s % 2 ? 4 : 0), y = t_out(n, 0);
    BOTH(HOST(gelu_tanh)(NULL, x.h, y.h, n), CUDA(gelu_tanh)(NULL, x.d, y.d, n));
    t_check("gelu_tanh", &y);
    t_free(&x), t_free(&y);
  }
}

static void case_fill(void) {
  const float values[] = {0.f, -0.f, 3.5f, -INFINITY};
  for (size_t v = 0; v < N_OF(values); v++)
    for (size_t s = 0; s < N_OF(EW_N); s++) {
      int64_t n = EW_N[s];
      tens y = t_out(n, s % 2 ? 4 : 0);
      BOTH(HOST(fill)(NULL, y.h, n, values[v]), CUDA(fill)(NULL, y.d, n, values[v]));
      t_check("fill", &y);
      t_free(&y);
    }
}

/* y = x (op) s[c] over (outer, C, inner): bias_add and mul_channel, in place too. */
static void case_bias_add(void) {
  const int64_t sh[][3] = {{0, 3, 2}, {1, 1, 1}, {3, 5, 7}, {2, 16, 1023}, {64, 64, 1025}};
  for (size_t s = 0; s < N_OF(sh); s++) {
    int64_t n = sh[s][0] * sh[s][1] * sh[s][2];
    tens x = t_rand(n, 1, 0, 4), b = t_rand(sh[s][1], 1, 0, 0), y = t_out(n, 0);
    BOTH(HOST(bias_add)(NULL, x.h, b.h, y.h, sh[s][0], sh[s][1], sh[s][2]),
         CUDA(bias_add)(NULL, x.d, b.d, y.d, sh[s][0], sh[s][1], sh[s][2]));
    t_check("bias_add", &y);
    BOTH(HOST(bias_add)(NULL, x.h, b.h, x.h, sh[s][0], sh[s][1], sh[s][2]),
         CUDA(bias_add)(NULL, x.d, b.d, x.d, sh[s][0], sh[s][1], sh[s][2]));
    t_check("bias_add in place", &x);
    t_free(&x), t_free(&b), t_free(&y);
  }
}

static void case_mul_channel(void) {
  const int64_t sh[][3] = {{0, 3, 2}, {1, 1, 1}, {1, 37, 41}, {3, 5, 7}, {2, 1024, 1025}};
  for (size_t s = 0; s < N_OF(sh); s++) {
    int64_t n = sh[s][0] * sh[s][1] * sh[s][2];
    tens x = t_rand(n, 1, 0, 0), c = t_rand(sh[s][1], 2, 0, 4), y = t_out(n, 0);
    BOTH(HOST(mul_channel)(NULL, x.h, c.h, y.h, sh[s][0], sh[s][1], sh[s][2]),
         CUDA(mul_channel)(NULL, x.d, c.d, y.d, sh[s][0], sh[s][1], sh[s][2]));
    t_check("mul_channel", &y);
    t_free(&x), t_free(&c), t_free(&y);
  }
}

/* ---- softmax family and reductions over (outer, red, inner) ---- */

static const int64_t ROWS_COLS[][2] = {{0, 5}, {1, 1}, {3, 5}, {7, 1023}, {2, 4097}, {2, 393217}};

static void case_softmax(void) {
  for (size_t s = 0; s < N_OF(ROWS_COLS); s++) {
    int64_t R = ROWS_COLS[s][0], C = ROWS_COLS[s][1];
    tens x = t_rand(R * C, 8, s == 2 ? 1000.f : 0.f, 0), y = t_out(R * C, 0);
    if (R * C > 2) x.h[1] = -INFINITY, t_upload(&x);  // a masked entry
    BOTH(HOST(softmax)(NULL, x.h, y.h, R, C), CUDA(softmax)(NULL, x.d, y.d, R, C));
    t_check("softmax", &y);
    t_free(&x), t_free(&y);
  }
}

static void case_log_softmax(void) {
  for (size_t s = 0; s < N_OF(ROWS_COLS); s++) {
    int64_t R = ROWS_COLS[s][0], C = ROWS_COLS[s][1];
    tens x = t_rand(R * C, 8, 0, 0), y = t_out(R * C, 0);
    BOTH(HOST(log_softmax)(NULL, x.h, y.h, R, C), CUDA(log_softmax)(NULL, x.d, y.d, R, C));
    t_check("log_softmax", &y);
    t_free(&x), t_free(&y);
  }
}

static const int64_t ORI[][3] = {{1, 1, 1}, {2, 0, 3}, {3, 7, 1}, {2, 5, 3}, {3, 37, 41},
                                 {5, 1000, 1}, {4, 4099, 5}, {2, 3000, 257}};

static void case_sum_dim(void) {
  for (size_t s = 0; s < N_OF(ORI); s++) {
    int64_t O = ORI[s][0], R = ORI[s][1], I = ORI[s][2];
    tens x = t_rand(O * R * I, 1, 0.5f, 0), y = t_out(O * I, 0);
    BOTH(HOST(sum_dim)(NULL, x.h, y.h, O, R, I), CUDA(sum_dim)(NULL, x.d, y.d, O, R, I));
    t_check("sum_dim", &y);
    t_free(&x), t_free(&y);
  }
}

static void case_softmax_dim(void) {
  for (size_t s = 0; s < N_OF(ORI); s++) {
    int64_t O = ORI[s][0], R = ORI[s][1], I = ORI[s][2];
    if (R == 0) continue;  // softmax over an empty dim has no elements to check
    tens x = t_rand(O * R * I, 6, 0, 0), y = t_out(O * R * I, 0);
    BOTH(HOST(softmax_dim)(NULL, x.h, y.h, O, R, I), CUDA(softmax_dim)(NULL, x.d, y.d, O, R, I));
    t_check("softmax_dim", &y);
    t_free(&x), t_free(&y);
  }
}

static void case_logsumexp(void) {
  for (size_t s = 0; s < N_OF(ORI); s++) {
    int64_t O = ORI[s][0], R = ORI[s][1], I = ORI[s][2];
    if (R == 0) continue;  // red >= 1 (PyTorch raises)
    tens x = t_rand(O * R * I, 6, 0, 0), y = t_out(O * I, 0);
    if (I == 1 && O > 1)  // a row of -inf gives -inf, one +inf gives +inf
      for (int64_t k = 0; k < R; k++) x.h[k] = -INFINITY, x.h[R + k] = k ? 1.f : INFINITY;
    t_upload(&x);
    BOTH(HOST(logsumexp)(NULL, x.h, y.h, O, R, I), CUDA(logsumexp)(NULL, x.d, y.d, O, R, I));
    t_check("logsumexp", &y);
    t_free(&x), t_free(&y);
  }
}

static void case_reduce(void) {
  for (int kind = 0; kind < CL1_REDUCE_N; kind++)
    for (size_t s = 0; s < N_OF(ORI); s++) {
      int64_t O = ORI[s][0], R = ORI[s][1], I = ORI[s][2], n = O * R * I;
      int arg = kind == CL1_REDUCE_ARGMAX || kind == CL1_REDUCE_ARGMIN;
      if (R == 0 && kind != CL1_REDUCE_SUM && kind != CL1_REDUCE_MEAN) continue;
      tens x = t_rand(n, 1, 0, 0);
      for (int64_t i = 0; i < n; i += 7) x.h[i] = 0.25f;  // ties: the first index wins
      if (n > 10) x.h[n / 2] = NAN;
      t_upload(&x);
      if (!arg) {
        tens y = t_out(O * I, 0);
        BOTH(HOST(reduce)(NULL, kind, x.h, y.h, O, R, I), CUDA(reduce)(NULL, kind, x.d, y.d, O, R, I));
        t_check_scaled("reduce", &y, kind <= CL1_REDUCE_MEAN ? 1 : 0);  // max/min exact
        t_free(&y);
      } else {
        int64_t *yh = malloc(sizeof(int64_t) * (size_t)(O * I + 1)), *yd = d_i64(NULL, O * I);
        int64_t *got = malloc(sizeof(int64_t) * (size_t)(O * I + 1));
        BOTH(HOST(reduce)(NULL, kind, x.h, yh, O, R, I), CUDA(reduce)(NULL, kind, x.d, yd, O, R, I));
        assert_int_equal(cudaMemcpy(got, yd, sizeof(int64_t) * (size_t)(O * I), cudaMemcpyDeviceToHost),
                         cudaSuccess);
        for (int64_t i = 0; i < O * I; i++)
          if (got[i] != yh[i]) fail_msg("reduce %d: out %lld: cuda %lld host %lld", kind,
                                        (long long)i, (long long)got[i], (long long)yh[i]);
        free(yh), free(got), cudaFree(yd);
      }
      t_free(&x);
    }
}

static void case_normalize(void) {
  for (int kind = 0; kind < CL1_NORM_N; kind++)
    for (size_t s = 0; s < N_OF(ORI); s++) {
      int64_t O = ORI[s][0], R = ORI[s][1], I = ORI[s][2];
      if (R == 0) continue;
      tens x = t_rand(O * R * I, 2, 0.1f, 0), y = t_out(O * R * I, 0);
      BOTH(HOST(normalize)(NULL, kind, x.h, y.h, O, R, I, 1e-5),
           CUDA(normalize)(NULL, kind, x.d, y.d, O, R, I, 1e-5));
      t_check("normalize", &y);
      t_free(&x), t_free(&y);
    }
}

static void case_layernorm(void) {
  const int64_t sh[][2] = {{0, 4}, {1, 1}, {3, 7}, {33, 1}, {5, 1025}, {129, 37}, {2, 70001}};
  for (size_t s = 0; s < N_OF(sh); s++)
    for (int affine = 0; affine < 2; affine++) {
      int64_t R = sh[s][0], C = sh[s][1];
      tens x = t_rand(R * C, 1, 0.5f, 0), w = t_rand(C, 0.5f, 1, 0), b = t_rand(C, 1, 0, 0);
      tens y = t_out(R * C, 0);
      BOTH(HOST(layernorm)(NULL, x.h, affine ? w.h : NULL, affine ? b.h : NULL, y.h, R, C, 1e-5),
           CUDA(layernorm)(NULL, x.d, affine ? w.d : NULL, affine ? b.d : NULL, y.d, R, C, 1e-5));
      t_check("layernorm", &y);
      t_free(&x), t_free(&w), t_free(&b), t_free(&y);
    }
}

static void case_batchnorm_train(void) {
  // no empty batch: a batch statistic over no elements is undefined (PyTorch raises)
  const int64_t sh[][3] = {{1, 5, 1}, {37, 33, 1}, {5, 7, 3}, {16, 64, 300}, {4, 3, 5000}};
  for (size_t s = 0; s < N_OF(sh); s++) {
    int64_t N = sh[s][0], C = sh[s][1], HW = sh[s][2], n = N * C * HW;
    tens x = t_rand(n, 1, 0, 0), w = t_rand(C, 0.5f, 1, 0), b = t_rand(C, 1, 0, 0), y = t_out(n, 0);
    BOTH(HOST(batchnorm_train)(NULL, x.h, w.h, b.h, y.h, N, C, HW, 1e-5),
         CUDA(batchnorm_train)(NULL, x.d, w.d, b.d, y.d, N, C, HW, 1e-5));
    t_check("batchnorm_train", &y);
    t_free(&x), t_free(&w), t_free(&b), t_free(&y);
  }
}

static void case_groupnorm(void) {
  const int64_t sh[][4] = {{1, 1, 1, 1}, {3, 15, 1, 5}, {2, 6, 7, 6}, {2, 8, 256, 2}, {2, 4, 1031, 1}};
  for (size_t s = 0; s < N_OF(sh); s++)
    for (int affine = 0; affine < 2; affine++) {
      int64_t N = sh[s][0], C = sh[s][1], HW = sh[s][2], G = sh[s][3], n = N * C * HW;
      tens x = t_rand(n, 1, 0.5f, 0), w = t_rand(C, 0.5f, 1, 0), b = t_rand(C, 1, 0, 0);
      tens y = t_out(n, 0);
      BOTH(HOST(groupnorm)(NULL, x.h, affine ? w.h : NULL, affine ? b.h : NULL, y.h, N, C, HW, G, 1e-5),
           CUDA(groupnorm)(NULL, x.d, affine ? w.d : NULL, affine ? b.d : NULL, y.d, N, C, HW, G, 1e-5));
      t_check("groupnorm", &y);
      t_free(&x), t_free(&w), t_free(&b), t_free(&y);
    }
}

#include "ops_gpu_cases2.h"
