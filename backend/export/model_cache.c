/* Model-level reuse (docs/build.md#model-level-reuse): a key over what
 * fully decides the library a build exports into, computed before the
 * passes run, so that rebuilding the same module takes the finished
 * library from the build cache without running the pipeline, code
 * generation or export.
 *
 * The key is the SHA-256 of: irm's version and the identity of this
 * libirm (its path, size and modification time: a rebuilt irm misses);
 * the current PassContext (opt_level, required and disabled passes,
 * config); and the text of the module as the pipeline would receive it
 * (irm_build_prepare_: the targets resolved, -mcpu=native included, the
 * executor, runtime, params and mod_name set), every tensor of more than
 * 16 elements printed as its dtype, shape and a 128-bit hash of its bytes.
 * At export the compiler's identity, the flags and the runtime headers
 * are added (irm_export_toolchain_key_). Builds whose result the key
 * cannot vouch for are not reused: a PassContext with instruments (they
 * must see the passes), a tuning database (a file the key does not read),
 * an executor other than aot and graph, a module the text form cannot
 * print, and a library with a params file beside it. Loaded plugins enter
 * the key by their info, path, size and time. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "export_internal.h"
#include "irm/build_cache.h"
#include "irm/config.h"
#include "irm/container.h"
#include "irm/dataflow/text.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/pass_context.h"
#include "irm/plugin.h"
#include "irm/structural.h"
#include "irm/tensor.h"
#include "irm/version.h"

#define MODEL_KEY_ELIDE_ 16 /* tensors above this many elements enter the key as a hash of their bytes */

static int sha_sink(void *ctx, const char *data, size_t len) {
  irm_sha256_update_(ctx, data, len);
  return 0;
}

static int tensor_note(void *ctx, const irm_object *tensor, char note[65]) {
  (void)ctx;
  const void *data = irm_tensor_data_const((const irm_tensor *)tensor);
  size_t n = irm_tensor_nbytes((const irm_tensor *)tensor);
  char hex[33];
  irm_hash128_hex_(data ? data : "", data ? n : 0, hex);
  snprintf(note, 65, "h%s", hex);
  return 0;
}

/* irm's version and where this libirm lies, its size and time. */
static const char identity_probe_ = 0; /* an object of this library, for dladdr */

static void irm_identity(irm_sha256_ *s) {
  static const char version[] = "irm " IRM_VERSION_STRING "\n";
  irm_sha256_update_(s, version, sizeof version - 1);
  Dl_info info;
  struct stat st = {0};
  char line[4200];
  if (dladdr(&identity_probe_, &info) && info.dli_fname && stat(info.dli_fname, &st) == 0) {
    int n = snprintf(line, sizeof line, "%s %lld.%09ld %lld\n", info.dli_fname, (long long)st.st_mtim.tv_sec,
                     st.st_mtim.tv_nsec, (long long)st.st_size);
    if (n > 0) irm_sha256_update_(s, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
  }
}

/* Adds one value's repr (a pass context's fields). */
static int add_repr(irm_sha256_ *s, const char *label, const irm_any *v) {
  irm_object *text = NULL;
  int rc = irm_repr(v, &text);
  if (rc) return rc;
  irm_sha256_update_(s, label, strlen(label) + 1);
  irm_sha256_update_(s, irm_string_data(text), irm_string_size(text) + 1);
  irm_object_release(text);
  return IRM_OK;
}

/* Whether the thread's pass context and the process allow reuse; when so,
 * its fields go into s. */
static int pass_context_part(irm_sha256_ *s, int *reusable) {
  irm_pass_context *ctx = NULL;
  irm_object *info = NULL, *plugins = NULL;
  int rc = irm_pass_context_current(&ctx);
  if (!rc) rc = irm_pass_context_info(ctx, &info);
  if (!rc) rc = irm_plugin_list(&plugins);
  for (size_t i = 0; !rc && i < irm_array_size(plugins); i++) { /* what they registered: their files */
    const irm_any *p = irm_array_at(plugins, i);
    const irm_any *where = p->type_code == IRM_OBJECT ? irm_map_find_cstr(p->v_obj, "path") : NULL;
    const char *path = NULL;
    struct stat st = {0};
    if (where && !irm_any_to_str(where, &path, NULL)) stat(path, &st);
    irm_clear_error();
    char line[128];
    snprintf(line, sizeof line, "%lld.%09ld %lld", (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
             (long long)st.st_size);
    rc = add_repr(s, "plugin", p);
    if (!rc) irm_sha256_update_(s, line, strlen(line) + 1);
  }
  const irm_any *ins = rc ? NULL : irm_map_find_cstr(info, "instruments");
  if (ins && ins->type_code == IRM_OBJECT && ins->v_obj && irm_array_size(ins->v_obj) > 0) *reusable = 0;
  const irm_object *config = rc ? NULL : irm_pass_context_config(ctx);
  if (config && irm_map_find_cstr(config, "tune.database")) *reusable = 0;
  static const char *const fields[] = {"opt_level", "required", "disabled", "config"};
  for (size_t i = 0; !rc && *reusable && i < sizeof fields / sizeof fields[0]; i++) {
    const irm_any *v = irm_map_find_cstr(info, fields[i]);
    irm_any none = irm_any_none();
    rc = add_repr(s, fields[i], v ? v : &none);
  }
  irm_object_release(plugins);
  irm_object_release(info);
  irm_object_release(ctx);
  return rc;
}

int irm_build_reuse_key_(const char *tag, const void *extra, size_t len, const irm_module *mod, const irm_any *target,
                         const irm_any *target_host, const irm_object *executor, const irm_object *runtime,
                         const irm_object *params, const char *mod_name, const char *irm_version, char key[65],
                         irm_module **prepared) {
  key[0] = '\0';
  *prepared = NULL;
  if (!mod_name) mod_name = "default";
  irm_module *frozen = NULL;
  int rc = irm_builtins_ready_();
  if (!rc) rc = irm_build_prepare_(mod, target, target_host, executor, runtime, params, mod_name, &frozen);
  if (rc) return irm_error_context(rc, "in build of '%s'", irm_error_quote(mod_name));
  irm_sha256_ s;
  irm_sha256_init_(&s);
  irm_sha256_update_(&s, tag, strlen(tag) + 1);
  if (irm_version) irm_sha256_update_(&s, irm_version, strlen(irm_version) + 1);
  else irm_identity(&s);
  int reusable = 1;
  irm_compilation_config *cfg = NULL;
  rc = pass_context_part(&s, &reusable);
  if (!rc) rc = irm_module_compilation_config(frozen, &cfg);
  if (!rc) {
    const char *kind = irm_config_kind_name(irm_compilation_config_executor(cfg));
    if (strcmp(kind, "aot") != 0 && strcmp(kind, "graph") != 0) reusable = 0;
    irm_any db = irm_any_none();
    if (irm_module_get_attr(frozen, "tune.database", &db) == IRM_OK && db.type_code != IRM_NONE) reusable = 0;
    irm_any_release(&db);
    irm_clear_error();
  }
  irm_object_release(cfg);
  if (!rc && reusable) {
    irm_dataflow_print_options opts = IRM_DATAFLOW_PRINT_OPTIONS_INIT;
    opts.elide_larger_than = MODEL_KEY_ELIDE_;
    opts.elided_note = tensor_note;
    if (irm_dataflow_print_to(frozen, &opts, sha_sink, &s) != IRM_OK) { /* no text form: no key */
      irm_clear_error();
      reusable = 0;
    }
  }
  if (rc || !reusable) {
    irm_object_release(frozen);
    return rc;
  }
  irm_sha256_update_(&s, "\nextra\n", 7);
  if (len) irm_sha256_update_(&s, extra, len);
  irm_sha256_hex_(&s, key);
  *prepared = frozen;
  return IRM_OK;
}

int irm_build_model_key(const irm_module *mod, const irm_any *target, const irm_any *target_host,
                        const irm_object *executor, const irm_object *runtime, const irm_object *params,
                        const char *mod_name, const char *irm_version, char key[65], irm_module **prepared) {
  if (!key || !prepared) return irm_error(IRM_EVALUE, "irm_build_model_key: key and prepared must not be NULL");
  return irm_build_reuse_key_("irm model key 1\n", NULL, 0, mod, target, target_host, executor, runtime, params,
                              mod_name, irm_version, key, prepared);
}

/* The cache key of the library: the model key and the toolchain. */
static int library_key(const char *model_key, const irm_module *prepared, const char *cc, char out[65]) {
  irm_text_buf tool;
  irm_text_buf_init_(&tool, NULL, 0);
  int rc = irm_export_toolchain_key_(prepared, cc, &tool);
  if (!rc) {
    irm_sha256_ s;
    irm_sha256_init_(&s);
    irm_sha256_update_(&s, "model library\n", 14);
    irm_sha256_update_(&s, model_key, strlen(model_key) + 1);
    irm_sha256_update_(&s, irm_text_buf_cstr_(&tool), tool.len);
    irm_sha256_hex_(&s, out);
  }
  irm_text_buf_free_(&tool);
  return rc;
}

static int check_key(const char *fn, const char *key) {
  size_t n = key ? strspn(key, "0123456789abcdef") : 0;
  if (n != 64 || key[64])
    return irm_error(IRM_EVALUE, "%s: expected a model key of 64 lowercase hex digits (irm_build_model_key), got '%s'",
                     fn, key ? irm_error_quote(key) : "NULL");
  return IRM_OK;
}

int irm_build_model_library_fetch(const char *model_key, const irm_module *prepared, const char *path, const char *cc,
                                  const char *cache_dir, int *hit) {
  static const char fn[] = "irm_build_model_library_fetch";
  if (!hit || (path && !path[0]) || !prepared)
    return irm_error(IRM_EVALUE, "%s: prepared and hit must be given, and path not empty", fn);
  *hit = 0;
  char key[65];
  irm_build_cache *cache = NULL;
  int rc = check_key(fn, model_key);
  if (!rc) rc = library_key(model_key, prepared, cc, key);
  if (!rc) rc = irm_build_cache_open(cache_dir, &cache);
  if (!rc && path) rc = irm_export_fetch_library_(cache, key, path, hit);
  else if (!rc) { /* only whether an entry is there (fetching checks its integrity) */ struct stat st;
    char entry[4096 + 96];
    snprintf(entry, sizeof entry, "%s/objects/%.2s/%s", irm_build_cache_dir(cache), key, key);
    *hit = stat(entry, &st) == 0 && S_ISREG(st.st_mode);
  }
  irm_build_cache_close(cache);
  return rc;
}

/* Whether the artifacts include a params file (it would go beside the library). */
static int has_params_file(const irm_object *result) {
  const irm_any *a = irm_object_type_index(result) == IRM_TYPE_MAP ? irm_map_find_cstr(result, "artifacts") : NULL;
  if (!a || a->type_code != IRM_OBJECT || irm_object_type_index(a->v_obj) != IRM_TYPE_MAP) return 1;
  irm_map_iter it = irm_map_iter_begin(a->v_obj);
  const irm_object *k;
  const irm_any *v;
  while (irm_map_iter_next(&it, &k, &v)) {
    const char *name = irm_string_data(k);
    size_t len = strlen(name);
    if (len >= 7 && strcmp(name + len - 7, ".params") == 0) return 1;
  }
  return 0;
}

int irm_build_model_library_store(const char *model_key, const irm_module *prepared, const irm_object *result,
                                  const char *path, const char *cc, const char *cache_dir, int *stored) {
  static const char fn[] = "irm_build_model_library_store";
  if (!stored || !path || !path[0] || !prepared)
    return irm_error(IRM_EVALUE, "%s: prepared, path and stored must be given", fn);
  *stored = 0;
  int rc = check_key(fn, model_key);
  if (rc || (result && has_params_file(result))) return rc; /* a library with a file beside it is not one entry */
  char key[65];
  irm_build_cache *cache = NULL;
  rc = library_key(model_key, prepared, cc, key);
  if (!rc) rc = irm_build_cache_open(cache_dir, &cache);
  uint64_t before = 0, after = 0;
  if (!rc) irm_build_cache_counts(cache, NULL, NULL, NULL, &before, NULL);
  if (!rc) rc = irm_build_cache_store_linked(cache, key, path);
  if (!rc) irm_build_cache_counts(cache, NULL, NULL, NULL, &after, NULL);
  *stored = after > before;
  irm_build_cache_close(cache);
  return rc;
}
