/* serve_jobs.c — POST /v1/jobs and GET /v1/jobs/{id}: /v1/score as submit and poll, for batches
 * that take longer than a client's HTTP timeout. A job is a batch admitted to the same queues as
 * a scoring request's (the same --max-queue, the same cache and followers) and waited for by a
 * thread of its own; its answers are kept --job-ttl seconds after it finished, at most --max-jobs
 * jobs at once (the oldest finished one makes room). Jobs live in memory: after a restart a poll
 * is a 404 and the resubmitted batch is answered from the store for every item that finished. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <microhttpd.h>
#include "serve_int.h"
#include "../base/err.h"

static cJSON *error_doc(const char *msg) {
  cJSON *d = cJSON_CreateObject();
  cJSON_AddStringToObject(d, "error", msg);
  return d;
}

static bool random_id(char out[33]) {
  unsigned char r[16];
  if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) return false;
  for (int i = 0; i < 16; i++) snprintf(out + 2 * i, 3, "%02x", r[i]);
  return true;
}

static void job_free(cl1_serve_job *j) {
  assert(!j->batch);  /* a running job is never freed: its thread owns it */
  cJSON_Delete(j->results);
  free(j);
}

/* Finished jobs past --job-ttl go. Caller holds jobs_mu. */
static void purge(cl1_serve *svc, double now) {
  for (cl1_serve_job **p = &svc->jobs; *p;) {
    cl1_serve_job *j = *p;
    if (!j->batch && now - j->finished > svc->o->job_ttl_s) {
      *p = j->next;
      job_free(j);
    } else {
      p = &j->next;
    }
  }
}

/* Room for one more job: false when --max-jobs are kept and none has finished. The list is newest
 * first: the last finished one is the oldest. Caller holds jobs_mu. */
static bool make_room(cl1_serve *svc) {
  int n = 0;
  cl1_serve_job **oldest = NULL;
  for (cl1_serve_job **p = &svc->jobs; *p; p = &(*p)->next) {
    n++;
    if (!(*p)->batch) oldest = p;
  }
  if (n < svc->o->max_jobs) return true;
  if (!oldest) return false;
  cl1_serve_job *j = *oldest;
  *oldest = j->next;
  job_free(j);
  return true;
}

static void *job_thread(void *arg) {
  cl1_serve_job *j = arg;
  cl1_serve *svc = j->svc;
  cl1_serve_batch_wait(svc, j->batch, j->deadline_s);
  cJSON *doc = cl1_serve_results_doc(j->batch);
  pthread_mutex_lock(&svc->jobs_mu);
  cl1_serve_batch *b = j->batch;
  j->results = doc;
  j->batch = NULL;
  j->finished = cl1_now();
  pthread_mutex_unlock(&svc->jobs_mu);
  cl1_serve_batch_free(b);
  cl1_serve_request_done(svc);  /* the last touch of svc: the drain may end after it */
  return NULL;
}

/* The job's state as a poll answers it. Caller holds jobs_mu. */
static cJSON *job_doc(cl1_serve *svc, const cl1_serve_job *j) {
  cJSON *d = cJSON_CreateObject();
  cJSON_AddStringToObject(d, "job", j->id);
  cJSON_AddStringToObject(d, "status", j->batch ? "running" : "done");
  cJSON_AddNumberToObject(d, "items", j->n);
  cJSON_AddNumberToObject(d, "done", j->batch ? j->n - cl1_serve_batch_left(svc, j->batch) : j->n);
  cJSON_AddNumberToObject(d, "age_s", cl1_now() - j->submitted);
  if (j->results)
    cJSON_AddItemToObject(
        d, "results",
        cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(j->results, "results"), 1));
  return d;
}

unsigned cl1_serve_job_submit(cl1_serve *svc, cl1_serve_batch *b, double deadline_s,
                              cJSON **answer, int *retry) {
  cl1_serve_job *j = calloc(1, sizeof *j);
  if (j) *j = (cl1_serve_job){.svc = svc, .batch = b, .deadline_s = deadline_s, .n = b->n};
  if (!j || !random_id(j->id)) {
    free(j);
    cl1_serve_batch_free(b);
    *answer = error_doc("cannot make a job id (out of memory or no random bytes)");
    return MHD_HTTP_INTERNAL_SERVER_ERROR;
  }
  pthread_mutex_lock(&svc->jobs_mu);
  j->submitted = cl1_now();
  purge(svc, j->submitted);
  unsigned st = make_room(svc) ? (unsigned)cl1_serve_batch_admit(svc, b, retry) : 0;
  if (st != 200) {
    pthread_mutex_unlock(&svc->jobs_mu);
    char msg[200];
    if (st == 0) {
      snprintf(msg, sizeof msg, "--max-jobs %d jobs are running: poll them, or retry later",
               svc->o->max_jobs);
      *retry = 5;
    }
    *answer = error_doc(st == 0 ? msg : svc->stopping ? "the service is stopping"
                                                     : "the queue is full (--max-queue)");
    j->batch = NULL;
    job_free(j);
    cl1_serve_batch_free(b);
    return MHD_HTTP_SERVICE_UNAVAILABLE;
  }
  j->next = svc->jobs;
  svc->jobs = j;
  svc->jobs_submitted++;
  *answer = job_doc(svc, j);
  pthread_mutex_unlock(&svc->jobs_mu);
  pthread_t t;
  pthread_attr_t at;
  bool started = !pthread_attr_init(&at) &&
                 !pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED) &&
                 !pthread_create(&t, &at, job_thread, j);
  pthread_attr_destroy(&at);
  if (!started) job_thread(j);  /* no thread to spare: the submit waits for its job instead */
  return MHD_HTTP_ACCEPTED;
}

cJSON *cl1_serve_job_get(cl1_serve *svc, const char *id) {
  pthread_mutex_lock(&svc->jobs_mu);
  purge(svc, cl1_now());
  cJSON *d = NULL;
  for (cl1_serve_job *j = svc->jobs; j && !d; j = j->next)
    if (!strcmp(j->id, id)) d = job_doc(svc, j);
  pthread_mutex_unlock(&svc->jobs_mu);
  return d;
}

void cl1_serve_jobs_stats(cl1_serve *svc, cJSON *stats) {
  int running = 0, kept = 0;
  pthread_mutex_lock(&svc->jobs_mu);
  for (cl1_serve_job *j = svc->jobs; j; j = j->next) j->batch ? running++ : kept++;
  long submitted = svc->jobs_submitted;
  pthread_mutex_unlock(&svc->jobs_mu);
  cJSON *o = cJSON_AddObjectToObject(stats, "jobs");
  cJSON_AddNumberToObject(o, "running", running);
  cJSON_AddNumberToObject(o, "finished_kept", kept);
  cJSON_AddNumberToObject(o, "submitted", (double)submitted);
}

void cl1_serve_jobs_free(cl1_serve *svc) {
  while (svc->jobs) {
    cl1_serve_job *j = svc->jobs;
    svc->jobs = j->next;
    job_free(j);
  }
}
