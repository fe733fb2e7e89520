/* serve_client.h — `cudal1 serve` driven from a test: the real binary started on a free port
 * with a fresh store (host and test shapes unless the svc says otherwise), stopped, removed, and
 * spoken to over HTTP with libcurl. Shared by tests/test_serve.c and tests/gpu/test_serve_gpu.c. */
#ifndef CL1_TEST_SERVE_CLIENT_H
#define CL1_TEST_SERVE_CLIENT_H
#include "eval_cases.h"
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <ftw.h>
#include <poll.h>
#include <stdbool.h>

#define TASK "level1/19_ReLU"

typedef struct {
  pid_t pid;
  int port;
  char dir[256], db[300];
  const char *device, *shapes;  /* NULL: host, test */
} svc;

/* Starts `cudal1 serve` on --port 0 with the store dir/db and the extra arguments; reads the
 * port from its first line. */
static inline void svc_start(svc *s, const char *const *extra) {
  const char *argv[40] = {NULL};
  char bin[300];
  snprintf(bin, sizeof bin, "%s/cudal1", th_build());
  const char *base[] = {bin, "serve", "--device", s->device ? s->device : "host", "--shapes",
                        s->shapes ? s->shapes : "test", "--port", "0",
                        "--db", s->db, "--min-trials", "5", "--max-trials", "5",
                        "--time-budget", "0.01"};
  int n = 0;
  for (size_t i = 0; i < sizeof base / sizeof *base; i++) argv[n++] = base[i];
  for (int i = 0; extra && extra[i]; i++) argv[n++] = extra[i];
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  s->pid = fork();
  assert_true(s->pid >= 0);
  if (s->pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    execv(bin, (char *const *)argv);
    _exit(127);
  }
  close(fds[1]);
  char line[512] = "";
  size_t k = 0;
  struct pollfd p = {.fd = fds[0], .events = POLLIN};
  while (k + 1 < sizeof line && poll(&p, 1, 30000) == 1) {
    if (read(fds[0], line + k, 1) != 1 || line[k] == '\n') break;
    k++;
  }
  line[k] = 0;
  close(fds[0]);
  const char *at = strstr(line, "127.0.0.1:");
  if (!at) fail_msg("no port announced: '%s'", line);
  s->port = atoi(at + 10);
  assert_true(s->port > 0);
}

static inline void svc_fresh_on(svc *s, const char *device, const char *shapes,
                                const char *const *extra) {
  s->device = device, s->shapes = shapes;
  snprintf(s->dir, sizeof s->dir, "/tmp/cl1serve.XXXXXX");
  assert_non_null(mkdtemp(s->dir));
  snprintf(s->db, sizeof s->db, "%s/cudal1.db", s->dir);
  svc_start(s, extra);
}

/* On the host backend at test shapes. */
static inline void svc_fresh(svc *s, const char *const *extra) {
  svc_fresh_on(s, NULL, NULL, extra);
}

/* SIGTERM, then its exit status (or 128 + signal). */
static inline int svc_stop(svc *s) {
  kill(s->pid, SIGTERM);
  int st;
  assert_int_equal(waitpid(s->pid, &st, 0), s->pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static inline int rm_entry(const char *p, const struct stat *sb, int type, struct FTW *ftw) {
  (void)sb, (void)ftw;
  return type == FTW_DP ? rmdir(p) : unlink(p);
}

static inline void svc_rm(svc *s) { nftw(s->dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS); }

/* ---- HTTP ----------------------------------------------------------------------------------- */

typedef struct {
  long status;
  char *body;
  size_t len;
  char retry_after[32];
} resp;

static inline size_t on_body(char *p, size_t sz, size_t n, void *u) {
  resp *r = u;
  char *g = realloc(r->body, r->len + sz * n + 1);
  if (!g) return 0;
  memcpy(g + r->len, p, sz * n);
  r->body = g, r->len += sz * n;
  r->body[r->len] = 0;
  return sz * n;
}

static inline size_t on_header(char *p, size_t sz, size_t n, void *u) {
  resp *r = u;
  if (!strncasecmp(p, "Retry-After:", 12)) snprintf(r->retry_after, sizeof r->retry_after, "%.20s", p + 12);
  return sz * n;
}

static inline CURL *easy(int port, const char *path, const char *body, size_t len, const char *token,
                  resp *r, struct curl_slist **h) {
  CURL *c = curl_easy_init();
  char url[256], auth[300];
  snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
  *h = curl_slist_append(NULL, "Content-Type: application/json");
  if (token) {
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    *h = curl_slist_append(*h, auth);
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, *h);
  if (body) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
  }
  return c;
}

/* One request; the response's status and body (r->body freed by the caller). */
static inline void http(int port, const char *path, const char *body, const char *token, resp *r) {
  memset(r, 0, sizeof *r);
  struct curl_slist *h;
  CURL *c = easy(port, path, body, body ? strlen(body) : 0, token, r, &h);
  CURLcode rc = curl_easy_perform(c);
  if (rc == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
  curl_easy_cleanup(c);
  curl_slist_free_all(h);
}

static inline char *file_text(const char *path) {
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  static char buf[4][65536];
  static int k;
  char *b = buf[k++ % 4];
  size_t n = fread(b, 1, sizeof buf[0] - 1, f);
  b[n] = 0;
  fclose(f);
  return b;
}

/* {"items":[{"id": i, "task": TASK, key: texts[i], ...}]} */
static inline char *items_body(int n, const char *key, const char *const *texts, bool fresh) {
  cJSON *d = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(d, "items");
  for (int i = 0; i < n; i++) {
    cJSON *it = cJSON_CreateObject();
    cJSON_AddNumberToObject(it, "id", i);
    cJSON_AddStringToObject(it, "task", TASK);
    cJSON_AddStringToObject(it, key, texts[i]);
    if (fresh) cJSON_AddBoolToObject(it, "fresh", 1);
    cJSON *meta = cJSON_AddObjectToObject(it, "meta");
    cJSON_AddNumberToObject(meta, "step", 7);
    cJSON_AddItemToArray(a, it);
  }
  char *s = cJSON_PrintUnformatted(d);
  cJSON_Delete(d);
  return s;
}

/* results[i] of a 200 answer (the document in *doc, to delete). */
static inline const cJSON *result(const resp *r, cJSON **doc, int i) {
  assert_int_equal(r->status, 200);
  *doc = cJSON_Parse(r->body);
  const cJSON *res = cJSON_GetArrayItem(cJSON_GetObjectItem(*doc, "results"), i);
  assert_non_null(res);
  return res;
}

static inline const char *str(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItem(o, k);
  assert_true(cJSON_IsString(v));
  return v->valuestring;
}

static inline double num(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItem(o, k);
  assert_true(cJSON_IsNumber(v));
  return v->valuedouble;
}

static inline double stat_of(int port, const char *key) {
  resp r;
  http(port, "/v1/stats", NULL, NULL, &r);
  assert_int_equal(r.status, 200);
  cJSON *d = cJSON_Parse(r.body);
  double v = num(d, key);
  cJSON_Delete(d);
  free(r.body);
  return v;
}

/* Every case of the manifest's lines for backend in one request to the service at port; the
 * cases whose answer misses the manifest's expectation are appended to bad. */
static inline void svc_post_manifest(int port, const char *manifest, const char *backend,
                                     const char *shapes, char *bad, size_t bad_n) {
  th_case *cs;
  int n = th_manifest(manifest, backend, shapes, &cs);
  assert_true(n > 0);
  cJSON *d = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(d, "items");
  static char buf[1 << 18];
  for (int i = 0; i < n; i++) {
    FILE *f = fopen(cs[i].file, "r");
    assert_non_null(f);
    size_t k = fread(buf, 1, sizeof buf - 1, f);
    buf[k] = 0;
    fclose(f);
    cJSON *it = cJSON_CreateObject();
    cJSON_AddNumberToObject(it, "id", i);
    cJSON_AddStringToObject(it, "task", cs[i].task);
    cJSON_AddStringToObject(it, "code", buf);
    cJSON_AddItemToArray(a, it);
  }
  char *body = cJSON_PrintUnformatted(d);
  cJSON_Delete(d);
  resp r;
  http(port, "/v1/score", body, NULL, &r);
  free(body);
  assert_int_equal(r.status, 200);
  cJSON *doc = cJSON_Parse(r.body);
  for (int i = 0; i < n; i++) {
    const cJSON *x = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "results"), i);
    char why[256];
    if (!th_expect_met(cs[i].expect, x, why, sizeof why))
      snprintf(bad + strlen(bad), bad_n - strlen(bad), "\n  %s (%s): %s", cs[i].file,
               cs[i].task, why);
  }
  cJSON_Delete(doc);
  free(r.body);
  free(cs);
}

#endif
