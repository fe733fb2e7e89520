/* test_doctor.c — `cudal1 doctor` as a user runs it: exit 0 on a CPU machine that has what the
 * host backend needs, the GPU line missing with the host backend named; the cache line showing
 * what cl1_llc_read says, and a fake sysfs (CUDAL1_SYSFS_ROOT) with a 1 GiB cache giving 1 GiB /
 * sysfs and a flush capped at 256 MiB; --json parsing with every item; a broken suite, worker
 * and compile cache named as fatal with exit 3; the policy server unreachable on a closed port,
 * listing or not listing the model on a local one, and never changing the exit status. What
 * depends on this machine (its cache, its Landlock, its Python) is compared, never assumed. */
#include "harness.h"
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "base/llc.h"
#include "eval/doctor.h"

static char out[1 << 17];

/* Runs `cudal1 doctor ARGS` with ENV before it (stderr into out too); the exit status. */
static int doctor(const char *env, const char *args) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s %s/cudal1 doctor %s 2>&1", env ? env : "", th_build(), args);
  return th_run(cmd, out, sizeof out);
}

/* The text line of the item with this label (copied into line); NULL when there is none. The
 * layout: two spaces, the status in 8 columns, a space, the label. */
static const char *item_line(const char *label, char *line, size_t n) {
  for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    size_t len = strcspn(p, "\n");
    if (len > 11 && !strncmp(p, "  ", 2) && !strncmp(p + 11, label, strlen(label)) &&
        p[11 + strlen(label)] == ' ') {
      snprintf(line, n, "%.*s", (int)len, p);
      return line;
    }
  }
  return NULL;
}

/* The status word of a text line. */
static void status_of(const char *line, char *st, size_t n) {
  snprintf(st, n, "%.*s", (int)strcspn(line + 2, " "), line + 2);
}

/* The last line of the output. */
static const char *last_line(void) {
  size_t k = strlen(out);
  while (k && out[k - 1] == '\n') k--;
  while (k && out[k - 1] != '\n') k--;
  return out + k;
}

/* Whether this machine has an NVIDIA driver loaded: then the GPU assertions do not apply. */
static int has_nvidia(void) { return access("/proc/driver/nvidia/version", R_OK) == 0; }

static void test_help_and_usage(void **st) {
  (void)st;
  assert_int_equal(doctor(NULL, "--help"), 0);
  assert_non_null(strstr(out, "usage: cudal1 doctor"));
  assert_non_null(strstr(out, "Exit status"));
  assert_non_null(strstr(out, "openai backend"));
  assert_int_equal(doctor(NULL, "--frobnicate"), 2);
  assert_non_null(strstr(out, "unknown option '--frobnicate'"));
  assert_int_equal(doctor("CUDAL1_BASE_URL=", "--model m"), 2);
  assert_non_null(strstr(out, "--model needs --base-url"));
  assert_int_equal(doctor(NULL, "--base-url"), 2);
  assert_non_null(strstr(out, "--base-url needs a value"));
  char cmd[512];
  snprintf(cmd, sizeof cmd, "%s/cudal1 --help", th_build());
  assert_int_equal(th_run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "doctor"));
}

/* This CPU machine: exit 0, the GPU missing with the host backend named in it and in the
 * verdict; the cache line as cl1_llc_read gives it in this same environment. */
static void test_cpu_machine(void **st) {
  (void)st;
  unsetenv("CUDAL1_SYSFS_ROOT");
  int rc = doctor("CUDAL1_BASE_URL=", "");
  char line[2048], s[16];
  assert_non_null(item_line("C compiler", line, sizeof line));
  assert_non_null(item_line("seccomp", line, sizeof line));
  assert_non_null(item_line("suite", line, sizeof line));
  const char *last = last_line();
  if (!has_nvidia()) {
    assert_int_equal(rc, 0);
    assert_non_null(item_line("GPU", line, sizeof line));
    status_of(line, s, sizeof s);
    assert_string_equal(s, "missing");
    assert_non_null(strstr(line, "no GPU"));
    assert_non_null(strstr(line, "host backend will be used"));
    assert_non_null(strstr(last, "cudal1 can run here: on the CPU (host backend"));
  }
  cl1_llc l;
  cl1_llc_read(NULL, &l);
  char want[256], b[32];
  cl1_doctor_bytes(l.bytes, b, sizeof b);
  snprintf(want, sizeof want, "%s (%s)", b, l.source);
  assert_non_null(item_line("last-level cache", line, sizeof line));
  status_of(line, s, sizeof s);
  assert_string_equal(s, "info");
  assert_non_null(strstr(line, want));
  cl1_doctor_bytes(l.flush_bytes, b, sizeof b);
  assert_non_null(item_line("host cache flush", line, sizeof line));
  assert_non_null(strstr(line, b));
}

/* A fake sysfs with a 1 GiB L3: the cache line says 1 GiB from sysfs, the flush is capped. */
static void test_doctor_reads_the_cache_from_sysfs(void **st) {
  (void)st;
  char *root = th_tmpdir(), dir[512], p[600];
  snprintf(dir, sizeof dir, "%s/devices/system/cpu/cpu0/cache/index3", root);
  char cmd[700];
  snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
  assert_int_equal(th_run(cmd, NULL, 0), 0);
  const char *files[][2] = {{"level", "3\n"}, {"type", "Unified\n"}, {"size", "1048576K\n"},
                            {"shared_cpu_list", "0-1\n"}};
  for (int i = 0; i < 4; i++) {
    snprintf(p, sizeof p, "%s/%s", dir, files[i][0]);
    assert_int_equal(th_write(p, files[i][1]), 0);
  }
  char env[600];
  snprintf(env, sizeof env, "CUDAL1_BASE_URL= CUDAL1_SYSFS_ROOT=%s", root);
  int rc = doctor(env, "");
  if (!has_nvidia()) assert_int_equal(rc, 0);
  char line[2048];
  assert_non_null(item_line("last-level cache", line, sizeof line));
  assert_non_null(strstr(line, "1 GiB"));
  assert_non_null(strstr(line, "sysfs L3"));
  assert_non_null(item_line("host cache flush", line, sizeof line));
  assert_non_null(strstr(line, "256 MiB written"));
  assert_non_null(strstr(line, "capped at 256 MiB"));
  assert_non_null(strstr(line, "2 GiB"));
}

static const cJSON *json_item(const cJSON *items, const char *name) {
  const cJSON *it;
  cJSON_ArrayForEach(it, items) {
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(it, "name");
    if (cJSON_IsString(n) && !strcmp(n->valuestring, name)) return it;
  }
  return NULL;
}

static const char *jstr(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void test_doctor_json_lists_every_item(void **st) {
  (void)st;
  int rc = doctor("CUDAL1_BASE_URL=", "--json");
  cJSON *j = cJSON_Parse(out);
  assert_non_null(j);
  const cJSON *items = cJSON_GetObjectItemCaseSensitive(j, "items");
  assert_true(cJSON_IsArray(items));
  static const char *const want[] = {"gpu", "cuda_driver", "nvcc", "cuda_arch", "cc", "ops_host",
                                     "worker", "suite", "compile_cache", "seccomp",
                                     "no_new_privs", "landlock", "userns", "sandbox", "llc",
                                     "flush", "mem_budget_host", "mem_budget_cuda", "rlimit_as",
                                     "python", NULL};
  for (int i = 0; want[i]; i++) assert_non_null(json_item(items, want[i]));
  const cJSON *it;
  cJSON_ArrayForEach(it, items) {
    const char *s = jstr(it, "status");
    assert_non_null(s);
    assert_true(!strcmp(s, "ok") || !strcmp(s, "missing") || !strcmp(s, "wrong") || !strcmp(s, "info"));
    assert_non_null(jstr(it, "value"));
    assert_non_null(jstr(it, "fix"));
    assert_non_null(jstr(it, "label"));
    assert_true(cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(it, "fatal")));
    /* every missing/wrong item says how to fix it; ok and info ones have nothing to fix */
    if (!strcmp(s, "missing") || !strcmp(s, "wrong")) assert_true(jstr(it, "fix")[0] != 0);
    if (!strcmp(s, "ok") || !strcmp(s, "info")) assert_string_equal(jstr(it, "fix"), "");
  }
  assert_null(json_item(items, "server"));
  const cJSON *can = cJSON_GetObjectItemCaseSensitive(j, "can_run");
  assert_true(cJSON_IsBool(can));
  assert_int_equal(rc, cJSON_IsTrue(can) ? 0 : 3);
  if (!has_nvidia()) {
    assert_int_equal(rc, 0);
    assert_string_equal(jstr(json_item(items, "gpu"), "status"), "missing");
    assert_false(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(json_item(items, "gpu"), "fatal")));
    assert_string_equal(jstr(j, "backend"), "host");
  }
  assert_non_null(strstr(jstr(j, "verdict"), "cudal1 can"));
  cJSON_Delete(j);
}

/* What the main job needs, broken on purpose: each named fatal, exit 3, the verdict names them. */
static void test_doctor_names_each_fatal_item_and_exits_3(void **st) {
  (void)st;
  char *d = th_tmpdir(), env[1200], file[300];
  snprintf(file, sizeof file, "%s/not-a-folder", d);
  assert_int_equal(th_write(file, "x"), 0);
  snprintf(env, sizeof env,
           "CUDAL1_BASE_URL= CUDAL1_SUITE=%s/nosuite CUDAL1_WORKER=%s/nocudal1-worker XDG_CACHE_HOME=%s",
           d, d, file);
  assert_int_equal(doctor(env, ""), 3);
  char line[2048], s[16];
  assert_non_null(item_line("suite", line, sizeof line));
  status_of(line, s, sizeof s);
  assert_string_equal(s, "missing");
  assert_non_null(strstr(line, "nosuite"));
  assert_non_null(strstr(line, "CUDAL1_SUITE"));
  assert_non_null(strstr(line, "(FATAL)"));
  assert_non_null(item_line("worker program", line, sizeof line));
  status_of(line, s, sizeof s);
  assert_string_equal(s, "missing");
  assert_non_null(strstr(line, "nocudal1-worker"));
  assert_non_null(item_line("compile cache", line, sizeof line));
  status_of(line, s, sizeof s);
  assert_string_equal(s, "wrong");
  assert_non_null(strstr(line, "not-a-folder"));
  assert_non_null(strstr(line, "XDG_CACHE_HOME"));
  const char *last = last_line();
  assert_non_null(strstr(last, "cudal1 cannot run here"));
  assert_non_null(strstr(last, "suite"));
  assert_non_null(strstr(last, "worker"));
  assert_non_null(strstr(last, "compile_cache"));
}

/* A port on 127.0.0.1 that nothing listens on: bound, read, closed. */
static int closed_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof sa;
  if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) ||
      getsockname(fd, (struct sockaddr *)&sa, &len))
    return -1;
  close(fd);
  return ntohs(sa.sin_port);
}

static void test_server_unreachable(void **st) {
  (void)st;
  int port = closed_port();
  assert_true(port > 0);
  char args[200];
  snprintf(args, sizeof args, "--base-url http://127.0.0.1:%d/v1 --model m", port);
  int rc = doctor(NULL, args);
  char line[2048], s[16], url[100];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/models", port);
  assert_non_null(item_line("policy server", line, sizeof line));
  status_of(line, s, sizeof s);
  assert_string_equal(s, "wrong");
  assert_non_null(strstr(line, url));
  assert_non_null(strstr(line, "unreachable"));
  assert_non_null(strstr(line, "--backend openai"));
  assert_null(strstr(line, "(FATAL)"));
  /* the server is a warning: the exit status is what it is without it */
  if (!has_nvidia()) {
    assert_int_equal(rc, 0);
    assert_non_null(strstr(last_line(), "cudal1 can run here"));
    assert_non_null(strstr(last_line(), "server"));
  }
}

/* A local server answering GET /v1/models with two models. */
static enum MHD_Result models_handler(void *cls, struct MHD_Connection *con, const char *url,
                                      const char *method, const char *version,
                                      const char *upload, size_t *upload_size, void **con_cls) {
  (void)cls, (void)version, (void)upload, (void)upload_size, (void)con_cls;
  int ok = !strcmp(method, "GET") && !strcmp(url, "/v1/models");
  const char *body = ok ? "{\"object\":\"list\",\"data\":[{\"id\":\"m-one\"},{\"id\":\"m-two\"}]}"
                        : "{\"error\":\"not found\"}";
  struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body,
                                                           MHD_RESPMEM_PERSISTENT);
  enum MHD_Result rc = MHD_queue_response(con, ok ? 200 : 404, r);
  MHD_destroy_response(r);
  return rc;
}

static void test_server_models(void **st) {
  (void)st;
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
                                          models_handler, NULL, MHD_OPTION_SOCK_ADDR,
                                          (struct sockaddr *)&sa, MHD_OPTION_END);
  assert_non_null(d);
  const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  assert_non_null(di);
  char args[200], line[2048], s[16];
  snprintf(args, sizeof args, "--json --base-url http://127.0.0.1:%d/v1/ --model m-two", di->port);
  int rc = doctor(NULL, args);
  cJSON *j = cJSON_Parse(out);
  assert_non_null(j);
  const cJSON *srv = json_item(cJSON_GetObjectItemCaseSensitive(j, "items"), "server");
  assert_non_null(srv);
  assert_string_equal(jstr(srv, "status"), "ok");
  assert_non_null(strstr(jstr(srv, "value"), "m-one, m-two"));
  assert_int_equal(rc, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "can_run")) ? 0 : 3);
  cJSON_Delete(j);
  snprintf(args, sizeof args, "--base-url http://127.0.0.1:%d/v1 --model m-three", di->port);
  int rc2 = doctor(NULL, args);
  assert_int_equal(rc2, rc);
  assert_non_null(item_line("policy server", line, sizeof line));
  status_of(line, s, sizeof s);
  assert_string_equal(s, "wrong");
  assert_non_null(strstr(line, "does not list model 'm-three'"));
  assert_non_null(strstr(line, "m-one, m-two"));
  /* not an API root: a 404 is said with the URL it asked */
  snprintf(args, sizeof args, "--base-url http://127.0.0.1:%d/api", di->port);
  doctor(NULL, args);
  assert_non_null(item_line("policy server", line, sizeof line));
  assert_non_null(strstr(line, "/api/models: HTTP 404"));
  MHD_stop_daemon(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_help_and_usage),  cmocka_unit_test(test_cpu_machine),
      cmocka_unit_test(test_doctor_reads_the_cache_from_sysfs),      cmocka_unit_test(test_doctor_json_lists_every_item),
      cmocka_unit_test(test_doctor_names_each_fatal_item_and_exits_3),           cmocka_unit_test(test_server_unreachable),
      cmocka_unit_test(test_server_models),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
