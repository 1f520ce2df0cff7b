/* irm build MODEL.onnx: the ONNX file handed to the Python frontend
 * (python3 -m irm.frontend.onnx) in a child process, which writes the IR
 * text and the params into a private temporary folder that irm build then
 * reads. The op mappings live once, in python/irm/frontend: a C reader of
 * ONNX protobufs would be a second copy of them (docs/cli.md). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd_onnx.h"

#define ONNX_DEFAULT_PYTHON "/usr/bin/python3"
#define ONNX_INSTALL_HINT "apt-get install python3-onnx"
/* python/irm/frontend/onnx.py's EXIT_NO_ONNX; 127: exec failed. */
#define ONNX_EXIT_NO_ONNX 3
#define ONNX_EXIT_NO_EXEC 127

int onnx_is_model(const char *path) {
  size_t len = path ? strlen(path) : 0;
  if (len > 5 && !strcmp(path + len - 5, ".onnx")) return 1;
  if (!path || !strcmp(path, "-")) return 0;
  unsigned char head[4] = {0, 0, 0, 0};
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  size_t got = fread(head, 1, sizeof head, f);
  fclose(f);
  /* A ModelProto starts with field 1 (ir_version, a small varint: tag 0x08)
   * and then, as every exporter writes, field 2..8 (tag 0x12 producer_name,
   * 0x1a, 0x22, 0x28, 0x32, 0x3a graph, 0x42 opset_import). No IR text nor
   * JSON starts with a backspace byte. */
  return got >= 3 && head[0] == 0x08 && head[1] >= 1 && head[1] < 0x80 &&
         (head[2] == 0x12 || head[2] == 0x1a || head[2] == 0x22 || head[2] == 0x28 || head[2] == 0x32 ||
          head[2] == 0x3a || head[2] == 0x42);
}

static int is_dir_with_package(const char *dir) {
  char path[PATH_MAX * 2 + 64];
  struct stat sb;
  snprintf(path, sizeof path, "%s/irm/frontend/onnx.py", dir);
  return stat(path, &sb) == 0;
}

/* Where the irm package is: beside an installed irm (<prefix>/bin/irm ->
 * <prefix>/share/irm/python), else this source tree's python/. */
static int python_dir(char *out, size_t cap) {
  char exe[PATH_MAX] = {0};
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = '\0';
      snprintf(out, cap, "%s/../share/irm/python", exe);
      if (is_dir_with_package(out)) return 1;
    }
  }
  snprintf(out, cap, "%s", IRM_SOURCE_PYTHON_DIR);
  return is_dir_with_package(out);
}

/* The libirm this program runs with, for the child's IRM_LIBRARY: the
 * frontend then uses the same library whatever else is installed. */
static const char *own_libirm(void) {
  Dl_info info;
  const char *(*fn)(void) = irm_version;
  void *addr = NULL;
  memcpy(&addr, &fn, sizeof addr); /* ISO C has no function-to-object cast; POSIX makes them the same size */
  if (dladdr(addr, &info) && info.dli_fname && strchr(info.dli_fname, '/')) return info.dli_fname;
  return NULL;
}

/* "name:1x3x224x224,name2:..." -> --shape name=1,3,224,224 ...; each item
 * checked, so a malformed flag is a usage error before Python starts. */
static int add_items(const char *flag, const char *text, int shapes, char **argv, int *argc, char **copies,
                     int *ncopies) {
  if (!text) return CLI_OK;
  char *dup = strdup(text), *save = NULL;
  if (!dup) return cli_say(CLI_FAIL, "out of memory");
  int rc = CLI_OK;
  for (char *item = strtok_r(dup, ",", &save); !rc && item; item = strtok_r(NULL, ",", &save)) {
    char *colon = strrchr(item, ':');
    if (!colon || colon == item || !colon[1]) {
      rc = cli_usage_error("build", "%s: expected NAME:%s[,...], got '%s'", flag, shapes ? "D0xD1x..." : "DTYPE",
                           cli_quote(item));
      break;
    }
    *colon = '\0';
    char *value = colon + 1;
    if (shapes) {
      for (char *p = value; *p && !rc; p++) {
        if (*p == 'x') *p = ',';
        else if (*p < '0' || *p > '9')
          rc = cli_usage_error("build", "%s: '%s' is no shape (dimensions as 1x3x224x224)", flag, cli_quote(value));
      }
    } else if (irm_dtype_parse(value, &(DLDataType){0, 0, 0})) {
      rc = cli_usage_error("build", "%s: %s", flag, irm_last_error());
    }
    size_t len = strlen(item) + strlen(value) + 2;
    char *arg = rc ? NULL : malloc(len);
    if (!rc && !arg) rc = cli_say(CLI_FAIL, "out of memory");
    if (rc) break;
    snprintf(arg, len, "%s=%s", item, value);
    copies[(*ncopies)++] = arg;
    argv[(*argc)++] = shapes ? "--shape" : "--dtype";
    argv[(*argc)++] = arg;
  }
  free(dup);
  return rc;
}

/* The last non-empty line of the file, without "error: ", into buf. */
static void last_line(const char *path, char *buf, size_t cap) {
  buf[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f) return;
  char line[2048];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0]) snprintf(buf, cap, "%s", strncmp(line, "error: ", 7) ? line : line + 7);
  }
  fclose(f);
}

/* The child running Python, for the handler passing signals on (0: none). */
static volatile sig_atomic_t python_pid;

static void pass_signal(int sig) {
  if (python_pid > 0) kill((pid_t)python_pid, sig);
}

int python_child_run(const char *what, char **argv, const char *err_path, int keep_stdout, int *status) {
  char pydir[PATH_MAX + 64];
  if (!python_dir(pydir, sizeof pydir))
    return cli_say(CLI_FAIL, "%s: irm's Python package (irm/frontend/onnx.py) is not installed beside irm", what);
  pid_t pid = fork();
  if (pid < 0) return cli_say(CLI_FAIL, "%s: cannot start Python: %s", what, strerror(errno));
  if (pid == 0) {
    /* a group of its own: a terminal's ^C reaches only this program, which
     * passes it on once (below) */
    setpgid(0, 0);
    const char *old = getenv("PYTHONPATH");
    char path[PATH_MAX * 2 + 2];
    snprintf(path, sizeof path, "%s%s%s", pydir, old && old[0] ? ":" : "", old && old[0] ? old : "");
    setenv("PYTHONPATH", path, 1);
    setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
    const char *lib = own_libirm();
    if (lib && !getenv("IRM_LIBRARY")) setenv("IRM_LIBRARY", lib, 1);
    int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600), null = keep_stdout ? -1 : open("/dev/null", O_WRONLY);
    if (fd >= 0) dup2(fd, 2);
    if (null >= 0) dup2(null, 1);
    execvp(argv[0], argv);
    _exit(ONNX_EXIT_NO_EXEC);
  }
  /* what would stop this program goes to the child (in its own group, a
   * terminal's ^C reaches only this program), which then ends as it will */
  static const int passed[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  enum { NPASSED = sizeof passed / sizeof *passed };
  struct sigaction pass = {0}, old[NPASSED];
  pass.sa_handler = pass_signal;
  sigemptyset(&pass.sa_mask);
  python_pid = pid;
  for (int i = 0; i < NPASSED; i++) sigaction(passed[i], &pass, &old[i]);
  int rc = CLI_OK;
  while (waitpid(pid, status, 0) < 0)
    if (errno != EINTR) {
      rc = cli_say(CLI_FAIL, "%s: waiting for Python: %s", what, strerror(errno));
      break;
    }
  for (int i = 0; i < NPASSED; i++) sigaction(passed[i], &old[i], NULL);
  python_pid = 0;
  return rc;
}

const char *python_interpreter(void) {
  const char *python = getenv("IRM_PYTHON");
  return python && python[0] ? python : ONNX_DEFAULT_PYTHON;
}

int onnx_import(const char *model, const char *shapes, const char *dtypes, onnx_result *out) {
  memset(out, 0, sizeof *out);
  const char *tmp = getenv("TMPDIR");
  snprintf(out->dir, sizeof out->dir, "%s/irm-onnx-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
  if (!mkdtemp(out->dir)) {
    out->dir[0] = '\0';
    return cli_say(CLI_FAIL, "build: cannot make a temporary folder: %s", strerror(errno));
  }
  snprintf(out->ir_path, sizeof out->ir_path, "%s/model.irm", out->dir);
  snprintf(out->params_path, sizeof out->params_path, "%s/model.params", out->dir);
  char err_path[sizeof out->dir + 16];
  snprintf(err_path, sizeof err_path, "%s/stderr", out->dir);
  const char *python = python_interpreter();
  char *argv[64 + 256], *copies[256];
  int argc = 0, ncopies = 0;
  argv[argc++] = (char *)python;
  argv[argc++] = "-m";
  argv[argc++] = "irm.frontend.onnx";
  argv[argc++] = "-o";
  argv[argc++] = out->ir_path;
  argv[argc++] = "--params-out";
  argv[argc++] = out->params_path;
  int rc = CLI_OK;
  /* argv has room for 120 items: more inputs are no model's. */
  size_t items = 0;
  for (const char *t = shapes; t && *t; t++) items += *t == ',';
  for (const char *t = dtypes; t && *t; t++) items += *t == ',';
  if (items > 120) rc = cli_usage_error("build", "--input-shapes/--input-dtypes: more than 120 inputs");
  if (!rc) rc = add_items("--input-shapes", shapes, 1, argv, &argc, copies, &ncopies);
  if (!rc) rc = add_items("--input-dtypes", dtypes, 0, argv, &argc, copies, &ncopies);
  argv[argc++] = "--"; /* a MODEL starting with '-' stays the model */
  argv[argc++] = (char *)model;
  argv[argc] = NULL;
  int status = 0;
  if (!rc) rc = python_child_run("build", argv, err_path, 0, &status);
  for (int i = 0; i < ncopies; i++) free(copies[i]);
  if (rc) return rc;
  char line[2048];
  last_line(err_path, line, sizeof line);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return CLI_OK;
  if (WIFEXITED(status) && WEXITSTATUS(status) == ONNX_EXIT_NO_EXEC)
    return cli_say(CLI_FAIL,
                   "build: '%s' needs Python 3 with the onnx package; '%s' cannot be run (%s; or set IRM_PYTHON)",
                   cli_quote(model), cli_quote(python), ONNX_INSTALL_HINT);
  if (WIFEXITED(status) && WEXITSTATUS(status) == ONNX_EXIT_NO_ONNX)
    return cli_say(CLI_FAIL, "build: '%s' needs the Python package onnx for '%s' (%s)", cli_quote(model),
                   cli_quote(python), ONNX_INSTALL_HINT);
  if (!line[0] && WIFSIGNALED(status)) snprintf(line, sizeof line, "Python was killed by signal %d", WTERMSIG(status));
  if (strstr(line, "No module named")) /* numpy (or irm's package) missing: a traceback's last line */
    return cli_say(CLI_FAIL, "build: '%s' needs Python 3 with the onnx package: %s (%s)", cli_quote(model),
                   cli_quote(line), ONNX_INSTALL_HINT);
  /* The frontend's "from_onnx: 'MODEL' is empty ..." names the file itself. */
  const char *text = strncmp(line, "from_onnx: ", 11) ? line : line + 11;
  if (text[0] == '\'' && !strncmp(text + 1, model, strlen(model)) && text[1 + strlen(model)] == '\'')
    return cli_say(CLI_FAIL, "build: %s", cli_quote(text));
  return cli_say(CLI_FAIL, "build: '%s': %s", cli_quote(model), text[0] ? cli_quote(text) : "the ONNX import failed");
}

void onnx_result_clean(onnx_result *r) {
  if (!r->dir[0]) return;
  char path[sizeof r->dir + 16];
  const char *names[] = {"model.irm", "model.params", "stderr"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    snprintf(path, sizeof path, "%s/%s", r->dir, names[i]);
    unlink(path);
  }
  rmdir(r->dir);
  r->dir[0] = '\0';
}
