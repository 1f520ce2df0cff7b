/* irm run under qemu-user (cli_qemu.h). The runner's text is embedded in
 * irm (qemu_runner_text.h, made from qemu_runner.c at build time), so an
 * installed irm needs no source tree: it is written to DIR, compiled with
 * the cross compiler and asked for the library's metadata, then run on
 * the inputs written as raw files. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_qemu.h"
#include "irm/runtime.h"
#include "qemu_runner_text.h"

int cli_qemu_needed(const char *lib) {
  int native = 1;
  irm_runtime_library_arch(lib, NULL, &native);
  return !native;
}

void cli_qemu_quote_(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++)
    if (*s == '\'') fputs("'\\''", f);
    else fputc(*s, f);
  fputc('\'', f);
}

int cli_qemu_cmd_(const char *what, const char *cmd, char **out) {
  FILE *p = popen(cmd, "r");
  if (!p) return cli_say(CLI_FAIL, "run: %s: cannot start a shell: %s", what, strerror(errno));
  char *text = NULL;
  size_t len = 0, cap = 0;
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, p)) > 0) {
    if (len + n + 1 > cap) {
      cap = (len + n + 1) * 2;
      char *grown = realloc(text, cap);
      if (!grown) break;
      text = grown;
    }
    memcpy(text + len, chunk, n);
    len += n;
  }
  int status = pclose(p);
  if (text) text[len] = '\0';
  int rc = CLI_OK;
  if (status != 0)
    rc = cli_say(CLI_FAIL, "run: %s failed (exit status %d): %s\ncommand: %s", what,
                 WIFEXITED(status) ? WEXITSTATUS(status) : status, text ? text : "", cmd);
  if (!rc && out) *out = text;
  else free(text);
  return rc;
}

static int installed(const char *program) {
  char *cmd = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&cmd, &len);
  if (!f) return 0;
  fputs("command -v ", f);
  cli_qemu_quote_(f, program);
  fputs(" >/dev/null 2>&1", f);
  fclose(f);
  int ok = system(cmd) == 0;
  free(cmd);
  return ok;
}

int cli_qemu_write_text_(const char *path, const char *const *lines, int *changed) {
  char *text = NULL, *have = NULL;
  size_t len = 0, have_len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m) return cli_say(CLI_FAIL, "out of memory");
  for (size_t i = 0; lines[i]; i++) fputs(lines[i], m);
  fclose(m);
  FILE *old = fopen(path, "rb");
  if (old) {
    have = malloc(len + 1);
    have_len = have ? fread(have, 1, len + 1, old) : 0;
    fclose(old);
  }
  int same = have && have_len == len && memcmp(have, text, len) == 0;
  free(have);
  int rc = CLI_OK;
  if (!same) {
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(text, 1, len, f) == len;
    if (f && fclose(f)) ok = 0;
    if (!ok) rc = cli_say(CLI_FAIL, "run: cannot write '%s': %s", cli_quote(path), strerror(errno));
  }
  free(text);
  *changed |= !same;
  return rc;
}

/* DIR/irm-runner-<arch>: the runner's text written when it differs from
 * what is there, and compiled when the program is missing or the text
 * changed. */
static int make_runner(const char *dir, const char *arch, const char *cc, char *runner, size_t size) {
  char src[4096];
  snprintf(src, sizeof src, "%s/irm-runner-%s.c", dir, arch);
  snprintf(runner, size, "%s/irm-runner-%s", dir, arch);
  int changed = 0, rc = cli_qemu_write_text_(src, qemu_runner_lines, &changed);
  if (rc || (!changed && access(runner, X_OK) == 0)) return rc;
  char *cmd = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&cmd, &len);
  if (!f) return cli_say(CLI_FAIL, "out of memory");
  fprintf(f, "%s -std=gnu11 -O1 -o ", cc);
  cli_qemu_quote_(f, runner);
  fputc(' ', f);
  cli_qemu_quote_(f, src);
  fputs(" -ldl 2>&1", f);
  fclose(f);
  rc = cli_qemu_cmd_("compiling the runner for qemu", cmd, NULL);
  free(cmd);
  return rc;
}

/* The start of every runner command: qemu, its sysroot, runner, lib, mod. */
static void runner_prefix(FILE *f, const char *arch, const char *runner, const char *lib, const char *mod) {
  fprintf(f, "qemu-%s -L /usr/%s-linux-gnu ", arch, arch);
  cli_qemu_quote_(f, runner);
  fputc(' ', f);
  cli_qemu_quote_(f, lib);
  fputc(' ', f);
  cli_qemu_quote_(f, mod);
}

static const char *json_str_or(json_t *root, const char *key, const char *dflt) {
  const char *s = json_string_value(json_object_get(root, key));
  return s ? s : dflt;
}

static int write_bytes(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(data, 1, n, f) == n;
  if (f && fclose(f)) ok = 0;
  return ok ? CLI_OK : cli_say(CLI_FAIL, "run: cannot write '%s': %s", cli_quote(path), strerror(errno));
}

/* An output Tensor of the metadata's entry o, read from path. */
static int read_output(json_t *o, const char *path, irm_object **outs) {
  json_t *shape = json_object_get(o, "shape");
  int64_t dims[16];
  size_t nd = json_array_size(shape);
  DLDataType dt;
  if (nd > 16 || irm_dtype_parse(json_str_or(o, "dtype", ""), &dt))
    return cli_say(CLI_FAIL, "run: the library's metadata gives an output irm cannot read");
  for (size_t d = 0; d < nd; d++) dims[d] = json_integer_value(json_array_get(shape, d));
  return cli_qemu_read_tensor_(path, dt, dims, (int32_t)nd, outs);
}

int cli_qemu_read_tensor_(const char *path, DLDataType dt, const int64_t *dims, int32_t nd, irm_object **outs) {
  irm_tensor *t = NULL;
  if (irm_tensor_new(dt, dims, nd, NULL, &t)) return cli_fail("run");
  FILE *f = fopen(path, "rb");
  size_t want = irm_tensor_nbytes(t);
  int ok = f && fread(irm_tensor_data(t), 1, want, f) == want;
  if (f) fclose(f);
  irm_any v = irm_any_object(t);
  int rc = !ok ? cli_say(CLI_FAIL, "run: the runner wrote no output '%s'", cli_quote(path))
           : irm_array_append_move(outs, &v) ? cli_fail("run")
                                             : CLI_OK;
  irm_any_release(&v);
  return rc;
}

/* The run command for the metadata root; input and output files in dir. */
static int run_once(const char *dir, json_t *root, const char *prefix_cmd, const irm_object *data, irm_object **outs,
                    const char *lib) {
  json_t *outputs = json_object_get(root, "outputs");
  size_t n_in = irm_array_size(data), n_out = json_array_size(outputs);
  char path[4096], params[4096];
  const char *params_file = json_str_or(root, "params_file", NULL);
  const char *slash = strrchr(lib, '/');
  snprintf(params, sizeof params, "%.*s%s", slash ? (int)(slash - lib + 1) : 0, lib, params_file ? params_file : "-");
  char *cmd = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&cmd, &len);
  if (!f) return cli_say(CLI_FAIL, "out of memory");
  fprintf(f, "%s run %lld %lld %s %s ", prefix_cmd,
          (long long)json_integer_value(json_object_get(root, "workspace_bytes")),
          (long long)json_integer_value(json_object_get(root, "workspace_alignment")),
          json_str_or(root, "check_params", "-"), json_str_or(root, "set_params", "-"));
  cli_qemu_quote_(f, params_file ? params : "-");
  int rc = CLI_OK;
  for (size_t i = 0; !rc && i < n_in; i++) {
    irm_tensor *t = (irm_tensor *)irm_array_at(data, i)->v_obj;
    snprintf(path, sizeof path, "%s/.irm-qemu-in-%zu.bin", dir, i);
    rc = write_bytes(path, irm_tensor_data_const(t), irm_tensor_nbytes(t));
    fputc(' ', f);
    cli_qemu_quote_(f, path);
  }
  fputs(" --", f);
  for (size_t j = 0; j < n_out; j++) {
    json_t *o = json_array_get(outputs, j), *shape = json_object_get(o, "shape");
    DLDataType dt = {0, 0, 0};
    size_t bytes = irm_dtype_parse(json_str_or(o, "dtype", ""), &dt) ? 0 : (dt.bits * dt.lanes + 7) / 8;
    irm_clear_error();
    for (size_t d = 0; d < json_array_size(shape); d++) bytes *= (size_t)json_integer_value(json_array_get(shape, d));
    snprintf(path, sizeof path, "%s/.irm-qemu-out-%zu.bin=%zu", dir, j, bytes);
    fputc(' ', f);
    cli_qemu_quote_(f, path);
  }
  fputs(" 2>&1", f);
  fclose(f);
  if (!rc) rc = cli_qemu_cmd_("the library under qemu", cmd, NULL);
  free(cmd);
  for (size_t j = 0; !rc && j < n_out; j++) {
    snprintf(path, sizeof path, "%s/.irm-qemu-out-%zu.bin", dir, j);
    rc = read_output(json_array_get(outputs, j), path, outs);
  }
  for (size_t i = 0; i < n_in || i < n_out; i++) {
    snprintf(path, sizeof path, "%s/.irm-qemu-in-%zu.bin", dir, i);
    unlink(path);
    snprintf(path, sizeof path, "%s/.irm-qemu-out-%zu.bin", dir, i);
    unlink(path);
  }
  return rc;
}

int cli_qemu_run(const char *dir, const char *lib, const char *mod_name, const irm_object *data, irm_object **outs) {
  const char *arch = NULL;
  irm_runtime_library_arch(lib, &arch, NULL);
  if (!arch) return cli_say(CLI_FAIL, "run: '%s' is built for an architecture irm cannot run", cli_quote(lib));
  char qemu[64], cc_default[128], runner[4096];
  snprintf(qemu, sizeof qemu, "qemu-%s", arch);
  snprintf(cc_default, sizeof cc_default, "%s-linux-gnu-gcc", arch);
  const char *cc = getenv("IRM_CROSS_CC");
  if (!cc || !cc[0]) cc = cc_default;
  if (!installed(qemu))
    return cli_say(CLI_FAIL,
                   "run: '%s' is built for %s, and this machine runs it only under %s, which is not installed "
                   "(Debian: apt-get install qemu-user)",
                   cli_quote(lib), arch, qemu);
  if (!installed(cc))
    return cli_say(CLI_FAIL,
                   "run: running '%s' under %s needs a runner compiled with %s, which is not installed (Debian: "
                   "apt-get install gcc-%s-linux-gnu; or set IRM_CROSS_CC)",
                   cli_quote(lib), qemu, cc, arch);
  int rc = make_runner(dir, arch, cc, runner, sizeof runner);
  char *prefix = NULL, *cmd = NULL, *meta = NULL;
  size_t len = 0;
  FILE *f = rc ? NULL : open_memstream(&prefix, &len);
  if (!rc && !f) rc = cli_say(CLI_FAIL, "out of memory");
  if (f) {
    runner_prefix(f, arch, runner, lib, mod_name);
    fclose(f);
  }
  if (!rc && asprintf(&cmd, "%s metadata 2>&1", prefix) < 0) rc = cli_say(CLI_FAIL, "out of memory");
  if (!rc) rc = cli_qemu_cmd_("reading the library's metadata under qemu", cmd, &meta);
  json_t *root = rc ? NULL : json_loads(meta ? meta : "", 0, NULL);
  const char *executor = json_str_or(root, "executor", "");
  int graph = strcmp(executor, "graph") == 0;
  if (!rc && !root) rc = cli_say(CLI_FAIL, "run: the library's metadata does not parse: %s", meta ? meta : "");
  else if (!rc && strcmp(executor, "aot") != 0 && !graph)
    rc = cli_say(CLI_FAIL,
                 "run: '%s' is a %s library for %s: under qemu irm run runs aot and graph libraries only (build "
                 "with --executor aot or graph)",
                 cli_quote(lib), executor, arch);
  if (!rc && irm_array_new(NULL, 0, outs)) rc = cli_fail("run");
  if (!rc && graph) rc = cli_qemu_graph_run_(dir, arch, cc, lib, mod_name, data, outs);
  else if (!rc) rc = run_once(dir, root, prefix, data, outs, lib);
  json_decref(root);
  free(meta);
  free(cmd);
  free(prefix);
  return rc;
}
