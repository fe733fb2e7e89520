/* ops_gpu_cases2.h — the rest of test_ops_gpu.c's case functions (see ops_gpu_cases.h): GEMMs,
 * convolutions, pooling, scans and losses, attention, data movement and the recurrent layers.
 * GEMM-like tolerances grow with sqrt(K): FP32 summation order differs between the backends. */

/* ---- GEMMs ---- */

static const int64_t MNK[][3] = {{0, 3, 2}, {1, 1, 1}, {3, 5, 0}, {7, 9, 13},
                                 {5, 1, 131}, {67, 67, 67}, {130, 257, 300}};

static void case_matmul(void) {
  for (size_t s = 0; s < N_OF(MNK); s++) {
    int64_t M = MNK[s][0], N = MNK[s][1], K = MNK[s][2];
    tens A = t_rand(M * K, 1, 0, 0), B = t_rand(K * N, 1, 0, 4), C = t_out(M * N, 0);
    BOTH(HOST(matmul)(NULL, A.h, B.h, C.h, M, N, K), CUDA(matmul)(NULL, A.d, B.d, C.d, M, N, K));
    t_check_scaled("matmul", &C, sqrt((double)K + 1));
    t_free(&A), t_free(&B), t_free(&C);
  }
}

/* contiguous x (ldx 0 and K), a row-strided view (ldx > K), with and without bias */
static void case_linear(void) {
  for (size_t s = 0; s < N_OF(MNK); s++)
    for (int v = 0; v < 4; v++) {
      int64_t M = MNK[s][0], N = MNK[s][1], K = MNK[s][2];
      int64_t ldx = v == 0 ? 0 : v == 1 ? K : K + 3, rows = ldx ? ldx : K;
      tens x = t_rand(M * rows, 1, 0, 0), W = t_rand(N * K, 1, 0, 0), b = t_rand(N, 1, 0, 0);
      tens y = t_out(M * N, 0);
      int bias = v != 3;
      BOTH(HOST(linear)(NULL, x.h, ldx, W.h, bias ? b.h : NULL, y.h, M, N, K),
           CUDA(linear)(NULL, x.d, ldx, W.d, bias ? b.d : NULL, y.d, M, N, K));
      t_check_scaled("linear", &y, sqrt((double)K + 1));
      t_free(&x), t_free(&W), t_free(&b), t_free(&y);
    }
  float v = 0;
  BOTH_REJECT(HOST(linear)(NULL, &v, 1, &v, NULL, &v, 1, 1, 2),  // ldx < K: rows overlap
              CUDA(linear)(NULL, &v, 1, &v, NULL, &v, 1, 1, 2));
}

static void case_gemm_ex(void) {
  const int64_t sh[][4] = {{1, 1, 1, 1}, {7, 9, 13, 3}, {33, 17, 65, 2}, {3, 5, 0, 2}, {0, 4, 4, 2}};
  for (size_t s = 0; s < N_OF(sh); s++)
    for (int t = 0; t < 8; t++) {  // trans_a, trans_b, broadcast B
      int64_t M = sh[s][0], N = sh[s][1], K = sh[s][2], bt = sh[s][3];
      int ta = t & 1, tb = (t >> 1) & 1, bcast = (t >> 2) & 1;
      tens A = t_rand(bt * M * K, 1, 0, 0), B = t_rand(bt * K * N, 1, 0, 0), C = t_out(bt * M * N, 0);
      int64_t sb = bcast ? 0 : K * N;
      BOTH(HOST(gemm_ex)(NULL, ta, tb, A.h, B.h, C.h, M, N, K, bt, M * K, sb, M * N),
           CUDA(gemm_ex)(NULL, ta, tb, A.d, B.d, C.d, M, N, K, bt, M * K, sb, M * N));
      t_check_scaled("gemm_ex", &C, sqrt((double)K + 1));
      t_free(&A), t_free(&B), t_free(&C);
    }
}

static void case_tri(void) {
  const int64_t sh[][4] = {{1, 1, 1, 0}, {2, 5, 7, 1}, {3, 7, 5, -2}, {1, 1025, 1023, 0}, {0, 3, 3, 0}};
  for (size_t s = 0; s < N_OF(sh); s++)
    for (int upper = 0; upper < 2; upper++) {
      int64_t n = sh[s][0] * sh[s][1] * sh[s][2];
      tens x = t_rand(n, 1, 0, 0), y = t_out(n, 0);
      if (n > 1) x.h[1] = NAN, t_upload(&x);  // masked NaN becomes 0
      BOTH(HOST(tri)(NULL, x.h, y.h, sh[s][0], sh[s][1], sh[s][2], upper, sh[s][3]),
           CUDA(tri)(NULL, x.d, y.d, sh[s][0], sh[s][1], sh[s][2], upper, sh[s][3]));
      t_check("tri", &y);
      BOTH(HOST(tri_fill)(NULL, x.h, x.h, sh[s][0], sh[s][1], sh[s][2], upper, sh[s][3], -INFINITY),
           CUDA(tri_fill)(NULL, x.d, x.d, sh[s][0], sh[s][1], sh[s][2], upper, sh[s][3], -INFINITY));
      t_check("tri_fill in place", &x);
      t_free(&x), t_free(&y);
    }
}

static void case_tri_fill(void) {
  const int64_t sh[][3] = {{1, 1, 1}, {4, 64, 64}, {2, 7, 9}, {0, 2, 2}};
  for (size_t s = 0; s < N_OF(sh); s++)
    for (int64_t diag = -1; diag <= 1; diag++) {
      int64_t n = sh[s][0] * sh[s][1] * sh[s][2];
      tens x = t_rand(n, 1, 0, 0), y = t_out(n, 0);
      BOTH(HOST(tri_fill)(NULL, x.h, y.h, sh[s][0], sh[s][1], sh[s][2], 0, diag, -7.5f),
           CUDA(tri_fill)(NULL, x.d, y.d, sh[s][0], sh[s][1], sh[s][2], 0, diag, -7.5f));
      t_check("tri_fill", &y);
      t_free(&x), t_free(&y);
    }
}

/* ---- convolutions and pooling ---- */

static void case_conv2d(void) {
  const cl1_conv2d_desc ds[] = {
      {.n = 1, .c = 1, .h = 1, .w = 1, .k = 1, .r = 1, .s = 1, .stride_h = 1, .stride_w = 1, .dil_h = 1, .dil_w = 1, .groups = 1},
      {.n = 2, .c = 3, .h = 17, .w = 13, .k = 5, .r = 3, .s = 3, .stride_h = 1, .stride_w = 1, .pad_h = 1, .pad_w = 1, .dil_h = 1, .dil_w = 1, .groups = 1},
      {.n = 1, .c = 4, .h = 9, .w = 11, .k = 6, .r = 3, .s = 2, .stride_h = 2, .stride_w = 3, .pad_h = 1, .pad_w = 2, .dil_h = 2, .dil_w = 1, .groups = 2},
      {.n = 3, .c = 6, .h = 15, .w = 15, .k = 6, .r = 3, .s = 3, .stride_h = 2, .stride_w = 2, .pad_h = 1, .pad_w = 1, .dil_h = 1, .dil_w = 1, .groups = 6},
  };
  for (size_t s = 0; s < N_OF(ds); s++)
    for (int bias = 0; bias < 2; bias++) {
      const cl1_conv2d_desc *d = &ds[s];
      int64_t nx = d->n * d->c * d->h * d->w, nw = d->k * (d->c / d->groups) * d->r * d->s;
      int64_t ny = d->n * d->k * cl1_conv2d_out_h(d) * cl1_conv2d_out_w(d);
      tens x = t_rand(nx, 1, 0, 0), w = t_rand(nw, 0.3f, 0, 0), b = t_rand(d->k, 1, 0, 0);
      tens y = t_out(ny, 0);
      BOTH(HOST(conv2d)(NULL, x.h, w.h, bias ? b.h : NULL, y.h, d),
           CUDA(conv2d)(NULL, x.d, w.d, bias ? b.d : NULL, y.d, d));
      t_check("conv2d", &y);  // TF32 allowed, as PyTorch
      t_free(&x), t_free(&w), t_free(&b), t_free(&y);
    }
}

static void case_convnd(void) {
  const cl1_convnd_desc ds[] = {
      {.nd = 1, .n = 1, .c = 1, .k = 1, .groups = 1, .in = {1}, .ker = {1}, .stride = {1}, .pad = {0}, .dil = {1}, .no_tf32 = 1},
      {.nd = 1, .n = 4, .c = 6, .k = 10, .groups = 2, .in = {77}, .ker = {5}, .stride = {2}, .pad = {1}, .dil = {2}, .no_tf32 = 1},
      {.nd = 2, .n = 2, .c = 3, .k = 6, .groups = 3, .in = {17, 19}, .ker = {3, 5}, .stride = {2, 3}, .pad = {1, 2}, .dil = {2, 1}, .no_tf32 = 1},
      {.nd = 2, .n = 2, .c = 8, .k = 16, .groups = 1, .in = {19, 23}, .ker = {3, 5}, .stride = {1, 2}, .pad = {1, 2}, .dil = {1, 1}, .no_tf32 = 1},
      {.nd = 3, .n = 2, .c = 4, .k = 8, .groups = 1, .in = {9, 10, 11}, .ker = {3, 3, 3}, .stride = {1, 1, 1}, .pad = {0, 1, 0}, .dil = {1, 1, 1}, .no_tf32 = 0},
  };
  for (size_t s = 0; s < N_OF(ds); s++) {
    const cl1_convnd_desc *d = &ds[s];
    int64_t in = 1, out = 1, ker = 1;
    for (int i = 0; i < d->nd; i++) in *= d->in[i], out *= cl1_convnd_out(d, i), ker *= d->ker[i];
    tens x = t_rand(d->n * d->c * in, 1, 0, 0), w = t_rand(d->k * (d->c / d->groups) * ker, 0.3f, 0, 0);
    tens b = t_rand(d->k, 1, 0, 0), y = t_out(d->n * d->k * out, 0);
    BOTH(HOST(convnd)(NULL, x.h, w.h, b.h, y.h, d), CUDA(convnd)(NULL, x.d, w.d, b.d, y.d, d));
    t_check_scaled("convnd", &y, d->no_tf32 ? 1 : 1e3);  // TF32: 1e-2
    t_free(&x), t_free(&w), t_free(&b), t_free(&y);
  }
}

static void case_convtnd(void) {
  const cl1_convt_desc ds[] = {
      {.nd = 1, .n = 1, .c_in = 1, .c_out = 1, .in = {1}, .k = {1}, .stride = {1}, .pad = {0}, .out_pad = {0}, .dil = {1}, .groups = 1, .no_tf32 = 1},
      {.nd = 1, .n = 3, .c_in = 4, .c_out = 6, .in = {33}, .k = {4}, .stride = {2}, .pad = {1}, .out_pad = {1}, .dil = {1}, .groups = 2, .no_tf32 = 1},
      {.nd = 2, .n = 2, .c_in = 8, .c_out = 5, .in = {13, 9}, .k = {3, 5}, .stride = {2, 3}, .pad = {1, 2}, .out_pad = {1, 0}, .dil = {1, 2}, .groups = 1, .no_tf32 = 1},
      {.nd = 3, .n = 2, .c_in = 4, .c_out = 4, .in = {5, 6, 7}, .k = {3, 3, 3}, .stride = {2, 2, 2}, .pad = {1, 1, 1}, .out_pad = {0, 1, 0}, .dil = {1, 1, 1}, .groups = 1, .no_tf32 = 0},
  };
  for (size_t s = 0; s < N_OF(ds); s++)
    for (int bias = 0; bias < 2; bias++) {
      const cl1_convt_desc *d = &ds[s];
      int64_t in = 1, out = 1, ker = 1;
      for (int i = 0; i < d->nd; i++) in *= d->in[i], out *= cl1_convt_out(d, i), ker *= d->k[i];
      tens x = t_rand(d->n * d->c_in * in, 1, 0, 0);
      tens w = t_rand(d->c_in * (d->c_out / d->groups) * ker, 0.3f, 0, 0);
      tens b = t_rand(d->c_out, 1, 0, 0), y = t_out(d->n * d->c_out * out, 0);
      BOTH(HOST(convtnd)(NULL, x.h, w.h, bias ? b.h : NULL, y.h, d),
           CUDA(convtnd)(NULL, x.d, w.d, bias ? b.d : NULL, y.d, d));
      t_check_scaled("convtnd", &y, d->no_tf32 ? 1 : 1e3);
      t_free(&x), t_free(&w), t_free(&b), t_free(&y);
    }
}

static void pool_case(int kind, int nsp, const int64_t *in, int64_t k, int64_t s, int64_t p,
                      int64_t dil, int ceil_mode, int count_pad) {
  cl1_pool_desc d = {.nsp = nsp, .planes = 6, .ceil_mode = ceil_mode, .count_include_pad = count_pad};
  int64_t nin = d.planes, nout = d.planes;
  for (int i = 0; i < nsp; i++) {
    d.in[i] = in[i], d.k[i] = k, d.stride[i] = s, d.pad[i] = p, d.dil[i] = dil;
    d.out[i] = cl1_pool_out_len(in[i], k, s, p, dil, ceil_mode);
    nin *= in[i], nout *= d.out[i];
  }
  assert_int_equal(cl1_pool_desc_check(kind, &d), 0);
  tens x = t_rand(nin, 3, 0, 0), y = t_out(nout, 0);
  BOTH(HOST(pool)(NULL, kind, x.h, y.h, &d), CUDA(pool)(NULL, kind, x.d, y.d, &d));
  t_check("pool", &y);
  t_free(&x), t_free(&y);
}

static void case_pool(void) {
  const int64_t l1[1] = {31}, l2[2] = {17, 12}, l3[3] = {7, 8, 9}, one[3] = {1, 1, 1};
  for (int kind = 0; kind < CL1_POOL_N; kind++) {
    int64_t dil = kind == CL1_POOL_MAX ? 2 : 1;
    pool_case(kind, 1, one, 1, 1, 0, 1, 0, 1);
    pool_case(kind, 1, l1, 4, 3, 1, dil, 1, 0);
    pool_case(kind, 2, l2, 3, 2, 1, 1, 0, 1);
    pool_case(kind, 2, l2, 3, 2, 1, 1, 1, 0);
    pool_case(kind, 3, l3, 3, 2, 1, dil, 0, 1);
  }
}

/* ---- scans, losses, attention ---- */

static void case_scan(void) {
  const int64_t sh[][3] = {{1, 1, 1}, {2, 0, 3}, {3, 7, 1}, {2, 33, 5}, {1, 4099, 1}, {4, 1000, 17}};
  for (int kind = 0; kind < CL1_SCAN_N; kind++)
    for (size_t s = 0; s < N_OF(sh); s++)
      for (int f = 0; f < 8; f++) {  // reverse, exclusive, mask
        int64_t O = sh[s][0], n = sh[s][1], I = sh[s][2], all = O * n * I;
        int rev = f & 1, exc = (f >> 1) & 1, masked = (f >> 2) & 1;
        // cumprod: factors near 1 so that long products stay finite and comparable
        tens x = t_rand(all, kind == CL1_SCAN_PROD ? 0.01f : 1, kind == CL1_SCAN_PROD ? 1 : 0, 0);
        tens y = t_out(all, 0);
        uint8_t *mh = malloc((size_t)(all + 1)), *md = NULL;
        for (int64_t i = 0; i < all; i++) mh[i] = (uint8_t)(i % 3 != 1);
        assert_int_equal(cudaMalloc((void **)&md, (size_t)(all + 1)), cudaSuccess);
        assert_int_equal(cudaMemcpy(md, mh, (size_t)all, cudaMemcpyHostToDevice), cudaSuccess);
        BOTH(HOST(scan)(NULL, kind, x.h, masked ? mh : NULL, y.h, O, n, I, rev, exc),
             CUDA(scan)(NULL, kind, x.d, masked ? md : NULL, y.d, O, n, I, rev, exc));
        t_check_scaled("scan", &y, sqrt((double)n + 1));  // rounding grows along the scan
        free(mh), cudaFree(md), t_free(&x), t_free(&y);
      }
}

static void case_loss(void) {
  const int64_t sh[][2] = {{1, 1}, {3, 5}, {7, 1023}, {128, 4097}};
  for (int kind = 0; kind < CL1_LOSS_N; kind++)
    for (size_t s = 0; s < N_OF(sh); s++) {
      int64_t R = sh[s][0], C = sh[s][1], nb = kind == CL1_LOSS_HINGE ? C : R * C;
      int kl = kind == CL1_LOSS_KL_DIV;  // probabilities: positive
      tens a = t_rand(R * C, kl ? 0.4f : 1, kl ? 0.5f : 0, 0), b = t_rand(nb, kl ? 0.4f : 1, kl ? 0.5f : 0, 0);
      tens c = t_rand(R * C, 1, 0, 0), y = t_out(1, 0);
      if (kind == CL1_LOSS_HINGE)
        for (int64_t j = 0; j < C; j++) b.h[j] = b.h[j] < 0 ? -1.f : 1.f;
      t_upload(&b);
      BOTH(HOST(loss)(NULL, kind, a.h, b.h, c.h, y.h, R, C, 0.7),
           CUDA(loss)(NULL, kind, a.d, b.d, c.d, y.d, R, C, 0.7));
      t_check("loss", &y);
      t_free(&a), t_free(&b), t_free(&c), t_free(&y);
    }
}

static void case_cross_entropy(void) {
  const int64_t sh[][2] = {{1, 1}, {3, 5}, {7, 1023}, {4096, 10}, {2, 40001}};
  for (size_t s = 0; s < N_OF(sh); s++) {
    int64_t R = sh[s][0], C = sh[s][1];
    tens x = t_rand(R * C, 4, 0, 0), y = t_out(1, 0);
    int64_t *th = malloc(sizeof(int64_t) * (size_t)R);
    for (int64_t r = 0; r < R; r++) th[r] = (r * 7919) % C;
    int64_t *td = d_i64(th, R);
    BOTH(HOST(cross_entropy)(NULL, x.h, th, y.h, R, C), CUDA(cross_entropy)(NULL, x.d, td, y.d, R, C));
    t_check("cross_entropy", &y);
    free(th), cudaFree(td), t_free(&x), t_free(&y);
  }
}

static void case_sdpa(void) {
  const int64_t sh[][5] = {{1, 1, 1, 1, 1}, {2, 5, 7, 3, 4}, {3, 64, 64, 32, 32}, {1, 33, 129, 65, 17}};
  for (size_t s = 0; s < N_OF(sh); s++) {
    int64_t B = sh[s][0], L = sh[s][1], S = sh[s][2], E = sh[s][3], Ev = sh[s][4];
    tens q = t_rand(B * L * E, 1, 0, 0), k = t_rand(B * S * E, 1, 0, 0), v = t_rand(B * S * Ev, 1, 0, 0);
    tens o = t_out(B * L * Ev, 0);
    double scale = 1 / sqrt((double)E);
    BOTH(HOST(sdpa)(NULL, q.h, k.h, v.h, o.h, B, L, S, E, Ev, scale),
         CUDA(sdpa)(NULL, q.d, k.d, v.d, o.d, B, L, S, E, Ev, scale));
    t_check("sdpa", &o);
    t_free(&q), t_free(&k), t_free(&v), t_free(&o);
  }
}

/* ---- data movement ---- */

static void copy_case(const char *what, int nd, const int64_t *shape, const int64_t *xs,
                      int64_t nx, const int64_t *ys, int64_t ny) {
  tens x = t_rand(nx, 1, 0, 0), y = t_out(ny, 0);  // y elements no index writes stay NaN
  BOTH(HOST(strided_copy)(NULL, nd, shape, x.h, xs, y.h, ys),
       CUDA(strided_copy)(NULL, nd, shape, x.d, xs, y.d, ys));
  t_check(what, &y);
  t_free(&x), t_free(&y);
}

static void case_strided_copy(void) {
  const int64_t s1[1] = {1027}, s0[2] = {0, 5}, one[3] = {1, 1, 1};
  copy_case("contiguous", 1, s1, NULL, 1027, NULL, 1027);
  copy_case("empty", 2, s0, NULL, 1, NULL, 1);
  copy_case("single", 3, one, NULL, 1, NULL, 1);
  const int64_t sp[4] = {2, 5, 3, 7}, xp[4] = {105, 1, 35, 5};  // permute (0, 3, 1, 2)^-1
  copy_case("permute", 4, sp, xp, 210, NULL, 210);
  const int64_t ss[2] = {9, 4}, xsl[2] = {11, 1};  // slice x[:, 3:7] of (9, 11), pitched
  copy_case("slice", 2, ss, xsl, 99, NULL, 36);
  const int64_t yc[2] = {13, 1};  // into columns [0, 4) of a (9, 13) y: a torch.cat part
  copy_case("into a slice", 2, ss, NULL, 36, yc, 117);
  const int64_t sb[3] = {3, 4, 5}, xb[3] = {0, 5, 1};  // expand over dim 0
  copy_case("broadcast", 3, sb, xb, 20, NULL, 60);
  const int64_t sh[4] = {2, 3, 4, 5}, xh[4] = {60, 4, 1, 12};  // channel-shuffle-like view
  copy_case("shuffle", 4, sh, xh, 120, NULL, 120);
  const int64_t sl[3] = {64, 129, 127}, xl[3] = {129 * 127, 1, 129};  // large transpose(1, 2)
  copy_case("large transpose", 3, sl, xl, 64 * 129 * 127, NULL, 64 * 129 * 127);
  const int64_t bad[1] = {-1};
  float v = 0;
  BOTH_REJECT(HOST(strided_copy)(NULL, 1, bad, &v, NULL, &v, NULL),
              CUDA(strided_copy)(NULL, 1, bad, &v, NULL, &v, NULL));
  BOTH_REJECT(HOST(strided_copy)(NULL, CL1_COPY_MAX_DIMS + 1, s1, &v, NULL, &v, NULL),
              CUDA(strided_copy)(NULL, CL1_COPY_MAX_DIMS + 1, s1, &v, NULL, &v, NULL));
}

static void case_roll2(void) {
  const int64_t sh[][6] = {{1, 1, 1, 1, 0, 0},   {2, 7, 5, 3, 3, -2}, {1, 8, 8, 96, -4, -4},
                           {3, 4, 6, 1, 9, -13}, {0, 3, 3, 2, 1, 1},  {2, 56, 56, 33, 3, 3}};
  for (size_t s = 0; s < N_OF(sh); s++) {
    int64_t n = sh[s][0] * sh[s][1] * sh[s][2] * sh[s][3];
    tens x = t_rand(n, 1, 0, 0), y = t_out(n, 0);
    BOTH(HOST(roll2)(NULL, x.h, y.h, sh[s][0], sh[s][1], sh[s][2], sh[s][3], sh[s][4], sh[s][5]),
         CUDA(roll2)(NULL, x.d, y.d, sh[s][0], sh[s][1], sh[s][2], sh[s][3], sh[s][4], sh[s][5]));
    t_check("roll2", &y);
    t_free(&x), t_free(&y);
  }
}

static void case_gather_rows(void) {
  const int64_t sh[][3] = {{0, 4, 3}, {1, 1, 1}, {5, 3, 7}, {2401, 169, 6}, {7, 5, 0}};
  for (size_t s = 0; s < N_OF(sh); s++) {
    int64_t n = sh[s][0], rows = sh[s][1], cols = sh[s][2];
    tens t = t_rand(rows * cols, 1, 0, 0), y = t_out(n * cols, 0);
    int64_t *ih = malloc(sizeof(int64_t) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++) ih[i] = (i * 31 + 7) % rows;  // repeats, any order
    int64_t *id = d_i64(ih, n);
    BOTH(HOST(gather_rows)(NULL, t.h, ih, y.h, n, rows, cols),
         CUDA(gather_rows)(NULL, t.d, id, y.d, n, rows, cols));
    t_check("gather_rows", &y);
    free(ih), cudaFree(id), t_free(&t), t_free(&y);
  }
}

/* ---- recurrent layers ---- */

/* GRU (gates 3) or LSTM (gates 4) on d, with every optional output asked for. */
static void rnn_case(const cl1_rnn_desc *d, int gates) {
  int64_t D = d->bidirectional ? 2 : 1, T = d->seq_len, B = d->batch, H = d->hidden_size;
  int64_t L = d->num_layers, GH = gates * H, ns = L * D * B * H;
  tens x = t_rand(T * B * d->input_size, 1, 0, 0), h0 = t_rand(ns, 0.5f, 0, 0);
  tens c0 = t_rand(ns, 0.5f, 0, 0), y = t_out(T * B * D * H, 0), hn = t_out(ns, 0), cn = t_out(ns, 0);
  int nw = (int)(4 * L * D);
  tens w[64];
  const float *wh[64], *wd[64];
  for (int i = 0; i < nw; i++) {
    int64_t l = i / (4 * D), in_l = l == 0 ? d->input_size : D * H, kind = i % 4;
    w[i] = t_rand(kind == 0 ? GH * in_l : kind == 1 ? GH * H : GH, 1.f / sqrtf((float)H), 0, 0);
    wh[i] = w[i].h, wd[i] = w[i].d;
  }
  size_t wsb = cl1_rnn_workspace_bytes(d, gates);
  void *hws = malloc(wsb), *dws = NULL;
  assert_int_equal(cudaMalloc(&dws, wsb), cudaSuccess);
  if (gates == CL1_RNN_GRU_GATES)
    BOTH(HOST(gru)(NULL, d, x.h, h0.h, wh, y.h, hn.h, hws, wsb),
         CUDA(gru)(NULL, d, x.d, h0.d, wd, y.d, hn.d, dws, wsb));
  else
    BOTH(HOST(lstm)(NULL, d, x.h, h0.h, c0.h, wh, y.h, hn.h, cn.h, hws, wsb),
         CUDA(lstm)(NULL, d, x.d, h0.d, c0.d, wd, y.d, hn.d, cn.d, dws, wsb));
  t_check("rnn y", &y);
  t_check("rnn h_n", &hn);
  if (gates == CL1_RNN_LSTM_GATES) t_check("lstm c_n", &cn);
  for (int i = 0; i < nw; i++) t_free(&w[i]);
  free(hws), cudaFree(dws);
  t_free(&x), t_free(&h0), t_free(&c0), t_free(&y), t_free(&hn), t_free(&cn);
}

static const cl1_rnn_desc RNNS[] = {
    {.seq_len = 1, .batch = 1, .input_size = 1, .hidden_size = 1, .num_layers = 1},
    {.seq_len = 7, .batch = 3, .input_size = 5, .hidden_size = 24, .num_layers = 2, .bidirectional = 1},
    {.seq_len = 6, .batch = 10, .input_size = 128, .hidden_size = 257, .num_layers = 1, .batch_first = 1},
};

static void case_lstm(void) {
  for (size_t s = 0; s < N_OF(RNNS); s++) rnn_case(&RNNS[s], CL1_RNN_LSTM_GATES);
}

static void case_gru(void) {
  for (size_t s = 0; s < N_OF(RNNS); s++) rnn_case(&RNNS[s], CL1_RNN_GRU_GATES);
}
