/* doctor_server.c — the doctor's check of the policy server (`--base-url URL [--model NAME]`):
 * GET URL/models with libcurl and short timeouts, and whether the model is in its list. Only
 * `cudal1 optimize --backend openai` needs the server, so a problem here is a warning. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include "doctor_int.h"

#define MAX_BODY (4u << 20)   /* a model list; more is not one */

typedef struct {
  char *p;
  size_t n;
  int too_big;
} body;

static size_t on_data(char *d, size_t sz, size_t nm, void *u) {
  body *b = u;
  size_t k = sz * nm;
  if (b->n + k > MAX_BODY) {
    b->too_big = 1;
    return 0;
  }
  char *q = realloc(b->p, b->n + k + 1);
  if (!q) return 0;
  memcpy(q + b->n, d, k);
  b->p = q, b->n += k, b->p[b->n] = 0;
  return k;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;
static void curl_init(void) { curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT); }

/* The ids of the reply's data[] into list ("a, b, c", at most n bytes); whether model is one of
 * them; -1 when the reply is not an OpenAI model list. */
static int model_ids(const char *json, const char *model, char *list, size_t n) {
  cJSON *j = cJSON_Parse(json);
  const cJSON *data = cJSON_GetObjectItemCaseSensitive(j, "data");
  int found = 0, count = 0;
  size_t k = 0;
  list[0] = 0;
  if (!cJSON_IsArray(data)) {
    cJSON_Delete(j);
    return -1;
  }
  const cJSON *m;
  cJSON_ArrayForEach(m, data) {
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
    if (!cJSON_IsString(id)) continue;
    count++;
    if (model && !strcmp(id->valuestring, model)) found = 1;
    if (k < n) {
      int w = snprintf(list + k, n - k, "%s%s", k ? ", " : "", id->valuestring);
      k += w > 0 ? (size_t)w : 0;
    }
  }
  if (!count) snprintf(list, n, "no models");
  cJSON_Delete(j);
  return found;
}

void cl1_doctor_probe_server(cl1_doctor_report *r, const char *base_url, const char *model,
                             const char *api_key, double timeout_s) {
  const char *fix_url = "start the server, or correct --base-url (only `cudal1 optimize "
                        "--backend openai` needs it)";
  char url[2048], auth[1200], err[CURL_ERROR_SIZE] = "", list[400];
  size_t k = strlen(base_url);
  while (k && base_url[k - 1] == '/') k--;
  snprintf(url, sizeof url, "%.*s/models", (int)k, base_url);
  pthread_once(&curl_once, curl_init);
  CURL *h = curl_init_rc == CURLE_OK ? curl_easy_init() : NULL;
  if (!h) {
    cl1_doctor_add(r, "server", "policy server", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_NONE,
                   "reinstall libcurl", "%s: libcurl did not initialise", url);
    return;
  }
  struct curl_slist *hdr = NULL;
  if (api_key && *api_key) {
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", api_key);
    hdr = curl_slist_append(NULL, auth);
  }
  body b = {0};
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  if (hdr) curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, err);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 3000L);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(timeout_s * 1000));
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_USERAGENT, "cudal1");
  CURLcode rc = curl_easy_perform(h);
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(h);
  curl_slist_free_all(hdr);
  if (rc != CURLE_OK)
    cl1_doctor_add(r, "server", "policy server", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_NONE, fix_url,
                   "%s: unreachable: %s", url,
                   b.too_big ? "the reply is larger than 4 MiB" : err[0] ? err : curl_easy_strerror(rc));
  else if (status == 401 || status == 403)
    cl1_doctor_add(r, "server", "policy server", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_NONE,
                   "set CUDAL1_API_KEY (or OPENAI_API_KEY) to a key the server accepts",
                   "%s: HTTP %ld: the server refused %s", url, status,
                   api_key && *api_key ? "the API key" : "a request without an API key");
  else if (status != 200)
    cl1_doctor_add(r, "server", "policy server", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_NONE,
                   "--base-url must be an OpenAI-compatible API root such as "
                   "http://127.0.0.1:8000/v1 (optimize posts to URL/chat/completions)",
                   "%s: HTTP %ld", url, status);
  else {
    int found = model_ids(b.p ? b.p : "", model, list, sizeof list);
    if (found < 0)
      cl1_doctor_add(r, "server", "policy server", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_NONE,
                     "--base-url must be an OpenAI-compatible API root such as "
                     "http://127.0.0.1:8000/v1",
                     "%s answered, but not with a model list ({\"data\": [{\"id\": ...}]})", url);
    else if (model && *model && !found)
      cl1_doctor_add(r, "server", "policy server", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_NONE,
                     "--model one of the models it lists", "%s does not list model '%s' (it has: %s)",
                     url, model, list);
    else
      cl1_doctor_add(r, "server", "policy server", CL1_DOCTOR_OK, CL1_DOCTOR_NEED_NONE, NULL,
                     "%s answers%s%s%s; models: %s", url, model && *model ? " and lists '" : "",
                     model && *model ? model : "", model && *model ? "'" : "", list);
  }
  free(b.p);
}
