/* serve_http.c — the service's HTTP side (libmicrohttpd, a thread per connection: a scoring
 * request waits for its evaluations): routes, the bearer token (compared in constant time), the
 * body limit (413 from Content-Length before the body is read, or as soon as an upload without
 * one passes it), the item limit, per-connection idle timeouts, and requests turned into
 * batches and batches into answers: POST /v1/score, POST /openrlhf/reward, POST /v1/prompts,
 * POST /v1/jobs and GET /v1/jobs/{id} (serve_jobs.c), GET /v1/stats, GET /healthz. A malformed request is a 400 naming the field; a bad candidate is a 200 answer. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>
#include "serve_int.h"
#include "../base/hash.h"

typedef enum { R_NONE, R_HEALTH, R_STATS, R_SCORE, R_OPENRLHF, R_PROMPTS, R_JOBS, R_JOB } route;

/* One request's state between the handler's calls. */
typedef struct {
  route r;
  char job[40];              /* GET /v1/jobs/{id}: the id */
  char *body;
  size_t len, cap;
  bool answered;             /* a response was queued before the body was read */
  bool active;               /* a batch ran: the drain waits until its answer is sent */
} conn;

/* ---- responses ------------------------------------------------------------------------------ */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, cJSON *doc, int retry) {
  char *text = cJSON_PrintUnformatted(doc);
  cJSON_Delete(doc);
  if (!text) return MHD_NO;
  struct MHD_Response *r =
      MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
  if (!r) {
    free(text);
    return MHD_NO;
  }
  MHD_add_response_header(r, "Content-Type", "application/json");
  if (retry > 0) {
    char ra[16];
    snprintf(ra, sizeof ra, "%d", retry);
    MHD_add_response_header(r, "Retry-After", ra);
  }
  if (status == MHD_HTTP_UNAUTHORIZED) MHD_add_response_header(r, "WWW-Authenticate", "Bearer");
  enum MHD_Result q = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  return q;
}

static enum MHD_Result fail(struct MHD_Connection *c, unsigned status, const char *msg, int retry) {
  cJSON *d = cJSON_CreateObject();
  cJSON_AddStringToObject(d, "error", msg);
  return reply(c, status, d, retry);
}

/* ---- before the body: route, token, size ------------------------------------------------------ */

/* /v1/jobs/{id} into x->job; false for another URL. */
static bool job_url(const char *url, conn *x) {
  static const char pre[] = "/v1/jobs/";
  if (strncmp(url, pre, sizeof pre - 1)) return false;
  snprintf(x->job, sizeof x->job, "%.39s", url + sizeof pre - 1);
  return true;
}

static route route_of(const char *url, const char *method, conn *x, const char **want) {
  static const struct { const char *url, *method; route r; } routes[] = {
      {"/healthz", "GET", R_HEALTH}, {"/v1/stats", "GET", R_STATS},
      {"/v1/score", "POST", R_SCORE}, {"/openrlhf/reward", "POST", R_OPENRLHF},
      {"/v1/prompts", "POST", R_PROMPTS}, {"/v1/jobs", "POST", R_JOBS},
      {"/v1/jobs/", "GET", R_JOB}};
  bool job = job_url(url, x);
  for (size_t i = 0; i < sizeof routes / sizeof *routes; i++) {
    if (routes[i].r == R_JOB ? !job : strcmp(url, routes[i].url) != 0) continue;
    *want = routes[i].method;
    return strcmp(method, routes[i].method) ? R_NONE : routes[i].r;
  }
  *want = NULL;
  return R_NONE;
}

/* SHA-256 of both sides, then every byte compared: the time says nothing of the token. */
static bool token_ok(const char *token, const char *auth) {
  if (!auth || strncasecmp(auth, "Bearer ", 7)) return false;
  char a[65], b[65];
  cl1_sha *ha = cl1_sha_new(), *hb = cl1_sha_new();
  if (!ha || !hb) {
    if (ha) cl1_sha_hex(ha, a);
    if (hb) cl1_sha_hex(hb, b);
    return false;
  }
  cl1_sha_add(ha, token, strlen(token));
  cl1_sha_add(hb, auth + 7, strlen(auth + 7));
  cl1_sha_hex(ha, a);
  cl1_sha_hex(hb, b);
  volatile unsigned char d = 0;
  for (int i = 0; i < 64; i++) d |= (unsigned char)(a[i] ^ b[i]);
  return d == 0;
}

/* The first call (headers only): 0 to go on reading, or the response was queued. */
static int precheck(cl1_serve *svc, struct MHD_Connection *c, conn *x, const char *url,
                    const char *method, enum MHD_Result *res) {
  const char *want;
  char msg[300];
  x->r = route_of(url, method, x, &want);
  const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
  if (svc->o->token && x->r != R_HEALTH && !token_ok(svc->o->token, auth)) {
    *res = fail(c, MHD_HTTP_UNAUTHORIZED, auth ? "wrong bearer token" :
                "missing Authorization: Bearer <token> (the service was started with --token)", 0);
  } else if (x->r == R_NONE) {
    snprintf(msg, sizeof msg, want ? "%s needs %s" : "no endpoint %.200s", url, want);
    *res = fail(c, want ? MHD_HTTP_METHOD_NOT_ALLOWED : MHD_HTTP_NOT_FOUND, msg, 0);
  } else {
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    unsigned long long n = cl ? strtoull(cl, NULL, 10) : 0;
    if (n <= svc->o->max_body) return 0;
    snprintf(msg, sizeof msg, "request body: %llu bytes, more than --max-body %zu", n,
             svc->o->max_body);
    *res = fail(c, MHD_HTTP_CONTENT_TOO_LARGE, msg, 0);
  }
  x->answered = true;
  return 1;
}

/* A piece of the body; false once it passes --max-body (an upload without Content-Length). */
static bool take(cl1_serve *svc, conn *x, const char *data, size_t n) {
  if (x->len + n > svc->o->max_body) return false;
  if (x->len + n + 1 > x->cap) {
    size_t cap = x->cap ? x->cap : 4096;
    while (cap < x->len + n + 1) cap *= 2;
    char *g = realloc(x->body, cap);
    if (!g) return false;
    x->body = g, x->cap = cap;
  }
  memcpy(x->body + x->len, data, n);
  x->len += n;
  x->body[x->len] = 0;
  return true;
}

/* ---- requests into batches --------------------------------------------------------------------- */

/* msg[n] said; -1. */
static int bad(char *msg, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *msg, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, n, fmt, ap);
  va_end(ap);
  return -1;
}
#define BAD(...) bad(msg, n, __VA_ARGS__)

/* An optional "format" of object j (absent: cabi); -1 with msg naming it (as `name`). */
static int format_field(const cJSON *j, const char *name, cl1_format *out, char *msg, size_t n) {
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, "format");
  *out = CL1_FORMAT_CABI;
  if (f && (!cJSON_IsString(f) || cl1_format_parse(f->valuestring, out)))
    return BAD("%s: expected cabi or kernelbench", name);
  return 0;
}

static int item_strings(const cJSON *j, int i, cl1_serve_item *it, char *msg, size_t n) {
  const cJSON *comp = cJSON_GetObjectItemCaseSensitive(j, "completion");
  const cJSON *code = cJSON_GetObjectItemCaseSensitive(j, "code");
  if (comp && code) return BAD("items[%d]: completion and code both given (give one)", i);
  if (!comp && !code) return BAD("items[%d].completion: missing (give completion or code)", i);
  const cJSON *v = comp ? comp : code;
  if (!cJSON_IsString(v)) return BAD("items[%d].%s: expected a string", i, comp ? "completion" : "code");
  char *s = strdup(v->valuestring);
  if (!s) return BAD("out of memory");
  if (comp) it->completion = s;
  else it->code = s;
  const cJSON *meta = cJSON_GetObjectItemCaseSensitive(j, "meta");
  if (meta && !cJSON_IsObject(meta) && !cJSON_IsNull(meta))
    return BAD("items[%d].meta: expected an object", i);
  if (cJSON_IsObject(meta) && !(it->meta_json = cJSON_PrintUnformatted(meta)))
    return BAD("out of memory");
  return 0;
}

static int parse_item(cl1_serve *svc, const cJSON *j, int i, cl1_serve_item *it, char *msg,
                      size_t n) {
  if (!cJSON_IsObject(j)) return BAD("items[%d]: expected an object", i);
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "id");
  if (!id) return BAD("items[%d].id: missing", i);
  if (!cJSON_IsString(id) && !cJSON_IsNumber(id))
    return BAD("items[%d].id: expected a string or a number", i);
  if (!(it->id_json = cJSON_PrintUnformatted(id))) return BAD("out of memory");
  const cJSON *task = cJSON_GetObjectItemCaseSensitive(j, "task");
  if (!task) return BAD("items[%d].task: missing", i);
  if (!cJSON_IsString(task)) return BAD("items[%d].task: expected a string", i);
  const cJSON *fresh = cJSON_GetObjectItemCaseSensitive(j, "fresh");
  if (fresh && !cJSON_IsBool(fresh)) return BAD("items[%d].fresh: expected true or false", i);
  it->fresh = cJSON_IsTrue(fresh);
  char fname[40];
  snprintf(fname, sizeof fname, "items[%d].format", i);
  if (format_field(j, fname, &it->format, msg, n)) return -1;
  if (item_strings(j, i, it, msg, n)) return -1;
  char why[600];
  if (!(it->task = cl1_serve_task_get(svc, task->valuestring, why, sizeof why)))
    return BAD("items[%d].task: %s", i, why);
  return 0;
}

static cl1_serve_batch *batch_new(int count) {
  cl1_serve_batch *b = calloc(1, sizeof *b);
  if (b && !(b->items = calloc((size_t)(count ? count : 1), sizeof *b->items))) {
    free(b);
    return NULL;
  }
  if (b) b->n = count;
  return b;
}

/* An array field of n entries at most --max-items; its size, or -1 with msg. */
static int array_field(cl1_serve *svc, const cJSON *doc, const char *key, char *msg, size_t n) {
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(doc, key);
  if (!a) return BAD("%s: missing", key);
  if (!cJSON_IsArray(a)) return BAD("%s: expected an array", key);
  int count = cJSON_GetArraySize(a);
  if (count == 0) return BAD("%s: empty", key);
  if (count > svc->o->max_items)
    return BAD("%s: %d entries, more than --max-items %d", key, count, svc->o->max_items);
  return count;
}

/* POST /v1/score's body into a batch, its items prepared; NULL with msg for a 400. */
static cl1_serve_batch *score_batch(cl1_serve *svc, const cJSON *doc, double *deadline, char *msg,
                                    size_t n) {
  int count = array_field(svc, doc, "items", msg, n);
  if (count < 0) return NULL;
  const cJSON *dl = cJSON_GetObjectItemCaseSensitive(doc, "deadline_s");
  if (dl && !(cJSON_IsNumber(dl) && dl->valuedouble > 0 && dl->valuedouble <= 86400))
    return BAD("deadline_s: expected a number of seconds in (0, 86400]"), NULL;
  *deadline = dl ? dl->valuedouble : 0;
  cl1_serve_batch *b = batch_new(count);
  if (!b) return BAD("out of memory"), NULL;
  int i = 0;
  const cJSON *j;
  cJSON_ArrayForEach(j, cJSON_GetObjectItemCaseSensitive(doc, "items")) {
    if (parse_item(svc, j, i, &b->items[i], msg, n)) {
      cl1_serve_batch_free(b);
      return NULL;
    }
    i++;
  }
  for (i = 0; i < count; i++) cl1_serve_prepare(svc, &b->items[i]);
  return b;
}

cJSON *cl1_serve_results_doc(const cl1_serve_batch *b) {
  cJSON *doc = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(doc, "results");
  for (int i = 0; i < b->n; i++) {
    const cl1_serve_item *it = &b->items[i];
    cJSON *r = cJSON_CreateObject(), *f;
    cJSON_AddItemToObject(r, "id", cJSON_Parse(it->id_json));
    cJSON_ArrayForEach(f, it->result)
      cJSON_AddItemToObject(r, f->string, cJSON_Duplicate(f, 1));
    cJSON_AddBoolToObject(r, "cached", it->cached);
    cJSON_AddItemToArray(arr, r);
  }
  return doc;
}

/* ---- OpenRLHF's remote reward: {query, prompts, labels} -> {rewards, scores, extra_logs} ----- */

/* Item i: id i, task labels[i], completion = query[i] less its prompt, in the request's format. */
static int rlhf_item(cl1_serve *svc, const cJSON *doc, int i, cl1_format fmt, cl1_serve_item *it,
                     char *msg, size_t n) {
  const cJSON *q = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "query"), i);
  const cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "prompts"), i);
  const cJSON *l = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "labels"), i);
  if (!cJSON_IsString(q)) return BAD("query[%d]: expected a string", i);
  if (p && !cJSON_IsString(p)) return BAD("prompts[%d]: expected a string", i);
  if (!cJSON_IsString(l)) return BAD("labels[%d]: expected a string (the task id)", i);
  const char *resp = q->valuestring;
  size_t pl = p ? strlen(p->valuestring) : 0;
  if (p && !strncmp(resp, p->valuestring, pl)) resp += pl;
  char id[16], why[600];
  snprintf(id, sizeof id, "%d", i);
  it->format = fmt;
  if (!(it->id_json = strdup(id)) || !(it->completion = strdup(resp))) return BAD("out of memory");
  if (!(it->task = cl1_serve_task_get(svc, l->valuestring, why, sizeof why)))
    return BAD("labels[%d]: %s", i, why);
  return 0;
}

static cl1_serve_batch *rlhf_batch(cl1_serve *svc, const cJSON *doc, char *msg, size_t n) {
  int count = array_field(svc, doc, "query", msg, n);
  if (count < 0) return NULL;
  int labels = array_field(svc, doc, "labels", msg, n);
  if (labels < 0) return NULL;
  if (labels != count) return BAD("labels: %d entries for %d queries", labels, count), NULL;
  const cJSON *pr = cJSON_GetObjectItemCaseSensitive(doc, "prompts");
  if (pr && !(cJSON_IsArray(pr) && cJSON_GetArraySize(pr) == count))
    return BAD("prompts: expected an array of %d entries (one per query)", count), NULL;
  cl1_format fmt;
  if (format_field(doc, "format", &fmt, msg, n)) return NULL;
  cl1_serve_batch *b = batch_new(count);
  if (!b) return BAD("out of memory"), NULL;
  for (int i = 0; i < count; i++)
    if (rlhf_item(svc, doc, i, fmt, &b->items[i], msg, n)) {
      cl1_serve_batch_free(b);
      return NULL;
    }
  for (int i = 0; i < count; i++) cl1_serve_prepare(svc, &b->items[i]);
  return b;
}

/* OpenRLHF turns every list into a tensor: numbers only; an infra_error is 0 (neutral) with
 * extra_logs.infra_error = 1, never a penalty. */
static cJSON *rlhf_doc(const cl1_serve_batch *b) {
  cJSON *doc = cJSON_CreateObject(), *rw = cJSON_AddArrayToObject(doc, "rewards");
  cJSON *sc = cJSON_AddArrayToObject(doc, "scores"), *ex = cJSON_AddObjectToObject(doc, "extra_logs");
  cJSON *sp = cJSON_AddArrayToObject(ex, "speedup"), *ok = cJSON_AddArrayToObject(ex, "correct");
  cJSON *ie = cJSON_AddArrayToObject(ex, "infra_error");
  for (int i = 0; i < b->n; i++) {
    const cJSON *r = b->items[i].result;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "verdict");
    const char *keys[3] = {"reward", "score01", "speedup"};
    cJSON *dst[3] = {rw, sc, sp};
    for (int k = 0; k < 3; k++) {
      const cJSON *x = cJSON_GetObjectItemCaseSensitive(r, keys[k]);
      cJSON_AddItemToArray(dst[k], cJSON_CreateNumber(cJSON_IsNumber(x) ? x->valuedouble : 0));
    }
    bool infra = !strcmp(v->valuestring, "infra_error");
    cJSON_AddItemToArray(ok, cJSON_CreateNumber(!strcmp(v->valuestring, "pass")));
    cJSON_AddItemToArray(ie, cJSON_CreateNumber(infra));
  }
  return doc;
}

/* ---- the handler ------------------------------------------------------------------------------- */

static enum MHD_Result batch_reply(cl1_serve *svc, struct MHD_Connection *c, conn *x,
                                   const cJSON *doc) {
  route r = x->r;
  char msg[1200];
  double deadline = 0;
  cl1_serve_batch *b = r != R_OPENRLHF ? score_batch(svc, doc, &deadline, msg, sizeof msg)
                                       : rlhf_batch(svc, doc, msg, sizeof msg);
  if (!b) return fail(c, MHD_HTTP_BAD_REQUEST, msg, 0);
  int retry = 0;
  if (r == R_JOBS) {  /* answered at once; the job's thread waits for its items */
    cJSON *answer;
    unsigned st = cl1_serve_job_submit(svc, b, deadline, &answer, &retry);
    return reply(c, st, answer, st == MHD_HTTP_SERVICE_UNAVAILABLE ? retry : 0);
  }
  int st = cl1_serve_batch_run(svc, b, deadline, &retry);
  x->active = st == 200;
  enum MHD_Result res =
      st == 200 ? reply(c, MHD_HTTP_OK, r == R_SCORE ? cl1_serve_results_doc(b) : rlhf_doc(b), 0)
                : fail(c, MHD_HTTP_SERVICE_UNAVAILABLE,
                       svc->stopping ? "the service is stopping" : "the queue is full (--max-queue)",
                       retry);
  cl1_serve_batch_free(b);
  return res;
}

static enum MHD_Result dispatch(cl1_serve *svc, struct MHD_Connection *c, conn *x) {
  if (x->r == R_HEALTH) {
    cJSON *d = cJSON_CreateObject();
    cJSON_AddBoolToObject(d, "ok", 1);
    return reply(c, MHD_HTTP_OK, d, 0);
  }
  if (x->r == R_STATS) return reply(c, MHD_HTTP_OK, cl1_serve_stats(svc), 0);
  if (x->r == R_JOB) {
    cJSON *d = cl1_serve_job_get(svc, x->job);
    if (d) return reply(c, MHD_HTTP_OK, d, 0);
    char msg[300];
    snprintf(msg, sizeof msg, "no job '%.40s' (a finished job is kept --job-ttl %d s; a restarted "
             "service has none: resubmit, finished items come from the store)", x->job,
             svc->o->job_ttl_s);
    return fail(c, MHD_HTTP_NOT_FOUND, msg, 0);
  }
  const char *end = NULL;
  cJSON *doc = x->len ? cJSON_ParseWithLengthOpts(x->body, x->len, &end, 0) : NULL;
  char msg[200];
  if (!doc) {
    size_t at = end && end >= x->body ? (size_t)(end - x->body) : 0;
    snprintf(msg, sizeof msg, x->len ? "request body: not valid JSON (at byte %zu)"
                                     : "request body: empty (expected a JSON object)", at);
    return fail(c, MHD_HTTP_BAD_REQUEST, msg, 0);
  }
  enum MHD_Result res;
  if (!cJSON_IsObject(doc)) {
    res = fail(c, MHD_HTTP_BAD_REQUEST, "request body: expected a JSON object", 0);
  } else if (x->r == R_PROMPTS) {
    char why[1200];
    unsigned st;
    cJSON *out = cl1_serve_prompts(svc, doc, &st, why, sizeof why);
    res = out ? reply(c, MHD_HTTP_OK, out, 0) : fail(c, st, why, 0);
  } else {
    res = batch_reply(svc, c, x, doc);
  }
  cJSON_Delete(doc);
  return res;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *data,
                              size_t *size, void **con_cls) {
  (void)version;
  cl1_serve *svc = cls;
  conn *x = *con_cls;
  if (!x) {
    if (!(x = calloc(1, sizeof *x))) return MHD_NO;
    *con_cls = x;
    enum MHD_Result res = MHD_YES;
    precheck(svc, c, x, url, method, &res);
    return res;
  }
  if (x->answered) {  /* the rest of a refused body is not ours to read */
    *size = 0;
    return MHD_YES;
  }
  if (*size) {
    bool fits = take(svc, x, data, *size);
    *size = 0;
    if (fits) return MHD_YES;
    x->answered = true;
    char msg[120];
    snprintf(msg, sizeof msg, "request body: more than --max-body %zu bytes", svc->o->max_body);
    /* refused mid-upload: answered if libmicrohttpd lets us, else the connection is closed */
    return fail(c, MHD_HTTP_CONTENT_TOO_LARGE, msg, 0);
  }
  return dispatch(svc, c, x);
}

/* After the answer was sent, or the client went away: the request's memory goes with it, and
 * the drain learns it. */
static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode why) {
  (void)c, (void)why;
  conn *x = *con_cls;
  if (!x) return;
  if (x->active) cl1_serve_request_done(cls);
  free(x->body);
  free(x);
  *con_cls = NULL;
}

struct MHD_Daemon *cl1_serve_http_start(cl1_serve *svc, int *port, cl1_err *err) {
  const char *bind = strcmp(svc->o->bind, "localhost") ? svc->o->bind : "127.0.0.1";
  struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons((uint16_t)svc->o->port)};
  struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)svc->o->port)};
  bool v6 = false;
  if (inet_pton(AF_INET, bind, &a4.sin_addr) != 1) {
    if (inet_pton(AF_INET6, bind, &a6.sin6_addr) != 1)
      return cl1_err_set(err, "--bind: '%s' is not an IP address", svc->o->bind), NULL;
    v6 = true;
  }
  unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC |
                   (v6 ? MHD_USE_IPv6 : 0);
  struct MHD_Daemon *d = MHD_start_daemon(
      flags, (uint16_t)svc->o->port, NULL, NULL, handle, svc, MHD_OPTION_SOCK_ADDR,
      v6 ? (struct sockaddr *)&a6 : (struct sockaddr *)&a4, MHD_OPTION_CONNECTION_TIMEOUT,
      (unsigned)svc->o->idle_timeout_s, MHD_OPTION_CONNECTION_LIMIT, (unsigned)1024,
      MHD_OPTION_NOTIFY_COMPLETED, completed, svc, MHD_OPTION_END);
  if (!d)
    return cl1_err_set(err, "cannot listen on %s port %d (in use, or not an address of this "
                       "machine)", svc->o->bind, svc->o->port), NULL;
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  *port = info && info->port ? info->port : svc->o->port;
  return d;
}
