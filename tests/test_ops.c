/* test_ops.c — the host op library (build/libcl1ops_host.so, loaded with dlopen because the test
 * binaries do not link it) against naive references written here, on small random data
 * including edge sizes: empty, single element, odd lengths, padding/stride/dilation/groups. */
#define OPS_SEED 88172645463325252ull
#include "ops_host.h"
#include <dlfcn.h>
#include <math.h>
#include "cudal1/ops.h"


static float *rnd(int64_t n, float scale, float offset) {
  float *p = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
  assert_non_null(p);
  for (int64_t i = 0; i < n; i++) p[i] = offset + scale * frand();
  return p;
}

static void test_relu(void **state) {
  (void)state;
  __typeof__(&cl1_op_relu) f = OP(cl1_op_relu);
  int64_t sizes[] = {0, 1, 7, 1000, 4099};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    int64_t n = sizes[s];
    float *x = rnd(n, 1, 0), *y = poisoned(n);
    double *w = malloc(sizeof(double) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++) w[i] = x[i] > 0 ? x[i] : 0;
    assert_int_equal(f(NULL, x, y, n), 0);
    close_all("relu", y, w, n, 0, 0);
    assert_int_equal(f(NULL, x, x, n), 0);  // in place
    close_all("relu in place", x, w, n, 0, 0);
    free(x), free(y), free(w);
  }
  float v[1] = {NAN}, o[1];
  assert_int_equal(f(NULL, v, o, 1), 0);
  assert_true(isnan(o[0]));  // torch.relu keeps NaN
  assert_int_not_equal(f(NULL, v, o, -1), 0);
}

static void test_softmax(void **state) {
  (void)state;
  __typeof__(&cl1_op_softmax) f = OP(cl1_op_softmax);
  int64_t shapes[][2] = {{1, 1}, {3, 5}, {4, 1001}, {2, 4096}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    int64_t R = shapes[s][0], C = shapes[s][1];
    float *x = rnd(R * C, 20, s == 3 ? 500.f : 0.f), *y = poisoned(R * C);  // offset: stability
    double *w = malloc(sizeof(double) * (size_t)(R * C));
    for (int64_t r = 0; r < R; r++) {
      double m = -INFINITY, z = 0;
      for (int64_t j = 0; j < C; j++) m = fmax(m, x[r * C + j]);
      for (int64_t j = 0; j < C; j++) z += exp(x[r * C + j] - m);
      for (int64_t j = 0; j < C; j++) w[r * C + j] = exp(x[r * C + j] - m) / z;
    }
    assert_int_equal(f(NULL, x, y, R, C), 0);
    close_all("softmax", y, w, R * C, 1e-12, 1e-6);
    for (int64_t r = 0; r < R; r++) {
      double t = 0;
      for (int64_t j = 0; j < C; j++) t += y[r * C + j];
      assert_true(fabs(t - 1.0) < 1e-4);
    }
    free(x), free(y), free(w);
  }
  assert_int_equal(f(NULL, NULL, NULL, 0, 5), 0);
  assert_int_not_equal(f(NULL, NULL, NULL, -1, 5), 0);
}

static void test_sum_dim(void **state) {
  (void)state;
  __typeof__(&cl1_op_sum_dim) f = OP(cl1_op_sum_dim);
  int64_t shapes[][3] = {{1, 1, 1}, {3, 37, 41}, {1, 100, 1}, {5, 1, 7}, {2, 0, 3}, {4, 9, 1}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    int64_t O = shapes[s][0], R = shapes[s][1], I = shapes[s][2];
    float *x = rnd(O * R * I, 1, 0.5f), *y = poisoned(O * I);
    double *w = calloc((size_t)(O * I), sizeof(double));
    for (int64_t o = 0; o < O; o++)
      for (int64_t i = 0; i < I; i++)
        for (int64_t r = 0; r < R; r++) w[o * I + i] += x[(o * R + r) * I + i];
    assert_int_equal(f(NULL, x, y, O, R, I), 0);
    close_all("sum_dim", y, w, O * I, 1e-6, 1e-6);
    free(x), free(y), free(w);
  }
}

static void test_layernorm(void **state) {
  (void)state;
  __typeof__(&cl1_op_layernorm) f = OP(cl1_op_layernorm);
  int64_t shapes[][2] = {{1, 1}, {3, 1360}, {2, 7}, {16, 64}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    int64_t R = shapes[s][0], C = shapes[s][1];
    // the last shape sits on a large mean: a naive E[x^2] - E[x]^2 in float would lose it
    float *x = rnd(R * C, 1, s == 3 ? 1e4f : 0.f), *g = rnd(C, 0.5f, 1), *b = rnd(C, 1, 0);
    float *y = poisoned(R * C), *y2 = poisoned(R * C);
    double *w = malloc(sizeof(double) * (size_t)(R * C)), *w2 = malloc(sizeof(double) * (size_t)(R * C));
    double eps = 1e-5;
    for (int64_t r = 0; r < R; r++) {
      double m = 0, v = 0;
      for (int64_t j = 0; j < C; j++) m += x[r * C + j];
      m /= (double)C;
      for (int64_t j = 0; j < C; j++) v += (x[r * C + j] - m) * (x[r * C + j] - m);
      v /= (double)C;
      for (int64_t j = 0; j < C; j++) {
        double n = (x[r * C + j] - m) / sqrt(v + eps);
        w[r * C + j] = n * g[j] + b[j];
        w2[r * C + j] = n;
      }
    }
    assert_int_equal(f(NULL, x, g, b, y, R, C, eps), 0);
    close_all("layernorm", y, w, R * C, 1e-5, 1e-5);
    assert_int_equal(f(NULL, x, NULL, NULL, y2, R, C, eps), 0);  // no affine
    close_all("layernorm (no affine)", y2, w2, R * C, 1e-5, 1e-5);
    free(x), free(g), free(b), free(y), free(y2), free(w), free(w2);
  }
}

static void test_matmul_linear(void **state) {
  (void)state;
  __typeof__(&cl1_op_matmul) mm = OP(cl1_op_matmul);
  __typeof__(&cl1_op_linear) lin = OP(cl1_op_linear);
  int64_t shapes[][3] = {{1, 1, 1}, {5, 7, 3}, {67, 67, 67}, {9, 37, 131}, {4, 3, 0}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    int64_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
    float *A = rnd(M * K, 1, 0), *B = rnd(K * N, 1, 0), *W = rnd(N * K, 1, 0), *bias = rnd(N, 1, 0);
    float *C = poisoned(M * N), *Y = poisoned(M * N), *Y0 = poisoned(M * N);
    double *wc = calloc((size_t)(M * N), sizeof(double)), *wy = calloc((size_t)(M * N), sizeof(double));
    double *wy0 = calloc((size_t)(M * N), sizeof(double));
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) {
        for (int64_t k = 0; k < K; k++) {
          wc[i * N + j] += (double)A[i * K + k] * B[k * N + j];
          wy0[i * N + j] += (double)A[i * K + k] * W[j * K + k];
        }
        wy[i * N + j] = wy0[i * N + j] + bias[j];
      }
    assert_int_equal(mm(NULL, A, B, C, M, N, K), 0);
    close_all("matmul", C, wc, M * N, 1e-5, 1e-6);
    assert_int_equal(lin(NULL, A, 0, W, bias, Y, M, N, K), 0);
    close_all("linear", Y, wy, M * N, 1e-5, 1e-6);
    assert_int_equal(lin(NULL, A, 0, W, NULL, Y0, M, N, K), 0);
    close_all("linear (no bias)", Y0, wy0, M * N, 1e-5, 1e-6);
    free(A), free(B), free(W), free(bias), free(C), free(Y), free(Y0), free(wc), free(wy), free(wy0);
  }
  assert_int_not_equal(mm(NULL, NULL, NULL, NULL, -1, 2, 2), 0);
}

static void test_bias_add(void **state) {
  (void)state;
  __typeof__(&cl1_op_bias_add) f = OP(cl1_op_bias_add);
  int64_t shapes[][3] = {{1, 1, 1}, {9, 37, 1}, {2, 6, 169}, {3, 5, 0}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    int64_t O = shapes[s][0], C = shapes[s][1], I = shapes[s][2], n = O * C * I;
    float *x = rnd(n, 1, 0), *b = rnd(C, 1, 0), *y = poisoned(n);
    double *w = malloc(sizeof(double) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++) w[i] = (double)(float)(x[i] + b[(i / I) % C]);
    assert_int_equal(f(NULL, x, b, y, O, C, I), 0);
    close_all("bias_add", y, w, n, 0, 0);
    assert_int_equal(f(NULL, x, b, x, O, C, I), 0);
    close_all("bias_add in place", x, w, n, 0, 0);
    free(x), free(b), free(y), free(w);
  }
}

static void test_conv2d(void **state) {
  (void)state;
  __typeof__(&cl1_op_conv2d) f = OP(cl1_op_conv2d);
  cl1_conv2d_desc ds[] = {
      {.n = 2, .c = 3, .h = 17, .w = 17, .k = 8, .r = 3, .s = 3, .stride_h = 1, .stride_w = 1,
       .dil_h = 1, .dil_w = 1, .groups = 1},
      {.n = 1, .c = 4, .h = 9, .w = 11, .k = 6, .r = 3, .s = 2, .stride_h = 2, .stride_w = 3,
       .pad_h = 1, .pad_w = 2, .dil_h = 2, .dil_w = 1, .groups = 2},
      {.n = 3, .c = 1, .h = 1, .w = 1, .k = 1, .r = 1, .s = 1, .stride_h = 1, .stride_w = 1,
       .dil_h = 1, .dil_w = 1, .groups = 1},
      {.n = 1, .c = 4, .h = 5, .w = 5, .k = 4, .r = 5, .s = 5, .stride_h = 1, .stride_w = 1,
       .pad_h = 2, .pad_w = 2, .dil_h = 1, .dil_w = 1, .groups = 4},
  };
  for (size_t s = 0; s < sizeof ds / sizeof *ds; s++) {
    const cl1_conv2d_desc *d = &ds[s];
    int64_t oh = cl1_conv2d_out_h(d), ow = cl1_conv2d_out_w(d), cg = d->c / d->groups;
    int64_t nx = d->n * d->c * d->h * d->w, nw = d->k * cg * d->r * d->s, ny = d->n * d->k * oh * ow;
    float *x = rnd(nx, 1, 0), *w = rnd(nw, 1, 0), *b = rnd(d->k, 1, 0), *y = poisoned(ny);
    double *want = malloc(sizeof(double) * (size_t)ny);
    // naive: loop over every output and every weight tap, bounds-checked by padding
    for (int64_t n = 0; n < d->n; n++)
      for (int64_t k = 0; k < d->k; k++)
        for (int64_t p = 0; p < oh; p++)
          for (int64_t q = 0; q < ow; q++) {
            double acc = b[k];
            int64_t g = k / (d->k / d->groups);
            for (int64_t c = 0; c < cg; c++)
              for (int64_t r = 0; r < d->r; r++)
                for (int64_t t = 0; t < d->s; t++) {
                  int64_t ih = p * d->stride_h - d->pad_h + r * d->dil_h;
                  int64_t iw = q * d->stride_w - d->pad_w + t * d->dil_w;
                  double xv = (ih >= 0 && ih < d->h && iw >= 0 && iw < d->w)
                                  ? x[((n * d->c + g * cg + c) * d->h + ih) * d->w + iw] : 0.0;
                  acc += xv * w[((k * cg + c) * d->r + r) * d->s + t];
                }
            want[((n * d->k + k) * oh + p) * ow + q] = acc;
          }
    assert_int_equal(f(NULL, x, w, b, y, d), 0);
    close_all("conv2d", y, want, ny, 1e-5, 1e-6);
    free(x), free(w), free(b), free(y), free(want);
  }
  cl1_conv2d_desc bad = ds[0];
  bad.groups = 2;  // 3 channels do not split into 2 groups
  float one = 1;
  assert_int_not_equal(f(NULL, &one, &one, NULL, &one, &bad), 0);
}


/* Intermediates memory: aligned, writable, distinct blocks, zero bytes allowed. */
static void test_alloc(void **state) {
  (void)state;
  __typeof__(&cl1_op_alloc) a = OP(cl1_op_alloc);
  __typeof__(&cl1_op_free) f = OP(cl1_op_free);
  unsigned char *p = a(1 << 20), *q = a(0);
  assert_non_null(p);
  assert_non_null(q);
  assert_true(p != q);
  assert_int_equal((uintptr_t)p % 256, 0);
  memset(p, 0x5A, 1 << 20);
  assert_int_equal(p[(1 << 20) - 1], 0x5A);
  f(p);
  f(q);
  f(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_alloc),
      cmocka_unit_test(test_relu),          cmocka_unit_test(test_softmax),
      cmocka_unit_test(test_sum_dim),       cmocka_unit_test(test_layernorm),
      cmocka_unit_test(test_matmul_linear), cmocka_unit_test(test_bias_add),
      cmocka_unit_test(test_conv2d),
  };
  return cmocka_run_group_tests_name("ops_host", tests, setup_lib, NULL);
}
