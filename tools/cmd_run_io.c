/* irm run's inputs and outputs (cmd_run.h): main's data inputs random
 * (seeded), from --input JSON files or an --inputs .npz / .npy (npy.h);
 * the outputs printed, written to an --outputs .npz, compared with
 * ir.Evaluate (--check). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd_build.h"
#include "cmd_run.h"
#include "npy.h"

/* ---- inputs ------------------------------------------------------------------------------- */

static uint64_t next_random(uint64_t *state) { /* splitmix64 */
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static int random_input(const irm_object *var, uint64_t seed, irm_any *out) {
  const irm_object *type = irm_expr_type(var);
  if (!type || !irm_object_is(type, "dataflow.TensorType"))
    return cli_say(CLI_FAIL, "run: input '%s' has no tensor type to make a random value of: give it with --input",
                   cli_quote(irm_var_name(var)));
  DLDataType dt = irm_tensor_type_dtype(type);
  irm_tensor *t = NULL;
  if (irm_tensor_new(dt, irm_tensor_type_shape(type), irm_tensor_type_ndim(type), NULL, &t)) return cli_fail("run");
  uint64_t state = seed;
  for (int64_t i = 0; i < irm_tensor_numel(t); i++) {
    double u = (double)(next_random(&state) >> 11) / 9007199254740992.0; /* [0, 1) */
    double x = dt.code == kDLFloat || dt.code == kDLBfloat ? 2 * u - 1 : dt.bits == 1 ? (u < 0.5) : floor(16 * u) - 8;
    if (dt.code == kDLUInt && x < 0) x += 8;
    irm_tensor_set_f64(t, i, x);
  }
  *out = irm_any_object(t);
  return CLI_OK;
}

/* The --input for name, or NULL. */
static const char *given_input(const run_flags *r, const char *name) {
  size_t len = strlen(name);
  for (size_t i = 0; i < r->n_inputs; i++)
    if (!strncmp(r->inputs[i], name, len) && r->inputs[i][len] == '=') return r->inputs[i] + len + 1;
  return NULL;
}

/* Every --input must name a data input. */
static int check_input_names(const run_flags *r, const char **names, size_t n) {
  for (size_t i = 0; i < r->n_inputs; i++) {
    size_t len = strcspn(r->inputs[i], "=");
    char name[256];
    if (len >= sizeof name) len = sizeof name - 1;
    memcpy(name, r->inputs[i], len);
    name[len] = '\0';
    size_t j = 0;
    while (j < n && strcmp(names[j], name)) j++;
    if (j < n) continue;
    const char *close = irm_closest_name(name, names, n);
    return cli_usage_error("run", "--input: the model has no input '%s'%s%s%s", cli_quote(name),
                           close ? " (did you mean '" : "", close ? close : "", close ? "'?)" : "");
  }
  return CLI_OK;
}

static int input_from_json(const char *name, const char *path, irm_any *out) {
  char *text = NULL;
  size_t len = 0;
  if (cli_read_all("run", path, &text, &len)) return CLI_FAIL;
  int rc = irm_from_json(text, len, out);
  free(text);
  if (rc) return cli_say(CLI_FAIL, "run: '%s': %s", cli_quote(path), irm_last_error());
  if (out->type_code == IRM_OBJECT && irm_is_tensor(out->v_obj)) return CLI_OK;
  irm_any_release(out);
  return cli_say(CLI_FAIL, "run: --input %s: '%s' holds no Tensor (expected ffi.ToJSON of one)", cli_quote(name),
                 cli_quote(path));
}

/* --inputs: the file's bytes and, for an .npz, its entries. */
typedef struct input_file {
  char *bytes;
  size_t len;
  zip_entry *entries; /* NULL for an .npy */
  size_t n;
} input_file;

static int has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && !strcmp(s + n - k, suffix);
}

static int open_inputs(const char *path, input_file *f) {
  memset(f, 0, sizeof *f);
  if (!path) return CLI_OK;
  if (cli_read_all("run", path, &f->bytes, &f->len)) return CLI_FAIL;
  char err[512];
  int npy = f->len >= 6 && !memcmp(f->bytes, "\x93NUMPY", 6);
  if (!npy && zip_read(f->bytes, f->len, &f->entries, &f->n, err, sizeof err))
    return cli_say(CLI_FAIL, "run: --inputs '%s': %s", cli_quote(path), err);
  return CLI_OK;
}

static void close_inputs(input_file *f) {
  zip_entries_free(f->entries, f->n);
  free(f->bytes);
}

/* The tensor an .npy image holds. */
static int tensor_of_npy(const char *path, const char *entry, const void *data, size_t size, irm_any *out) {
  npy_array a;
  char err[512];
  DLDataType dt;
  irm_tensor *t = NULL;
  if (npy_parse(data, size, &a, err, sizeof err))
    return cli_say(CLI_FAIL, "run: --inputs '%s'%s%s%s: %s", cli_quote(path), entry ? " (entry '" : "",
                   entry ? cli_quote(entry) : "", entry ? "')" : "", err);
  if (irm_dtype_parse(a.dtype, &dt) || irm_tensor_new(dt, a.shape, a.ndim, a.data, &t)) return cli_fail("run");
  *out = irm_any_object(t);
  return CLI_OK;
}

/* Input name of --inputs: an .npy for the only input, an .npz's entry
 * name(.npy); *found 0 when the file gives none. */
static int input_from_npz(const run_flags *r, const input_file *f, const char *name, size_t n_data, irm_any *out,
                          int *found) {
  *found = 0;
  if (!r->inputs_file) return CLI_OK;
  if (!f->entries) {
    if (n_data > 1)
      return cli_say(CLI_FAIL,
                     "run: --inputs '%s' is one .npy array, and the model has several inputs: give an .npz "
                     "(numpy.savez) with one entry per input",
                     cli_quote(r->inputs_file));
    *found = 1;
    return tensor_of_npy(r->inputs_file, NULL, f->bytes, f->len, out);
  }
  size_t len = strlen(name);
  for (size_t i = 0; i < f->n; i++) {
    const char *e = f->entries[i].name;
    if (strncmp(e, name, len) || (e[len] && strcmp(e + len, ".npy"))) continue;
    *found = 1;
    return tensor_of_npy(r->inputs_file, e, f->entries[i].data, f->entries[i].size, out);
  }
  return CLI_OK;
}

/* Every entry of an .npz must name a data input. */
static int check_npz_names(const run_flags *r, const input_file *f, const char **names, size_t n) {
  for (size_t i = 0; i < f->n; i++) {
    char name[256];
    snprintf(name, sizeof name, "%s", f->entries[i].name);
    if (has_suffix(name, ".npy")) name[strlen(name) - 4] = '\0';
    size_t j = 0;
    while (j < n && strcmp(names[j], name)) j++;
    if (j < n) continue;
    const char *close = irm_closest_name(name, names, n);
    return cli_usage_error("run", "--inputs '%s': entry '%s' names no input of the model%s%s%s",
                           cli_quote(r->inputs_file), cli_quote(name), close ? " (did you mean '" : "",
                           close ? close : "", close ? "'?)" : "");
  }
  return CLI_OK;
}

int run_make_inputs(const run_flags *r, const irm_module *mod, const irm_object *weights, irm_object **all,
                    irm_object **data) {
  const irm_object *params = irm_map_size(weights) ? weights : irm_module_params(mod);
  const irm_object *main_fn = irm_module_function(mod, "main");
  if (!main_fn) return cli_say(CLI_FAIL, "run: the model of %s has no function 'main'", BUILD_RECORD);
  size_t n = irm_function_param_count(main_fn), n_data = 0;
  for (size_t i = 0; i < n; i++)
    n_data += !(params && irm_map_find_cstr(params, irm_var_name(irm_function_param(main_fn, i))));
  const char **names = calloc(n + 1, sizeof *names);
  input_file f = {NULL, 0, NULL, 0};
  int rc = !names || irm_array_new(NULL, 0, all) || irm_array_new(NULL, 0, data) ? cli_say(CLI_FAIL, "out of memory")
                                                                                 : open_inputs(r->inputs_file, &f);
  size_t k = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    const irm_object *var = irm_function_param(main_fn, i);
    const char *name = irm_var_name(var);
    const irm_any *p = params ? irm_map_find_cstr(params, name) : NULL;
    irm_any v = irm_any_none();
    if (p) {
      if (p->type_code == IRM_OBJECT) irm_object_retain(p->v_obj);
      v = *p;
    } else {
      names[k++] = name;
      const char *file = given_input(r, name);
      int found = 0;
      if (file) rc = input_from_json(name, file, &v);
      else rc = input_from_npz(r, &f, name, n_data, &v, &found);
      if (!rc && !file && !found) rc = random_input(var, (uint64_t)r->seed * 1000003u + i, &v);
      if (!rc && irm_array_append_move(data, &v)) rc = cli_fail("run");
    }
    if (!rc && irm_array_append_move(all, &v)) rc = cli_fail("run");
    irm_any_release(&v);
  }
  if (!rc) rc = check_input_names(r, names, k);
  if (!rc && r->inputs_file) rc = check_npz_names(r, &f, names, k);
  close_inputs(&f);
  free(names);
  return rc;
}

/* ---- outputs ------------------------------------------------------------------------------- */

static void print_tensor(const char *label, const irm_tensor *t, int64_t show) {
  const DLTensor *dl = irm_tensor_dl(t);
  fprintf(cli_out, "%s: Tensor[(", label);
  for (int32_t d = 0; d < dl->ndim; d++) fprintf(cli_out, "%s%lld", d ? ", " : "", (long long)dl->shape[d]);
  fprintf(cli_out, "%s), %s] = [", dl->ndim == 1 ? "," : "", irm_dtype_name(dl->dtype));
  int64_t n = irm_tensor_numel(t), k = show && show < n ? show : n;
  for (int64_t i = 0; i < k; i++) fprintf(cli_out, "%s%.6g", i ? ", " : "", irm_tensor_get_f64(t, i));
  if (k < n) fprintf(cli_out, ", ... (%lld more)", (long long)(n - k));
  fputs("]\n", cli_out);
}

static double largest_difference(const irm_tensor *a, const irm_tensor *b) {
  if (irm_tensor_numel(a) != irm_tensor_numel(b)) return INFINITY;
  double worst = 0;
  for (int64_t i = 0; i < irm_tensor_numel(a); i++) {
    double x = irm_tensor_get_f64(a, i), y = irm_tensor_get_f64(b, i), d = fabs(x - y);
    if (isnan(x) != isnan(y)) d = INFINITY;
    if (d > worst) worst = d;
  }
  return worst;
}

void run_print_outputs(const run_flags *r, const irm_object *outs) {
  for (size_t j = 0; j < irm_array_size(outs); j++) {
    char label[32];
    snprintf(label, sizeof label, "output %zu", j);
    print_tensor(label, irm_array_at(outs, j)->v_obj, r->show);
  }
}

int run_compare(const run_flags *r, const irm_object *outs, const irm_any *want) {
  int tuple = want->type_code == IRM_OBJECT && irm_object_is(want->v_obj, "ffi.Array");
  size_t n_want = tuple ? irm_array_size(want->v_obj) : 1;
  if (irm_array_size(outs) != n_want)
    return cli_say(CLI_FAIL, "run: the library gave %zu outputs, ir.Evaluate %zu", irm_array_size(outs), n_want);
  double worst = 0;
  for (size_t j = 0; j < n_want; j++) {
    const irm_any *w = tuple ? irm_array_at(want->v_obj, j) : want;
    if (w->type_code != IRM_OBJECT || !irm_is_tensor(w->v_obj))
      return cli_say(CLI_FAIL, "run: ir.Evaluate gave %s for output %zu, not a Tensor", irm_any_type_name(w), j);
    double d = largest_difference(irm_array_at(outs, j)->v_obj, w->v_obj);
    if (d > worst || isnan(d)) worst = d;
  }
  fprintf(cli_out, "largest difference from ir.Evaluate: %.3g (tolerance %g)\n", worst, r->tolerance);
  if (!(worst <= r->tolerance))
    return cli_say(CLI_FAIL, "run: the outputs differ from ir.Evaluate by %.3g, more than --tolerance %g", worst,
                   r->tolerance);
  return CLI_OK;
}

int run_write_outputs(const char *path, const irm_object *outs) {
  size_t n = irm_array_size(outs);
  char **names = calloc(n + 1, sizeof *names);
  unsigned char **datas = calloc(n + 1, sizeof *datas);
  size_t *sizes = calloc(n + 1, sizeof *sizes);
  int rc = names && datas && sizes ? CLI_OK : cli_say(CLI_FAIL, "out of memory");
  for (size_t j = 0; !rc && j < n; j++) {
    names[j] = malloc(32);
    if (!names[j] || npy_format(irm_tensor_dl(irm_array_at(outs, j)->v_obj), &datas[j], &sizes[j]))
      rc = cli_say(CLI_FAIL, "run: --outputs: output %zu cannot be written as .npy", j);
    else snprintf(names[j], 32, "output_%zu.npy", j);
  }
  FILE *f = rc ? NULL : fopen(path, "wb");
  if (!rc && !f) rc = cli_say(CLI_FAIL, "run: --outputs: cannot write '%s': %s", cli_quote(path), strerror(errno));
  if (!rc && zip_write(f, (const char *const *)names, (const unsigned char *const *)datas, sizes, n))
    rc = cli_say(CLI_FAIL, "run: --outputs '%s': an output too large for a zip without zip64", cli_quote(path));
  if (f && (fclose(f) || rc) && !rc)
    rc = cli_say(CLI_FAIL, "run: --outputs: writing '%s' failed: %s", cli_quote(path), strerror(errno));
  struct stat st;
  /* No half-written archive; a device or pipe (/dev/full) is left alone. */
  if (f && rc && stat(path, &st) == 0 && S_ISREG(st.st_mode)) remove(path);
  if (!rc) fprintf(cli_out, "outputs written to %s (%zu arrays: output_0 ...)\n", cli_quote(path), n);
  for (size_t j = 0; j < n; j++) {
    if (names) free(names[j]);
    if (datas) free(datas[j]);
  }
  free(names);
  free(datas);
  free(sizes);
  return rc;
}
