/* irm run of a graph library under qemu-user (cli_qemu.h): the graph
 * runner's sources, embedded in irm (embed_*.h, made at build time from
 * runtime/ and qemu_graph_runner.c by embed_text.cmake), are written to
 * DIR/irm-graph-runner-<arch>/ and compiled there with the cross compiler
 * and the target's jansson (Debian's libjansson-dev:<arch> through
 * multiarch), linked statically so that qemu needs only the cross
 * toolchain's C library. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_qemu.h"
#include "embed_cpu_features_c.h"
#include "embed_graph_runner_c.h"
#include "embed_graph_runner_internal_h.h"
#include "embed_graph_runner_load_c.h"
#include "embed_irm_crt_h.h"
#include "embed_irm_graph_runner_h.h"
#include "embed_irm_library_h.h"
#include "embed_irm_params_h.h"
#include "embed_library_c.h"
#include "embed_qemu_graph_runner_c.h"

/* The graph runner's sources (tools/CMakeLists.txt embeds them), by file name. */
static const struct {
  const char *name;
  const char *const *lines;
} graph_runner_files[] = {
    {"qemu_graph_runner.c", embed_qemu_graph_runner_c},
    {"graph_runner.c", embed_graph_runner_c},
    {"graph_runner_load.c", embed_graph_runner_load_c},
    {"graph_runner_internal.h", embed_graph_runner_internal_h},
    {"library.c", embed_library_c},
    {"cpu_features.c", embed_cpu_features_c},
    {"irm_crt.h", embed_irm_crt_h},
    {"irm_graph_runner.h", embed_irm_graph_runner_h},
    {"irm_library.h", embed_irm_library_h},
    {"irm_params.h", embed_irm_params_h},
};

/* Debian's architecture name of a GNU one (the package to install). */
static const char *debian_arch(const char *arch) {
  return strcmp(arch, "aarch64") == 0 ? "arm64" : strcmp(arch, "x86_64") == 0 ? "amd64" : arch;
}

/* DIR/irm-graph-runner-<arch>/irm-graph-runner, compiled when missing or
 * when a source changed. */
static int make_graph_runner(const char *dir, const char *arch, const char *cc, char *runner, size_t size) {
  char src[4096], path[4200];
  snprintf(src, sizeof src, "%s/irm-graph-runner-%s", dir, arch);
  snprintf(runner, size, "%s/irm-graph-runner", src);
  if (mkdir(src, 0777) && errno != EEXIST)
    return cli_say(CLI_FAIL, "run: cannot make '%s': %s", cli_quote(src), strerror(errno));
  int changed = 0, rc = CLI_OK;
  for (size_t i = 0; !rc && i < sizeof graph_runner_files / sizeof *graph_runner_files; i++) {
    snprintf(path, sizeof path, "%s/%s", src, graph_runner_files[i].name);
    rc = cli_qemu_write_text_(path, graph_runner_files[i].lines, &changed);
  }
  if (rc || (!changed && access(runner, X_OK) == 0)) return rc;
  char *cmd = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&cmd, &len);
  if (!f) return cli_say(CLI_FAIL, "out of memory");
  fprintf(f, "cd ");
  cli_qemu_quote_(f, src);
  fprintf(f, " && %s -std=gnu11 -O1 -I. -o irm-graph-runner", cc);
  for (size_t i = 0; i < sizeof graph_runner_files / sizeof *graph_runner_files; i++) {
    size_t n = strlen(graph_runner_files[i].name);
    if (n > 2 && strcmp(graph_runner_files[i].name + n - 2, ".c") == 0) fprintf(f, " %s", graph_runner_files[i].name);
  }
  fputs(" -Wl,-Bstatic -ljansson -Wl,-Bdynamic -ldl -lpthread 2>&1", f);
  fclose(f);
  char *out = NULL;
  FILE *p = popen(cmd, "r");
  int status = -1;
  if (p) {
    char chunk[512];
    size_t n, got = 0;
    while ((n = fread(chunk, 1, sizeof chunk, p)) > 0)
      if (!out || got < 4000) {
        char *grown = realloc(out, got + n + 1);
        if (!grown) break;
        out = grown;
        memcpy(out + got, chunk, n);
        out[got += n] = '\0';
      }
    status = pclose(p);
  }
  if (status != 0 && out && strstr(out, "jansson"))
    rc = cli_say(CLI_FAIL,
                 "run: a graph library runs under qemu through the graph runner, which needs %s's jansson: not found "
                 "(Debian: dpkg --add-architecture %s && apt-get update && apt-get install libjansson-dev:%s; or "
                 "build with --executor aot)",
                 arch, debian_arch(arch), debian_arch(arch));
  else if (status != 0)
    rc = cli_say(CLI_FAIL, "run: compiling the graph runner for qemu failed: %s\ncommand: %s", out ? out : "", cmd);
  free(out);
  free(cmd);
  return rc;
}

/* Output j from path, of the runner's line "output J CODE BITS NDIM D...". */
static int read_output(const char *line, const char *path, irm_object **outs) {
  unsigned code = 0, bits = 0;
  int j = 0, nd = 0, used = 0;
  int64_t dims[16];
  if (sscanf(line, "output %d %u %u %d%n", &j, &code, &bits, &nd, &used) != 4 || nd < 0 || nd > 16)
    return cli_say(CLI_FAIL, "run: the graph runner printed '%s'", line);
  for (int d = 0; d < nd; d++) {
    long long v = 0;
    int more = 0;
    if (sscanf(line + used, " %lld%n", &v, &more) != 1)
      return cli_say(CLI_FAIL, "run: the graph runner printed '%s'", line);
    dims[d] = v;
    used += more;
  }
  DLDataType dt = {(uint8_t)code, (uint8_t)bits, 1};
  return cli_qemu_read_tensor_(path, dt, dims, nd, outs);
}

int cli_qemu_graph_run_(const char *dir, const char *arch, const char *cc, const char *lib, const char *mod_name,
                        const irm_object *data, irm_object **outs) {
  char runner[4300], path[4096];
  int rc = make_graph_runner(dir, arch, cc, runner, sizeof runner);
  if (rc) return rc;
  size_t n_in = irm_array_size(data);
  char *cmd = NULL, *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&cmd, &len);
  if (!f) return cli_say(CLI_FAIL, "out of memory");
  fprintf(f, "qemu-%s -L /usr/%s-linux-gnu ", arch, arch);
  cli_qemu_quote_(f, runner);
  fputc(' ', f);
  cli_qemu_quote_(f, lib);
  fputc(' ', f);
  cli_qemu_quote_(f, mod_name);
  fputs(" run ", f);
  snprintf(path, sizeof path, "%s/.irm-qemu-out-", dir);
  cli_qemu_quote_(f, path);
  for (size_t i = 0; !rc && i < n_in; i++) {
    irm_tensor *t = (irm_tensor *)irm_array_at(data, i)->v_obj;
    snprintf(path, sizeof path, "%s/.irm-qemu-in-%zu.bin", dir, i);
    FILE *in = fopen(path, "wb");
    int ok = in && fwrite(irm_tensor_data_const(t), 1, irm_tensor_nbytes(t), in) == irm_tensor_nbytes(t);
    if (in && fclose(in)) ok = 0;
    if (!ok) rc = cli_say(CLI_FAIL, "run: cannot write '%s': %s", cli_quote(path), strerror(errno));
    fputc(' ', f);
    cli_qemu_quote_(f, path);
  }
  fclose(f);
  (void)len;
  if (!rc) rc = cli_qemu_cmd_("the library under qemu", cmd, &text);
  size_t n_out = 0;
  for (char *line = text; line && *line;) {
    char *end = strchr(line, '\n');
    if (end) *end = '\0';
    int j = -1;
    if (sscanf(line, "output %d", &j) == 1 && j >= 0) {
      snprintf(path, sizeof path, "%s/.irm-qemu-out-%d.bin", dir, j);
      if (!rc) rc = read_output(line, path, outs);
      unlink(path);
      n_out++;
    }
    line = end ? end + 1 : NULL;
  }
  if (!rc && !n_out) rc = cli_say(CLI_FAIL, "run: the graph runner reported no output: %s", text ? text : "");
  for (size_t i = 0; i < n_in; i++) {
    snprintf(path, sizeof path, "%s/.irm-qemu-in-%zu.bin", dir, i);
    unlink(path);
  }
  free(text);
  free(cmd);
  return rc;
}
