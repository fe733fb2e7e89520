/* policy.h — the policy (an LLM) behind one interface: n completions for one prompt. Backends:
 * "openai" (any OpenAI-compatible chat-completions server, through libcurl: vLLM, SGLang,
 * llama.cpp server, hosted APIs) and "replay" (completions read from a JSONL file: tests, demos,
 * offline reruns). One cl1_policy is shared by every thread of a run; its concurrency limit bounds
 * the requests in flight across all of them. */
#ifndef CL1_POLICY_H
#define CL1_POLICY_H
#include "../base/err.h"

/* A reply body larger than this is an error (a broken or hostile server), not an allocation. */
#define CL1_POLICY_MAX_REPLY (32u << 20)

typedef struct {
  char *content;          /* the assistant message text (owned; NULL on failure) */
  char *reasoning;        /* reasoning_content if the server sent one (owned, may be NULL) */
  char finish_reason[32]; /* "stop", "length", ... ("" if unknown) */
  int ok;                 /* 1: a completion; 0: failed after retries (error says why) */
  char error[512];
  double latency_s;       /* from the call until this completion's reply, retries included */
  /* From the reply's usage, 0 if absent. When one request produced several choices, the
     request's usage sits on the first of them and the others carry 0, so sums stay right. */
  int prompt_tokens, completion_tokens;
  int replayed;           /* 1 if it came from the replay backend */
} cl1_completion;

typedef struct {
  const char *kind;           /* "openai" | "replay" */
  const char *base_url;       /* openai: e.g. http://127.0.0.1:8000/v1 (POST base_url + "/chat/completions") */
  const char *model;          /* openai: required */
  const char *api_key;        /* may be NULL or "" (no Authorization header); never in errors */
  const char *replay_path;    /* replay: JSONL file (its format: replay.c) */
  double temperature, top_p;  /* defaults 1.0, 1.0 */
  int max_tokens;             /* 0 (default): not sent, the server's own limit applies */
  long long seed;             /* sent when has_seed; request i of a split n gets seed + i */
  int has_seed;
  int concurrency;            /* max requests in flight (default 4) */
  double timeout_s;           /* per request (default 600) */
  int retries;                /* on 429/5xx/timeouts/connection errors (default 5) */
  double backoff_s;           /* first backoff, doubled each retry, +-25% jitter, at least any
                                 Retry-After (capped at 300 s) (default 1.0) */
} cl1_policy_opts;

void cl1_policy_opts_default(cl1_policy_opts *o);

typedef struct cl1_policy cl1_policy;

/* Checks the options and prepares the backend (replay: reads and validates the whole file, so a
   malformed line fails here naming FILE:LINE). The strings in o are copied. */
int cl1_policy_open(const cl1_policy_opts *o, cl1_policy **out, cl1_err *err);

/* n completions for one prompt, into out[0..n) (overwritten, not freed: clear earlier ones
   first); blocking; safe to call from several threads at once (the concurrency limit is shared).
   system may be NULL or "" (no system message); task_id picks the replay backend's lines (the
   openai backend ignores it). Returns 0 when the call itself was well-formed —
   individual completions may have ok=0 with an error; non-zero + err for a usage problem. */
int cl1_policy_generate(cl1_policy *p, const char *task_id, const char *system, const char *user,
                        int n, cl1_completion *out, cl1_err *err);

/* Before a run: can the backend serve at all? openai asks GET {base_url}/models (a short
   connect timeout, no retries). Returns 0 when it may go on (replay: always), 3 with err naming
   the URL and the cause when the server cannot be reached (connection refused, DNS, timeout),
   2 with err when it refuses the API key (401/403). A server without /models, or one that does
   not list the model (some serve any name), passes: its first answer decides, through
   cl1_policy_fatal. */
int cl1_policy_check(cl1_policy *p, cl1_err *err);

/* 0 while requests may still succeed; 2 with err once an answer showed that none will: the API
   key refused, the model unknown to the server, no chat-completions route at the base URL (a
   404). Safe from any thread; the completions of that request carry the server's own error. */
int cl1_policy_fatal(cl1_policy *p, cl1_err *err);

/* Frees a completion's strings and zeroes it (safe on a zeroed one). */
void cl1_completion_clear(cl1_completion *c);

/* Frees the policy; no generate may be running. NULL is fine. */
void cl1_policy_close(cl1_policy *p);

#endif
