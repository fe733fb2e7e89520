/* openai.c — the "openai" backend: POST {base_url}/chat/completions on any OpenAI-compatible
 * server through libcurl. n samples go out as one request with n; a server that rejects n > 1
 * (HTTP 400 naming n) or answers with fewer choices is remembered as n=1-only and gets n parallel
 * n=1 requests from then on. Every attempt holds one of the policy's concurrency slots; 429, 5xx,
 * timeouts and connection errors are retried with exponential backoff and jitter (never holding a
 * slot while asleep); other 4xx are final, and those no later request can escape (the key refused,
 * the model or the route unknown) make the policy fatal. Before a run, GET {base_url}/models
 * tells an unreachable server or a refused key at once (cl1_policy_check). The API key never
 * reaches an error or a log line. */
#include "policy_int.h"
#include <assert.h>
#include <cjson/cJSON.h>
#include <ctype.h>
#include <curl/curl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_RETRY_AFTER_S 300.0

#define CHECK_CONNECT_S 5.0      /* the preflight's connect timeout */
#define CHECK_TOTAL_S 20.0       /* ... and its whole GET /models */

typedef struct {
  char *base;                 /* base_url without trailing slashes */
  char *url;                  /* base + "/chat/completions" */
  struct curl_slist *headers; /* read-only once built; shared by every handle */
  pthread_mutex_t mu;         /* guards pool and n1_only */
  CURL **pool;                /* idle handles, kept so connections are reused; <= concurrency */
  int npool;
  int n1_only;                /* the server does not honour n > 1 */
  /* set by the check, before any request; read-only afterwards */
  char listed[400];           /* the models GET /models listed when ours was not among them */
} oa_state;

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;
static void curl_init(void) { curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT); }

/* ---- the key stays out of messages ---- */

/* Replaces every occurrence of the API key in msg with "***". */
static void scrub(const cl1_policy *p, char *msg, size_t cap) {
  const char *key = p->o.api_key;
  if (!key || !*key || !strstr(msg, key)) return;
  char tmp[1024];
  size_t kl = strlen(key), w = 0;
  for (const char *r = msg; *r && w + 1 < sizeof tmp;) {
    if (!strncmp(r, key, kl)) {
      for (const char *s = "***"; *s && w + 1 < sizeof tmp; s++) tmp[w++] = *s;
      r += kl;
    } else {
      tmp[w++] = *r++;
    }
  }
  tmp[w] = 0;
  cl1_strcpy(msg, cap, tmp);
}

/* ---- handles and slots ---- */

/* Takes a concurrency slot and a handle; NULL (slot still held) when curl is out of memory. */
static CURL *handle_take(cl1_policy *p) {
  oa_state *s = p->state;
  cl1_policy_slot_take(p);
  CURL *h = NULL;
  pthread_mutex_lock(&s->mu);
  if (s->npool) h = s->pool[--s->npool];
  pthread_mutex_unlock(&s->mu);
  return h ? h : curl_easy_init();
}

static void handle_give(cl1_policy *p, CURL *h) {
  oa_state *s = p->state;
  if (h) {
    pthread_mutex_lock(&s->mu);
    if (s->npool < p->o.concurrency) {
      s->pool[s->npool++] = h;
      h = NULL;
    }
    pthread_mutex_unlock(&s->mu);
    if (h) curl_easy_cleanup(h);
  }
  cl1_policy_slot_give(p);
}

static int n1_only(oa_state *s) {
  pthread_mutex_lock(&s->mu);
  int v = s->n1_only;
  pthread_mutex_unlock(&s->mu);
  return v;
}

static void set_n1_only(oa_state *s) {
  pthread_mutex_lock(&s->mu);
  s->n1_only = 1;
  pthread_mutex_unlock(&s->mu);
}

/* ---- one HTTP attempt ---- */

typedef struct {
  char *d;
  size_t n, cap;
  int over; /* the reply passed CL1_POLICY_MAX_REPLY */
} buf;

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *ud) {
  buf *b = ud;
  size_t k = size * nmemb;
  if (b->n + k > CL1_POLICY_MAX_REPLY) {
    b->over = 1;
    return 0; /* curl stops with CURLE_WRITE_ERROR */
  }
  if (b->n + k + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 16384;
    while (cap < b->n + k + 1) cap *= 2;
    char *d = realloc(b->d, cap);
    if (!d) return 0;
    b->d = d;
    b->cap = cap;
  }
  memcpy(b->d + b->n, ptr, k);
  b->n += k;
  b->d[b->n] = 0;
  return k;
}

typedef struct {
  CURLcode rc;
  long status, os_errno;
  double retry_after;          /* seconds the server asked us to wait (0: none) */
  double connect_s;            /* when the connection was made (0: never) */
  buf body;
  char curl_msg[CURL_ERROR_SIZE];
} attempt;

static long ms_of(double s) {
  double ms = ceil(s * 1000);
  return (long)(ms > 1e9 ? 1e9 : ms);
}

/* POSTs req to url (req NULL: GETs it) within timeout_s (connect_s > 0: the connection within
   that). */
static void attempt_run(cl1_policy *p, CURL *h, const char *url, const char *req, double timeout_s,
                        double connect_s, attempt *a) {
  oa_state *s = p->state;
  curl_easy_reset(h);
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, s->headers);
  if (req) {
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, req);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(req));
  }
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &a->body);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, a->curl_msg);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, ms_of(timeout_s));
  if (connect_s > 0) curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms_of(connect_s));
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L); /* threads: no SIGALRM for timeouts */
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(h, CURLOPT_USERAGENT, "cudal1");
  a->rc = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &a->status);
  curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &a->os_errno);
  curl_easy_getinfo(h, CURLINFO_CONNECT_TIME, &a->connect_s);
  curl_off_t ra = -1;
  if (curl_easy_getinfo(h, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0)
    a->retry_after = (double)ra;
}

/* Copies text into out as one printable line of at most ~300 characters. */
static void one_line(const char *text, size_t n, char *out, size_t cap) {
  assert(cap > 8);
  size_t w = 0, i = 0, lim = cap - 4 < 300 ? cap - 4 : 300;
  for (; i < n && w < lim; i++) {
    unsigned char ch = (unsigned char)text[i];
    if (ch < 32 || ch == 127) ch = ' ';
    if (ch == ' ' && (!w || out[w - 1] == ' ')) continue;
    out[w++] = (char)ch;
  }
  if (i < n) out[w++] = '.', out[w++] = '.', out[w++] = '.';
  out[w] = 0;
  if (!w) cl1_strcpy(out, cap, "(empty body)");
}

/* The server's own words from an error body: error.message, error, message or detail; else the
   body itself. *about_n: the error names the n parameter (error.param is "n"). */
static void server_message(const char *body, size_t n, char *out, size_t cap, int *about_n) {
  cJSON *r = body ? cJSON_ParseWithLength(body, n) : NULL;
  const cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "error");
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
  const cJSON *param = cJSON_GetObjectItemCaseSensitive(e, "param");
  if (about_n) *about_n = cJSON_IsString(param) && !strcmp(param->valuestring, "n");
  if (!cJSON_IsString(m)) m = cJSON_IsString(e) ? e : cJSON_GetObjectItemCaseSensitive(r, "message");
  if (!cJSON_IsString(m)) m = cJSON_GetObjectItemCaseSensitive(r, "detail");
  if (cJSON_IsString(m)) {
    one_line(m->valuestring, strlen(m->valuestring), out, cap);
  } else if (m) {
    char *t = cJSON_PrintUnformatted(m);
    one_line(t ? t : "", t ? strlen(t) : 0, out, cap);
    free(t);
  } else {
    one_line(body ? body : "", body ? n : 0, out, cap);
  }
  cJSON_Delete(r);
}

/* Does an error message speak of the n parameter ("n must be 1", "'n' is not supported", "only
   one choice")? Then the server is n=1-only rather than broken. */
static int mentions_n(const char *msg) {
  for (size_t i = 0; msg[i]; i++) {
    if (tolower((unsigned char)msg[i]) == 'n' && (i == 0 || !isalnum((unsigned char)msg[i - 1])) &&
        !isalnum((unsigned char)msg[i + 1]) && msg[i + 1] != '_' && (i == 0 || msg[i - 1] != '_'))
      return 1;
  }
  return strcasestr(msg, "choice") != NULL;
}

/* ---- answers that no later request can escape ---- */

/* A refused or missing key (HTTP 401/403) as one line naming where the key comes from. */
static void key_refused(const cl1_policy *p, long status, const char *sm, char *out, size_t cap) {
  const oa_state *s = p->state;
  if (p->o.api_key && *p->o.api_key)
    snprintf(out, cap, "the server at %s refused the API key (HTTP %ld: %s): check $CUDAL1_API_KEY "
             "(or $OPENAI_API_KEY)", s->base, status, sm);
  else
    snprintf(out, cap, "the server at %s wants an API key (HTTP %ld: %s): set $CUDAL1_API_KEY "
             "(or $OPENAI_API_KEY)", s->base, status, sm);
}

/* Does an error answer say the model does not exist? 404 naming the model (vLLM: "The model `x`
   does not exist.", Ollama: "model \"x\" not found"), or a 400/422 saying so. */
static int model_missing(const cl1_policy *p, long status, const char *sm) {
  if (status != 404 && status != 400 && status != 422) return 0;
  int about_model = strcasestr(sm, "model") != NULL;
  int missing = strcasestr(sm, "not found") || strcasestr(sm, "does not exist") ||
                strcasestr(sm, "unknown model") || strcasestr(sm, "no such model") ||
                strcasestr(sm, "invalid model");
  return about_model && (missing || (status == 404 && strstr(sm, p->o.model)));
}

/* After a final HTTP error: if every later request would get it too, the policy turns fatal. */
static void note_fatal(cl1_policy *p, long status, const char *sm) {
  oa_state *s = p->state;
  char msg[1024];
  if (status == 401 || status == 403) {
    key_refused(p, status, sm, msg, sizeof msg);
  } else if (model_missing(p, status, sm)) {
    snprintf(msg, sizeof msg, "the server at %s has no model '%s' (HTTP %ld: %s)%s%s", s->base,
             p->o.model, status, sm, s->listed[0] ? "; it lists: " : "", s->listed);
  } else if (status == 404) {
    snprintf(msg, sizeof msg, "the server at %s has no chat-completions route (HTTP 404 for %s: %s): "
             "is the base URL right? (OpenAI-compatible servers usually serve under .../v1)",
             s->base, s->url, sm);
  } else {
    return;
  }
  scrub(p, msg, sizeof msg);
  cl1_policy_set_fatal(p, 2, msg);
}

enum { A_OK, A_RETRY, A_FINAL };

/* Says whether an attempt succeeded, may be retried, or is final; msg why not. */
static int attempt_judge(cl1_policy *p, const attempt *a, int n_asked, char *msg, size_t cap,
                         int *n_rejected) {
  oa_state *s = p->state;
  int v = A_RETRY;
  *n_rejected = 0;
  if (a->rc == CURLE_OK) {
    if (a->status >= 200 && a->status < 300) return A_OK;
    char sm[400];
    int about_n = 0;
    server_message(a->body.d, a->body.n, sm, sizeof sm, &about_n);
    snprintf(msg, cap, "HTTP %ld from %s: %s", a->status, s->url, sm);
    if (a->status != 429 && a->status < 500) v = A_FINAL;
    *n_rejected = a->status == 400 && n_asked > 1 && (about_n || mentions_n(sm));
    if (v == A_FINAL && !*n_rejected) note_fatal(p, a->status, sm);
  } else if (a->body.over) {
    snprintf(msg, cap, "the reply from %s is larger than %u MiB", s->url, CL1_POLICY_MAX_REPLY >> 20);
    v = A_FINAL;
  } else if (a->rc == CURLE_OPERATION_TIMEDOUT) {
    snprintf(msg, cap, "no complete reply from %s within %g s", s->url, p->o.timeout_s);
  } else if (a->rc == CURLE_COULDNT_CONNECT) {
    snprintf(msg, cap, "cannot connect to %s: %s", s->url,
             a->os_errno ? strerror((int)a->os_errno) : a->curl_msg);
  } else {
    const char *why = a->curl_msg[0] ? a->curl_msg : curl_easy_strerror(a->rc);
    snprintf(msg, cap, "request to %s failed: %s", s->url, why);
    if (a->rc == CURLE_URL_MALFORMAT || a->rc == CURLE_UNSUPPORTED_PROTOCOL ||
        a->rc == CURLE_OUT_OF_MEMORY || a->rc == CURLE_PEER_FAILED_VERIFICATION ||
        a->rc == CURLE_SSL_CACERT_BADFILE || a->rc == CURLE_WRITE_ERROR)
      v = A_FINAL;
  }
  scrub(p, msg, cap);
  return v;
}

/* Sleeps base +-25%, or what Retry-After asked for when that is longer (up to a cap). */
static void backoff_sleep(double base, double retry_after, unsigned *seed) {
  double t = base * (0.75 + 0.5 * ((double)rand_r(seed) / RAND_MAX));
  if (retry_after > t) t = fmin(retry_after, MAX_RETRY_AFTER_S);
  if (t <= 0) return;
  struct timespec ts = {(time_t)t, (long)((t - floor(t)) * 1e9)};
  while (nanosleep(&ts, &ts)) {}
}

/* ---- one logical request: attempts with retries ---- */

typedef struct {
  cJSON *root;      /* the reply: a JSON object from a 2xx; NULL on failure */
  int n_rejected;   /* failed with an HTTP 400 that names n */
  char error[512];
} reply;

static void call(cl1_policy *p, const char *req, int n_asked, reply *r) {
  oa_state *s = p->state;
  memset(r, 0, sizeof *r);
  double backoff = p->o.backoff_s;
  unsigned seed = (unsigned)(unsigned long long)(cl1_now() * 1e9) ^ (unsigned)(uintptr_t)r;
  for (int k = 1;; k++) {
    attempt a;
    memset(&a, 0, sizeof a);
    CURL *h = handle_take(p);
    if (h) attempt_run(p, h, s->url, req, p->o.timeout_s, 0, &a);
    handle_give(p, h);
    if (!h) {
      snprintf(r->error, sizeof r->error, "out of memory (curl handle)");
      return;
    }
    int v = attempt_judge(p, &a, n_asked, r->error, sizeof r->error, &r->n_rejected);
    if (v == A_OK) {
      r->root = cJSON_ParseWithLength(a.body.d ? a.body.d : "", a.body.n);
      if (!r->root || !cJSON_IsObject(r->root)) {
        char snip[400];
        one_line(a.body.d ? a.body.d : "", a.body.n, snip, sizeof snip);
        snprintf(r->error, sizeof r->error, "the reply from %s is not a JSON object (HTTP %ld, %zu bytes: %s)",
                 s->url, a.status, a.body.n, snip);
        scrub(p, r->error, sizeof r->error);
        cJSON_Delete(r->root);
        r->root = NULL;
      }
      free(a.body.d);
      return;
    }
    free(a.body.d);
    if (v == A_FINAL || k > p->o.retries) {
      if (v == A_RETRY && k > 1) {
        size_t l = strlen(r->error);
        snprintf(r->error + l, sizeof r->error - l, " (gave up after %d attempts)", k);
      }
      return;
    }
    cl1_log_debug("policy openai: attempt %d: %s; retrying", k, r->error);
    backoff_sleep(backoff, a.retry_after, &seed);
    backoff *= 2;
  }
}

/* ---- the reply's choices ---- */

static char *content_text(const cJSON *c) {
  if (cJSON_IsString(c)) return strdup(c->valuestring);
  if (!cJSON_IsArray(c)) return NULL;
  /* content parts: [{"type": "text", "text": "..."}, ...] */
  size_t len = 0;
  const cJSON *part;
  cJSON_ArrayForEach(part, c) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(part, "text");
    if (cJSON_IsString(t)) len += strlen(t->valuestring);
  }
  char *out = malloc(len + 1);
  if (!out) return NULL;
  size_t w = 0;
  cJSON_ArrayForEach(part, c) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(part, "text");
    if (!cJSON_IsString(t)) continue;
    size_t k = strlen(t->valuestring);
    memcpy(out + w, t->valuestring, k);
    w += k;
  }
  out[w] = 0;
  return out;
}

static void fill_one(cl1_policy *p, const cJSON *choice, cl1_completion *c) {
  oa_state *s = p->state;
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(choice, "message");
  const cJSON *fr = cJSON_GetObjectItemCaseSensitive(choice, "finish_reason");
  if (cJSON_IsString(fr)) cl1_strcpy(c->finish_reason, sizeof c->finish_reason, fr->valuestring);
  if (!cJSON_IsObject(m)) {
    cl1_policy_fail(c, "a choice in the reply from %s has no message", s->url);
    return;
  }
  const cJSON *rs = cJSON_GetObjectItemCaseSensitive(m, "reasoning_content");
  if (!cJSON_IsString(rs) || !*rs->valuestring) rs = cJSON_GetObjectItemCaseSensitive(m, "reasoning");
  if (cJSON_IsString(rs) && *rs->valuestring) c->reasoning = strdup(rs->valuestring);
  c->content = content_text(cJSON_GetObjectItemCaseSensitive(m, "content"));
  if (!c->content || !*c->content) {
    free(c->content);
    c->content = NULL;
    cl1_policy_fail(c, "empty content in the reply from %s (finish_reason: %s)", s->url,
                    c->finish_reason[0] ? c->finish_reason : "none");
    return;
  }
  c->ok = 1;
}

static int json_int(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 2e9 ? (int)v->valuedouble : 0;
}

/* Does every choice carry a distinct "index" in [0, k)? Then that is its place. */
static int indexes_usable(const cJSON *choices, int k) {
  unsigned char seen[256] = {0};
  if (k > (int)sizeof seen) return 0;
  for (int i = 0; i < k; i++) {
    const cJSON *ix = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(choices, i), "index");
    if (!cJSON_IsNumber(ix) || ix->valuedouble < 0 || ix->valuedouble >= k) return 0;
    int j = (int)ix->valuedouble;
    if (j != ix->valuedouble || seen[j]++) return 0;
  }
  return 1;
}

/* Fills out[0..n) from the reply's choices; returns how many it held (at most n; 0: none). */
static int fill_choices(cl1_policy *p, const cJSON *root, cl1_completion *out, int n, double t0) {
  const cJSON *choices = cJSON_GetObjectItemCaseSensitive(root, "choices");
  int k = cJSON_IsArray(choices) ? cJSON_GetArraySize(choices) : 0;
  if (k > n) k = n;
  int by_index = indexes_usable(choices, k);
  for (int i = 0; i < k; i++) {
    const cJSON *ch = cJSON_GetArrayItem(choices, i);
    int j = by_index ? (int)cJSON_GetObjectItemCaseSensitive(ch, "index")->valuedouble : i;
    fill_one(p, ch, &out[j]);
    out[j].latency_s = cl1_now() - t0;
  }
  if (k) {
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(root, "usage");
    out[0].prompt_tokens = json_int(u, "prompt_tokens");
    out[0].completion_tokens = json_int(u, "completion_tokens");
  }
  return k;
}

/* "the reply has no choices", with the server's words when it sent an error object. */
static void no_choices(cl1_policy *p, const cJSON *root, cl1_completion *c) {
  oa_state *s = p->state;
  char *t = cJSON_PrintUnformatted(root);
  char sm[400];
  server_message(t, t ? strlen(t) : 0, sm, sizeof sm, NULL);
  free(t);
  cl1_policy_fail(c, "the reply from %s has no choices: %s", s->url, sm);
  scrub(p, c->error, sizeof c->error);
}

/* ---- requests ---- */

static char *build_request(cl1_policy *p, const char *system, const char *user, int n, long long seed_off) {
  cJSON *o = cJSON_CreateObject(), *msgs = cJSON_CreateArray();
  cJSON_AddItemToObject(o, "messages", msgs);
  cJSON_AddStringToObject(o, "model", p->o.model);
  if (system && *system) {
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "role", "system");
    cJSON_AddStringToObject(m, "content", system);
    cJSON_AddItemToArray(msgs, m);
  }
  cJSON *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "role", "user");
  cJSON_AddStringToObject(m, "content", user);
  cJSON_AddItemToArray(msgs, m);
  cJSON_AddNumberToObject(o, "n", n);
  cJSON_AddNumberToObject(o, "temperature", p->o.temperature);
  cJSON_AddNumberToObject(o, "top_p", p->o.top_p);
  if (p->o.max_tokens > 0) cJSON_AddNumberToObject(o, "max_tokens", p->o.max_tokens);
  if (p->o.has_seed) { /* raw: a double would round seeds past 2^53 */
    char sd[32];
    snprintf(sd, sizeof sd, "%lld", p->o.seed + seed_off);
    cJSON_AddRawToObject(o, "seed", sd);
  }
  char *t = cJSON_PrintUnformatted(o); /* NULL if any allocation above failed */
  cJSON_Delete(o);
  return t;
}

typedef struct {
  cl1_policy *p;
  const char *system, *user;
  cl1_completion *out;
  int n;
  double t0;
  pthread_mutex_t mu;
  int next;               /* the next index of out to request */
} batch;

static void request_one(batch *b, int i) {
  cl1_completion *c = &b->out[i];
  char *req = build_request(b->p, b->system, b->user, 1, i);
  if (!req) {
    cl1_policy_fail(c, "out of memory (request)");
    return;
  }
  reply r;
  call(b->p, req, 1, &r);
  free(req);
  if (!r.root) {
    cl1_policy_fail(c, "%s", r.error);
  } else if (fill_choices(b->p, r.root, c, 1, b->t0) == 0) {
    no_choices(b->p, r.root, c);
  }
  if (!c->ok && !c->latency_s) c->latency_s = cl1_now() - b->t0;
  cJSON_Delete(r.root);
}

static void *batch_worker(void *ud) {
  batch *b = ud;
  for (;;) {
    pthread_mutex_lock(&b->mu);
    int i = b->next++;
    pthread_mutex_unlock(&b->mu);
    if (i >= b->n) return NULL;
    request_one(b, i);
  }
}

/* out[from..n) by separate n=1 requests, up to concurrency threads (the caller is one of them). */
static void request_parallel(cl1_policy *p, const char *system, const char *user, cl1_completion *out,
                             int from, int n, double t0) {
  batch b = {.p = p, .system = system, .user = user, .out = out, .n = n, .t0 = t0, .next = from};
  pthread_mutex_init(&b.mu, NULL);
  int want = n - from < p->o.concurrency ? n - from : p->o.concurrency;
  pthread_t *th = want > 1 ? calloc((size_t)want - 1, sizeof *th) : NULL;
  int started = 0;
  while (th && started < want - 1 && !pthread_create(&th[started], NULL, batch_worker, &b)) started++;
  batch_worker(&b); /* with no threads at all, the caller does every request itself */
  for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
  free(th);
  pthread_mutex_destroy(&b.mu);
}

static int oa_generate(cl1_policy *p, const char *task_id, const char *system, const char *user,
                       int n, cl1_completion *out, cl1_err *err) {
  (void)task_id;
  (void)err;
  oa_state *s = p->state;
  double t0 = cl1_now();
  int from = 0;
  if (n > 1 && !n1_only(s)) {
    char *req = build_request(p, system, user, n, 0);
    reply r = {0};
    if (req) call(p, req, n, &r);
    else snprintf(r.error, sizeof r.error, "out of memory (request)");
    free(req);
    int k = r.root ? fill_choices(p, r.root, out, n, t0) : 0;
    int failed = r.root ? k == 0 : !r.n_rejected; /* a failure that splitting would not mend */
    if (r.root && k == 0) {
      for (int i = 0; i < n; i++) no_choices(p, r.root, &out[i]);
    } else if (!r.root && failed) {
      for (int i = 0; i < n; i++) cl1_policy_fail(&out[i], "%s", r.error);
    }
    cJSON_Delete(r.root);
    if (failed) {
      for (int i = 0; i < n; i++) out[i].latency_s = cl1_now() - t0;
      return 0;
    }
    if (k == n) return 0;
    cl1_log_debug("policy openai: %s honours only n=1 (%s); sending separate requests", s->url,
                  r.n_rejected ? "it rejected n > 1" : "it sent fewer choices");
    set_n1_only(s);
    from = k;
  }
  request_parallel(p, system, user, out, from, n, t0);
  return 0;
}

static void oa_close(cl1_policy *p) {
  oa_state *s = p->state;
  if (!s) return;
  for (int i = 0; i < s->npool; i++) curl_easy_cleanup(s->pool[i]);
  free(s->pool);
  curl_slist_free_all(s->headers);
  pthread_mutex_destroy(&s->mu);
  free(s->url);
  free(s->base);
  free(s);
  p->state = NULL;
}

static int oa_open(cl1_policy *p, cl1_err *err) {
  pthread_once(&curl_once, curl_init);
  if (curl_init_rc != CURLE_OK)
    return cl1_err_set(err, "policy openai: libcurl did not initialise: %s", curl_easy_strerror(curl_init_rc));
  oa_state *s = calloc(1, sizeof *s);
  if (!s) return cl1_err_set(err, "policy openai: out of memory");
  p->state = s;
  pthread_mutex_init(&s->mu, NULL);
  size_t bl = strlen(p->o.base_url);
  while (bl && p->o.base_url[bl - 1] == '/') bl--;
  s->base = strndup(p->o.base_url, bl);
  s->url = malloc(bl + sizeof "/chat/completions");
  s->pool = calloc((size_t)p->o.concurrency, sizeof *s->pool);
  if (s->url) snprintf(s->url, bl + sizeof "/chat/completions", "%.*s/chat/completions", (int)bl, p->o.base_url);
  /* "Expect:" stops curl from waiting for a 100 Continue before sending a long prompt. */
  const char *fixed[] = {"Content-Type: application/json", "Accept: application/json", "Expect:"};
  int bad = !s->base || !s->url || !s->pool;
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed && !bad; i++) {
    struct curl_slist *h = curl_slist_append(s->headers, fixed[i]);
    if (h) s->headers = h;
    else bad = 1;
  }
  if (!bad && p->o.api_key && *p->o.api_key) {
    size_t kl = strlen(p->o.api_key) + sizeof "Authorization: Bearer ";
    char *line = malloc(kl);
    if (line) snprintf(line, kl, "Authorization: Bearer %s", p->o.api_key);
    struct curl_slist *h = line ? curl_slist_append(s->headers, line) : NULL;
    if (line) memset(line, 0, kl);
    free(line);
    if (h) s->headers = h;
    else bad = 1;
  }
  if (bad) {
    oa_close(p);
    return cl1_err_set(err, "policy openai: out of memory");
  }
  return 0;
}

/* ---- the preflight ---- */

/* Why a GET /models never got an answer, for "cannot reach URL: <why>". */
static void unreachable_cause(const attempt *a, double total_s, double connect_s, char *out, size_t cap) {
  if (a->rc == CURLE_COULDNT_CONNECT && a->os_errno) {
    snprintf(out, cap, "%s", strerror((int)a->os_errno));
    out[0] = (char)tolower((unsigned char)out[0]); /* "connection refused" */
    cl1_strcpy(out + strlen(out), cap - strlen(out), " (is the server running?)");
  } else if (a->rc == CURLE_COULDNT_RESOLVE_HOST || a->rc == CURLE_COULDNT_RESOLVE_PROXY) {
    snprintf(out, cap, "DNS: %s (is the host name right?)",
             a->curl_msg[0] ? a->curl_msg : curl_easy_strerror(a->rc));
  } else if (a->rc == CURLE_OPERATION_TIMEDOUT && a->connect_s <= 0) {
    snprintf(out, cap, "no connection within %g s (timeout; is the server up and the address right?)",
             connect_s < total_s ? connect_s : total_s);
  } else if (a->rc == CURLE_OPERATION_TIMEDOUT) {
    snprintf(out, cap, "connected, but no answer to GET /models within %g s (timeout)", total_s);
  } else {
    snprintf(out, cap, "%s", a->curl_msg[0] ? a->curl_msg : curl_easy_strerror(a->rc));
  }
}

/* Remembers the ids a /models answer lists ("a, b, c", cut short) when ours is not among them;
   returns 1 when it is. A body of another shape counts as no list. */
static int find_model(cl1_policy *p, const buf *body) {
  oa_state *s = p->state;
  cJSON *r = body->d ? cJSON_ParseWithLength(body->d, body->n) : NULL;
  const cJSON *data = cJSON_GetObjectItemCaseSensitive(r, "data"), *m;
  if (!cJSON_IsArray(data)) data = NULL;
  size_t w = 0;
  int found = 0, n = 0, shown = 0;
  s->listed[0] = 0;
  cJSON_ArrayForEach(m, data) {
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
    if (!cJSON_IsString(id)) continue;
    found |= !strcmp(id->valuestring, p->o.model);
    n++;
    if (w + strlen(id->valuestring) + 32 < sizeof s->listed) { /* room kept for the count */
      w += (size_t)snprintf(s->listed + w, sizeof s->listed - w, "%s%s", w ? ", " : "", id->valuestring);
      shown++;
    }
  }
  if (shown < n) snprintf(s->listed + w, sizeof s->listed - w, "%s... (%d in all)", w ? ", " : "", n);
  if (found) s->listed[0] = 0;
  cJSON_Delete(r);
  return found;
}

static int oa_check(cl1_policy *p, cl1_err *err) {
  oa_state *s = p->state;
  double total = p->o.timeout_s < CHECK_TOTAL_S ? p->o.timeout_s : CHECK_TOTAL_S;
  size_t ul = strlen(s->base) + sizeof "/models";
  char *url = malloc(ul);
  CURL *h = url ? curl_easy_init() : NULL;
  if (!h) {
    free(url);
    return cl1_err_set(err, "policy openai: out of memory"), 3;
  }
  snprintf(url, ul, "%s/models", s->base);
  attempt a;
  memset(&a, 0, sizeof a);
  attempt_run(p, h, url, NULL, total, CHECK_CONNECT_S, &a);
  curl_easy_cleanup(h);
  free(url);
  int rc = 0;
  char why[600], sm[400];
  if (a.rc != CURLE_OK && !a.body.over) {
    unreachable_cause(&a, total, CHECK_CONNECT_S, why, sizeof why);
    cl1_err_set(err, "cannot reach %s: %s", s->base, why);
    rc = 3;
  } else if (a.status == 401 || a.status == 403) {
    server_message(a.body.d, a.body.n, sm, sizeof sm, NULL);
    key_refused(p, a.status, sm, why, sizeof why);
    cl1_err_set(err, "%s", why);
    rc = 2;
  } else if (a.status >= 200 && a.status < 300 && !a.body.over && !find_model(p, &a.body)) {
    /* some servers (llama.cpp's) list one name and serve any: the first answer decides */
    if (s->listed[0])
      cl1_log_debug("policy openai: %s/models does not list '%s' (it lists %s); the first reply "
                    "decides", s->base, p->o.model, s->listed);
  } else if (a.status >= 300) {
    cl1_log_debug("policy openai: GET %s/models: HTTP %ld; the first reply decides", s->base, a.status);
  }
  free(a.body.d);
  if (rc && err) scrub(p, err->msg, sizeof err->msg);
  return rc;
}

const cl1_policy_backend cl1_policy_openai_backend = {oa_open, oa_generate, oa_close, oa_check};
