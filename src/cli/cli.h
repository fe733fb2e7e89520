/* cli.h — the subcommands of the cudal1 binary; each returns the process exit status:
 * 0 success/pass, 1 candidate failed, 2 usage or input error, 3 infrastructure error. */
#ifndef CL1_CLI_H
#define CL1_CLI_H
#include <stdbool.h>
#include <stdio.h>
#include "eval/eval.h"
#include "task/task.h"
int cl1_cmd_eval(int argc, char **argv);
int cl1_cmd_task(int argc, char **argv);
int cl1_cmd_suite(int argc, char **argv);
int cl1_cmd_gpu(int argc, char **argv);
int cl1_cmd_suite_audit(int argc, char **argv);
int cl1_cmd_optimize(int argc, char **argv);
int cl1_cmd_report(int argc, char **argv);
int cl1_cmd_baselines(int argc, char **argv);
int cl1_cmd_doctor(int argc, char **argv);
int cl1_cmd_serve(int argc, char **argv);
int cl1_cmd_dataset(int argc, char **argv);
int cl1_cmd_collect(int argc, char **argv);
int cl1_cmd_train(int argc, char **argv);
int cl1_cmd_import(int argc, char **argv);
/* The task.json paths of the suite (level 0: all), natural order; strdup'd, caller frees. */
int cl1_cli_suite_tasks(int level, char **paths, int max);
/* Parses a decimal argument; 0 on success, prints "cudal1: FLAG: ..." and returns 2 otherwise. */
int cl1_cli_int(const char *flag, const char *s, long long lo, long long hi, long long *out);
int cl1_cli_double(const char *flag, const char *s, double lo, double hi, double *out);
/* --help or -h anywhere in argv[1..]: prints usage on stdout and returns true (the command then
 * exits 0 having done nothing else). */
bool cl1_cli_help(int argc, char **argv, const char *usage);
/* "cudal1 CMD: unknown option 'ARG' (see cudal1 CMD --help)" (or "unexpected argument" when ARG
 * is no option) on stderr; returns 2. */
int cl1_cli_unknown(const char *cmd, const char *arg);
/* A missing (VERB NULL) or unknown verb of CMD, naming the VERBS there are; returns 2. */
int cl1_cli_verb(const char *cmd, const char *verb, const char *verbs);
/* Resolves a task argument (a suite id, a task folder or its task.json) and loads the task; on
 * failure prints one line "cudal1 CMD: ..." and returns 2. Release ref with cl1_task_ref_release. */
int cl1_cli_task(const char *cmd, const char *arg, cl1_task_ref *ref);
/* An evaluation option `eval` and `optimize` both take, defined once in cl1_cli_eval_opts
 * (cli_evalopts.c): both commands parse it and list it in --help from there. */
typedef enum { CL1_CLI_BACKEND, CL1_CLI_SHAPES, CL1_CLI_INT, CL1_CLI_SECONDS } cl1_cli_kind;
typedef struct {
  const char *name, *value, *help;
  cl1_cli_kind kind;
  double lo, hi;     /* INT, SECONDS: the accepted range */
  size_t field;      /* offsetof(cl1_eval_opts, the field it sets) */
} cl1_cli_eval_opt;
extern const cl1_cli_eval_opt cl1_cli_eval_opts[];
extern const int cl1_cli_n_eval_opts;
/* When argv[*i] is one of them: its value argv[*i + 1] into o, *i advanced, 0; or the message
 * ("cudal1 CMD: ...") printed and 2. -1, nothing done, for any other argument. */
int cl1_cli_eval_opt_parse(const char *cmd, int argc, char **argv, int *i, cl1_eval_opts *o);
/* After parsing: --max-trials raised to --min-trials when it is below. */
void cl1_cli_eval_opts_finish(cl1_eval_opts *o);
/* Their lines for a usage text: value, help, range and the evaluator's default. */
void cl1_cli_eval_opts_usage(FILE *f);
/* The LLM server's API key: $CUDAL1_API_KEY, else $OPENAI_API_KEY; NULL when neither is set. */
const char *cl1_cli_api_key(void);
#endif
