/* fake_llm.h — a scripted OpenAI-compatible chat-completions server for tests (libmicrohttpd, on
 * 127.0.0.1 with a free port, a thread per connection so a slow reply holds up no other). It
 * answers POST /v1/chat/completions from a queue of scripted replies, consumed in arrival order:
 * proper completions (n choices built to match the request), raw bodies with any status (broken
 * JSON, 429s, 500s), each with an optional delay and an extra header. With the queue empty, a
 * default handler chosen by the test writes each choice from the request. Every request is
 * recorded (body, Authorization header) and the most requests ever in flight at once is counted.
 * GET /v1/models answers 404 (a server without the route) unless the test gives a model list
 * (optionally refusing chat requests for other models, as vLLM does) or a raw answer; those
 * requests are counted apart, not recorded. A key set with fake_llm_set_key is demanded of
 * every request (HTTP 401 without it).
 *
 *   fake_llm *f = fake_llm_start();
 *   fake_llm_push_completion(f, "```cuda\n...\n```");
 *   fake_llm_push_raw(f, 429, "{\"error\":{\"message\":\"slow down\"}}", 0);
 *   ... point the policy at fake_llm_url(f) ...
 *   fake_llm_stop(f);
 */
#ifndef CL1_FAKE_LLM_H
#define CL1_FAKE_LLM_H
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The content of choice `choice` for a request (its raw JSON body), as a malloc'd string the
   server frees; NULL answers HTTP 500. Called from the server's threads, possibly at once. */
typedef char *(*fake_llm_fn)(void *ud, const char *request_body, int choice);

enum {
  FAKE_LLM_N_OK,     /* n choices for a request with n (default) */
  FAKE_LLM_N_REJECT, /* HTTP 400 "n must be 1" for any request with n > 1 (the script is untouched) */
  FAKE_LLM_N_IGNORE, /* one choice whatever n was asked (completions only) */
};

/* One scripted reply (fake_llm_push copies every string). */
typedef struct {
  int status;                       /* 0: 200 */
  const char *body;                 /* raw body sent as is; NULL: a completion built from contents */
  const char *const *contents;      /* choice i gets contents[i % ncontents] */
  int ncontents;
  int exact;                        /* exactly ncontents choices, whatever n the request asked */
  const char *reasoning;            /* sent as reasoning_content on every choice */
  const char *finish_reason;        /* NULL: "stop" */
  int delay_ms;                     /* before replying; -1: the server's default delay */
  const char *header_name, *header_value; /* one extra response header (e.g. Retry-After) */
} fake_llm_reply;

typedef struct fake_llm_entry {
  int status, ncontents, exact, delay_ms;
  char *body, **contents, *reasoning, *finish_reason, *header_name, *header_value;
  struct fake_llm_entry *next;
} fake_llm_entry;

typedef struct {
  char *method, *path, *body;
  char *auth;                       /* the Authorization header; NULL when absent */
} fake_llm_request;

typedef struct fake_llm {
  struct MHD_Daemon *d;
  int port;
  char url[64];
  pthread_mutex_t mu;               /* guards all below */
  pthread_cond_t cv;                /* wakes delayed replies when the server stops */
  int stopping;
  fake_llm_entry *head, *tail;
  fake_llm_fn fn;
  void *fn_ud;
  int n_mode, delay_ms;
  fake_llm_request *req;
  int nreq, capreq;
  int in_flight, max_in_flight;
  long served;
  char **models;                    /* GET /v1/models lists these (nmodels >= 0 once set) */
  int nmodels, models_strict;       /* strict: chat for another model gets vLLM's 404 */
  int models_status;                /* a raw GET /v1/models answer (0: none) ... */
  char *models_body;                /* ... with this body */
  int models_requests;
  char *key;                        /* demanded as "Bearer <key>" (NULL: nothing demanded) */
} fake_llm;

/* ---- the script ---- */

static inline char *fake_llm__dup(const char *s) { return s ? strdup(s) : NULL; }

static inline void fake_llm__free_entry(fake_llm_entry *e) {
  if (!e) return;
  for (int i = 0; i < e->ncontents; i++) free(e->contents[i]);
  free(e->contents);
  free(e->body);
  free(e->reasoning);
  free(e->finish_reason);
  free(e->header_name);
  free(e->header_value);
  free(e);
}

static inline void fake_llm_push(fake_llm *f, const fake_llm_reply *r) {
  fake_llm_entry *e = calloc(1, sizeof *e);
  e->status = r->status ? r->status : 200;
  e->body = fake_llm__dup(r->body);
  e->ncontents = r->ncontents;
  e->exact = r->exact;
  e->contents = calloc((size_t)(r->ncontents > 0 ? r->ncontents : 1), sizeof *e->contents);
  for (int i = 0; i < r->ncontents; i++) e->contents[i] = fake_llm__dup(r->contents[i]);
  e->reasoning = fake_llm__dup(r->reasoning);
  e->finish_reason = fake_llm__dup(r->finish_reason ? r->finish_reason : "stop");
  e->delay_ms = r->delay_ms;
  e->header_name = fake_llm__dup(r->header_name);
  e->header_value = fake_llm__dup(r->header_value);
  pthread_mutex_lock(&f->mu);
  if (f->tail) f->tail->next = e;
  else f->head = e;
  f->tail = e;
  pthread_mutex_unlock(&f->mu);
}

/* A raw reply: this status and body, after delay_ms (-1: the server's default). */
static inline void fake_llm_push_raw(fake_llm *f, int status, const char *body, int delay_ms) {
  fake_llm_reply r = {.status = status, .body = body, .delay_ms = delay_ms};
  fake_llm_push(f, &r);
}

/* A completion whose n choices (n from the request) all say content. */
static inline void fake_llm_push_completion(fake_llm *f, const char *content) {
  fake_llm_reply r = {.contents = &content, .ncontents = 1, .delay_ms = -1};
  fake_llm_push(f, &r);
}

/* A completion of exactly k choices, contents[i] for choice i, whatever n was asked. */
static inline void fake_llm_push_choices(fake_llm *f, const char *const *contents, int k) {
  fake_llm_reply r = {.contents = contents, .ncontents = k, .exact = 1, .delay_ms = -1};
  fake_llm_push(f, &r);
}

/* The default handler for requests that find the script empty (NULL: answer HTTP 400). */
static inline void fake_llm_set_default(fake_llm *f, fake_llm_fn fn, void *ud) {
  pthread_mutex_lock(&f->mu);
  f->fn = fn;
  f->fn_ud = ud;
  pthread_mutex_unlock(&f->mu);
}

static inline void fake_llm_set_n_mode(fake_llm *f, int mode) {
  pthread_mutex_lock(&f->mu);
  f->n_mode = mode;
  pthread_mutex_unlock(&f->mu);
}

/* The delay of every reply that does not set its own (completions from the default handler too). */
static inline void fake_llm_set_delay(fake_llm *f, int ms) {
  pthread_mutex_lock(&f->mu);
  f->delay_ms = ms;
  pthread_mutex_unlock(&f->mu);
}

static inline void fake_llm__free_models(fake_llm *f) {
  for (int i = 0; i < f->nmodels; i++) free(f->models[i]);
  free(f->models);
  f->models = NULL;
  f->nmodels = 0;
  free(f->models_body);
  f->models_body = NULL;
  f->models_status = 0;
}

/* GET /v1/models lists ids[0..n); strict: a chat request naming another model gets HTTP 404
   "The model `X` does not exist." (vLLM's answer) without touching the script. */
static inline void fake_llm_set_models(fake_llm *f, const char *const *ids, int n, int strict) {
  pthread_mutex_lock(&f->mu);
  fake_llm__free_models(f);
  f->models = calloc((size_t)(n > 0 ? n : 1), sizeof *f->models);
  for (int i = 0; i < n; i++) f->models[i] = strdup(ids[i]);
  f->nmodels = n;
  f->models_strict = strict;
  pthread_mutex_unlock(&f->mu);
}

/* GET /v1/models answers this status and body instead. */
static inline void fake_llm_set_models_raw(fake_llm *f, int status, const char *body) {
  pthread_mutex_lock(&f->mu);
  fake_llm__free_models(f);
  f->models_status = status;
  f->models_body = strdup(body);
  pthread_mutex_unlock(&f->mu);
}

/* Every request must carry "Authorization: Bearer <key>" or gets HTTP 401 (NULL: none needed). */
static inline void fake_llm_set_key(fake_llm *f, const char *key) {
  pthread_mutex_lock(&f->mu);
  free(f->key);
  f->key = fake_llm__dup(key);
  pthread_mutex_unlock(&f->mu);
}

/* ---- what the server saw ---- */

/* How many GET /v1/models requests came (they are not in the request records). */
static inline int fake_llm_models_requests(fake_llm *f) {
  pthread_mutex_lock(&f->mu);
  int n = f->models_requests;
  pthread_mutex_unlock(&f->mu);
  return n;
}


static inline int fake_llm_request_count(fake_llm *f) {
  pthread_mutex_lock(&f->mu);
  int n = f->nreq;
  pthread_mutex_unlock(&f->mu);
  return n;
}

/* Request i's body / Authorization header (NULL: absent or no such request); valid until stop. */
static inline const char *fake_llm_request_body(fake_llm *f, int i) {
  pthread_mutex_lock(&f->mu);
  const char *b = i >= 0 && i < f->nreq ? f->req[i].body : NULL;
  pthread_mutex_unlock(&f->mu);
  return b;
}

static inline const char *fake_llm_request_auth(fake_llm *f, int i) {
  pthread_mutex_lock(&f->mu);
  const char *a = i >= 0 && i < f->nreq ? f->req[i].auth : NULL;
  pthread_mutex_unlock(&f->mu);
  return a;
}

/* Request i's body parsed (the caller deletes it); NULL if absent or not JSON. */
static inline cJSON *fake_llm_request_json(fake_llm *f, int i) {
  const char *b = fake_llm_request_body(f, i);
  return b ? cJSON_Parse(b) : NULL;
}

/* How many requests asked for n == k (k = 1 also counts requests without n). */
static inline int fake_llm_count_n(fake_llm *f, int k) {
  int c = 0, total = fake_llm_request_count(f);
  for (int i = 0; i < total; i++) {
    cJSON *j = fake_llm_request_json(f, i);
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(j, "n");
    if (j && (cJSON_IsNumber(n) ? n->valueint == k : k == 1)) c++;
    cJSON_Delete(j);
  }
  return c;
}

static inline int fake_llm_max_in_flight(fake_llm *f) {
  pthread_mutex_lock(&f->mu);
  int m = f->max_in_flight;
  pthread_mutex_unlock(&f->mu);
  return m;
}

/* Scripted replies not yet consumed. */
static inline int fake_llm_pending(fake_llm *f) {
  pthread_mutex_lock(&f->mu);
  int n = 0;
  for (fake_llm_entry *e = f->head; e; e = e->next) n++;
  pthread_mutex_unlock(&f->mu);
  return n;
}

static inline const char *fake_llm_url(fake_llm *f) { return f->url; }

/* ---- serving ---- */

typedef struct {
  char *d;
  size_t n, cap;
} fake_llm__buf;

static inline void fake_llm__put(fake_llm__buf *b, const char *s, size_t k) {
  if (b->n + k + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->n + k + 1) cap *= 2;
    b->d = realloc(b->d, cap);
    b->cap = cap;
  }
  memcpy(b->d + b->n, s, k);
  b->n += k;
  b->d[b->n] = 0;
}

static inline enum MHD_Result fake_llm__send(struct MHD_Connection *con, int status, char *body,
                                             const fake_llm_entry *e) {
  struct MHD_Response *r = MHD_create_response_from_buffer_with_free_callback(strlen(body), body, free);
  MHD_add_response_header(r, "Content-Type", "application/json");
  if (e && e->header_name) MHD_add_response_header(r, e->header_name, e->header_value ? e->header_value : "");
  enum MHD_Result ok = MHD_queue_response(con, (unsigned)status, r);
  MHD_destroy_response(r);
  return ok;
}

/* Waits ms unless the server stops first; returns 0 when stopping. Called with f->mu held. */
static inline int fake_llm__wait(fake_llm *f, int ms) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_sec += ms / 1000;
  ts.tv_nsec += (long)(ms % 1000) * 1000000L;
  if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
  while (!f->stopping && pthread_cond_timedwait(&f->cv, &f->mu, &ts) != ETIMEDOUT) {}
  return !f->stopping;
}

/* A chat.completion body with k choices; the contents come from the entry or the default handler. */
static inline char *fake_llm__completion(fake_llm *f, const fake_llm_entry *e, fake_llm_fn fn, void *ud,
                                         const char *req_body, const char *model, int k, int *status) {
  cJSON *o = cJSON_CreateObject(), *choices = cJSON_CreateArray();
  long id;
  pthread_mutex_lock(&f->mu);
  id = ++f->served;
  pthread_mutex_unlock(&f->mu);
  char idbuf[32];
  snprintf(idbuf, sizeof idbuf, "fake-%ld", id);
  cJSON_AddStringToObject(o, "id", idbuf);
  cJSON_AddStringToObject(o, "object", "chat.completion");
  cJSON_AddNumberToObject(o, "created", 0);
  cJSON_AddStringToObject(o, "model", model ? model : "fake");
  cJSON_AddItemToObject(o, "choices", choices);
  size_t out_chars = 0;
  for (int i = 0; i < k; i++) {
    char *text = e ? fake_llm__dup(e->contents[i % e->ncontents]) : fn(ud, req_body, i);
    if (!text) {
      cJSON_Delete(o);
      *status = 500;
      return strdup("{\"error\":{\"message\":\"fake_llm: the default handler gave no content\"}}");
    }
    out_chars += strlen(text);
    cJSON *c = cJSON_CreateObject(), *m = cJSON_CreateObject();
    cJSON_AddNumberToObject(c, "index", i);
    cJSON_AddStringToObject(m, "role", "assistant");
    cJSON_AddStringToObject(m, "content", text);
    if (e && e->reasoning) cJSON_AddStringToObject(m, "reasoning_content", e->reasoning);
    cJSON_AddItemToObject(c, "message", m);
    cJSON_AddStringToObject(c, "finish_reason", e ? e->finish_reason : "stop");
    cJSON_AddItemToArray(choices, c);
    free(text);
  }
  /* token counts: a deterministic stand-in, about four characters a token */
  cJSON *u = cJSON_CreateObject();
  cJSON_AddNumberToObject(u, "prompt_tokens", (double)(strlen(req_body) / 4));
  cJSON_AddNumberToObject(u, "completion_tokens", (double)(out_chars / 4));
  cJSON_AddNumberToObject(u, "total_tokens", (double)(strlen(req_body) / 4 + out_chars / 4));
  cJSON_AddItemToObject(o, "usage", u);
  char *t = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  *status = 200;
  return t;
}

/* Does the request lack the key the server demands? Called with f->mu held. */
static inline int fake_llm__unauthorised(fake_llm *f, const char *auth) {
  if (!f->key) return 0;
  return !auth || strncmp(auth, "Bearer ", 7) || strcmp(auth + 7, f->key);
}

/* GET /v1/models: the list, the raw answer, or 404. */
static inline enum MHD_Result fake_llm__models(fake_llm *f, struct MHD_Connection *con, const char *auth) {
  int status = 200;
  char *reply;
  pthread_mutex_lock(&f->mu);
  f->models_requests++;
  if (fake_llm__unauthorised(f, auth)) {
    status = 401;
    reply = strdup("{\"error\":{\"message\":\"Incorrect API key provided\",\"code\":\"invalid_api_key\"}}");
  } else if (f->models_status) {
    status = f->models_status;
    reply = strdup(f->models_body);
  } else if (f->models) {
    cJSON *o = cJSON_CreateObject(), *data = cJSON_AddArrayToObject(o, "data");
    cJSON_AddStringToObject(o, "object", "list");
    for (int i = 0; i < f->nmodels; i++) {
      cJSON *m = cJSON_CreateObject();
      cJSON_AddStringToObject(m, "id", f->models[i]);
      cJSON_AddStringToObject(m, "object", "model");
      cJSON_AddItemToArray(data, m);
    }
    reply = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
  } else {
    status = 404;
    reply = strdup("{\"detail\":\"Not Found\"}");
  }
  pthread_mutex_unlock(&f->mu);
  return fake_llm__send(con, status, reply, NULL);
}

static inline enum MHD_Result fake_llm__answer(fake_llm *f, struct MHD_Connection *con, const char *method,
                                               const char *url, const char *body) {
  const char *auth = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Authorization");
  if (!strcmp(method, "GET") && !strcmp(url, "/v1/models")) return fake_llm__models(f, con, auth);
  pthread_mutex_lock(&f->mu);
  if (f->nreq == f->capreq) {
    f->capreq = f->capreq ? 2 * f->capreq : 16;
    f->req = realloc(f->req, (size_t)f->capreq * sizeof *f->req);
  }
  fake_llm_request *rq = &f->req[f->nreq++];
  rq->method = strdup(method);
  rq->path = strdup(url);
  rq->body = strdup(body);
  rq->auth = fake_llm__dup(auth);
  if (++f->in_flight > f->max_in_flight) f->max_in_flight = f->in_flight;
  pthread_mutex_unlock(&f->mu);

  int status = 200;
  char *reply = NULL;
  fake_llm_entry *e = NULL;
  cJSON *req = cJSON_Parse(body);
  const cJSON *nj = cJSON_GetObjectItemCaseSensitive(req, "n");
  const cJSON *model = cJSON_GetObjectItemCaseSensitive(req, "model");
  int n = cJSON_IsNumber(nj) ? nj->valueint : 1;
  pthread_mutex_lock(&f->mu);
  int delay = f->delay_ms, n_mode = f->n_mode;
  fake_llm_fn fn = f->fn;
  void *ud = f->fn_ud;
  int model_known = !f->models_strict || !cJSON_IsString(model);
  for (int i = 0; !model_known && i < f->nmodels; i++) model_known = !strcmp(f->models[i], model->valuestring);
  if (fake_llm__unauthorised(f, auth)) {
    status = 401;
    reply = strdup("{\"error\":{\"message\":\"Incorrect API key provided\",\"code\":\"invalid_api_key\"}}");
  } else if (strcmp(method, "POST") || strcmp(url, "/v1/chat/completions")) {
    status = 404;
    reply = strdup("{\"error\":{\"message\":\"fake_llm: only POST /v1/chat/completions\"}}");
  } else if (!model_known) {
    char msg[300];
    snprintf(msg, sizeof msg, "{\"object\":\"error\",\"message\":\"The model `%.200s` does not exist.\","
             "\"type\":\"NotFoundError\",\"code\":404}", model->valuestring);
    status = 404;
    reply = strdup(msg);
  } else if (!cJSON_IsObject(req)) {
    status = 400;
    reply = strdup("{\"error\":{\"message\":\"fake_llm: the request is not a JSON object\"}}");
  } else if (n > 1 && n_mode == FAKE_LLM_N_REJECT) {
    status = 400;
    reply = strdup("{\"error\":{\"message\":\"n must be 1: this server returns one choice\","
                   "\"type\":\"invalid_request_error\"}}");
  } else if (f->head) {
    e = f->head;
    f->head = e->next;
    if (!f->head) f->tail = NULL;
    if (e->delay_ms >= 0) delay = e->delay_ms;
  } else if (!fn) {
    status = 400;
    reply = strdup("{\"error\":{\"message\":\"fake_llm: the script is empty and there is no default handler\"}}");
  }
  int alive = delay > 0 ? fake_llm__wait(f, delay) : !f->stopping;
  pthread_mutex_unlock(&f->mu);

  if (alive && !reply) {
    if (e && e->body) {
      status = e->status;
      reply = strdup(e->body);
    } else {
      int k = e && (e->exact || !e->ncontents) ? e->ncontents : n_mode == FAKE_LLM_N_IGNORE ? 1 : n;
      reply = fake_llm__completion(f, e, fn, ud, body, cJSON_IsString(model) ? model->valuestring : NULL,
                                   k, &status);
      if (e && e->status != 200) status = e->status;
    }
  }
  cJSON_Delete(req);
  enum MHD_Result ok = MHD_NO; /* stopping: drop the connection */
  if (alive) ok = fake_llm__send(con, status, reply, e);
  else free(reply);
  fake_llm__free_entry(e);
  pthread_mutex_lock(&f->mu);
  f->in_flight--;
  pthread_mutex_unlock(&f->mu);
  return ok;
}

static inline enum MHD_Result fake_llm__handler(void *cls, struct MHD_Connection *con, const char *url,
                                                const char *method, const char *version,
                                                const char *upload_data, size_t *upload_data_size,
                                                void **con_cls) {
  (void)version;
  fake_llm *f = cls;
  fake_llm__buf *b = *con_cls;
  if (!b) { /* headers only so far */
    *con_cls = calloc(1, sizeof *b);
    return *con_cls ? MHD_YES : MHD_NO;
  }
  if (*upload_data_size) {
    fake_llm__put(b, upload_data, *upload_data_size);
    *upload_data_size = 0;
    return MHD_YES;
  }
  return fake_llm__answer(f, con, method, url, b->d ? b->d : "");
}

static inline void fake_llm__done(void *cls, struct MHD_Connection *con, void **con_cls,
                                  enum MHD_RequestTerminationCode toe) {
  (void)cls;
  (void)con;
  (void)toe;
  fake_llm__buf *b = *con_cls;
  if (b) free(b->d);
  free(b);
  *con_cls = NULL;
}

/* Starts the server on 127.0.0.1 with a free port; NULL (reason on stderr) on failure. */
static inline fake_llm *fake_llm_start(void) {
  fake_llm *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  pthread_mutex_init(&f->mu, NULL);
  pthread_cond_init(&f->cv, NULL);
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_port = 0;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  f->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL, NULL,
                          fake_llm__handler, f, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                          MHD_OPTION_NOTIFY_COMPLETED, fake_llm__done, f, MHD_OPTION_END);
  const union MHD_DaemonInfo *di = f->d ? MHD_get_daemon_info(f->d, MHD_DAEMON_INFO_BIND_PORT) : NULL;
  if (!di || !di->port) {
    fprintf(stderr, "fake_llm: cannot start the server on 127.0.0.1\n");
    if (f->d) MHD_stop_daemon(f->d);
    free(f);
    return NULL;
  }
  f->port = di->port;
  snprintf(f->url, sizeof f->url, "http://127.0.0.1:%d/v1", f->port);
  return f;
}

/* ---- servers that are not there ---- */

/* A port on 127.0.0.1 nobody listens on (bound, read back, closed); 0 on failure. */
static inline int fake_llm_closed_port(void) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t sl = sizeof sa;
  int port = s >= 0 && !bind(s, (struct sockaddr *)&sa, sizeof sa) &&
             !getsockname(s, (struct sockaddr *)&sa, &sl) ? ntohs(sa.sin_port) : 0;
  if (s >= 0) close(s);
  return port;
}

/* A socket on 127.0.0.1 that takes connections (the kernel's backlog) and never answers;
   returns its fd (close it when done) and the port in *port, or -1. */
static inline int fake_llm_silent_listener(int *port) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t sl = sizeof sa;
  if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof sa) || listen(s, 16) ||
      getsockname(s, (struct sockaddr *)&sa, &sl)) {
    if (s >= 0) close(s);
    return -1;
  }
  *port = ntohs(sa.sin_port);
  return s;
}

/* Stops the server (delayed replies are cut short) and frees everything, records included. */
static inline void fake_llm_stop(fake_llm *f) {
  if (!f) return;
  pthread_mutex_lock(&f->mu);
  f->stopping = 1;
  pthread_cond_broadcast(&f->cv);
  pthread_mutex_unlock(&f->mu);
  MHD_stop_daemon(f->d);
  while (f->head) {
    fake_llm_entry *e = f->head;
    f->head = e->next;
    fake_llm__free_entry(e);
  }
  for (int i = 0; i < f->nreq; i++) {
    free(f->req[i].method);
    free(f->req[i].path);
    free(f->req[i].body);
    free(f->req[i].auth);
  }
  free(f->req);
  fake_llm__free_models(f);
  free(f->key);
  pthread_cond_destroy(&f->cv);
  pthread_mutex_destroy(&f->mu);
  free(f);
}

#endif
