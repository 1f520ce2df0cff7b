/* The pass reproducer (pass.h, "reproducers"): when the config option
 * pass.reproducer names a file, a failing irm_pass_run writes there the
 * module as it was before the failing pass, the pipeline from that pass on,
 * the context's settings and the plugins loaded, in the library's own JSON;
 * irm_pass_reproducer_load reads it back, ready to run.
 *
 * The runner notes the first pass that fails (the innermost: failures
 * travel outward) in a per-thread record; the outermost irm_pass_run writes
 * the file. Only passes of the outermost run's own tree are noted: a pass
 * body that runs a pipeline of its own fails as that body, and the body is
 * what reproduces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irm_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/json.h"
#include "irm/plugin.h"
#include "irm/version.h"
#include "pass_internal.h"
#include "reproducer_internal.h"

#define FORMAT_VERSION 1

typedef struct repro_state {
  int depth; /* nesting of irm_pass_run */
  int armed; /* the outermost run's context names a file */
  irm_pass *failed;
  irm_module *before;
} repro_state;

static _Thread_local repro_state tl;

void irm_reproducer_begin_(irm_pass_context *ctx) {
  if (tl.depth++ > 0) return;
  const irm_any *path = irm_map_find_cstr(irm_pass_context_config(ctx), IRM_PASS_REPRODUCER_CONFIG);
  tl.armed = path && path->type_code == IRM_OBJECT;
}

void irm_reproducer_note_failure_(const irm_pass *pass, irm_module *mod) {
  if (tl.depth != 1 || !tl.armed || tl.failed) return;
  tl.failed = (irm_pass *)pass;
  irm_object_retain(tl.failed);
  tl.before = mod;
  irm_object_retain(mod);
}

/* ---- the pipeline from the failing pass on ------------------------------------ */

/* root cut to start at target: root itself when it is target; a Sequential
 * holding target (at any depth) becomes a Sequential of the same name and
 * opt_level holding the cut child and the children after it. *out NULL
 * when root does not hold target. */
static int cut(const irm_pass *root, const irm_pass *target, int depth, irm_pass **out) {
  *out = NULL;
  if (root == target) {
    irm_object_retain((irm_pass *)root);
    *out = (irm_pass *)root;
    return IRM_OK;
  }
  const irm_pass_payload_ *p = irm_pass_payload_of_(root);
  if (!p || p->kind != IRM_PASS_SEQUENTIAL_ || depth > 100) return IRM_OK;
  size_t n = irm_array_size(p->passes);
  for (size_t i = 0; i < n; i++) {
    irm_pass *first = NULL;
    int rc = cut(irm_array_at(p->passes, i)->v_obj, target, depth + 1, &first);
    if (rc) return rc;
    if (!first) continue;
    irm_pass **rest = irm_calloc(n - i, sizeof *rest);
    if (!rest) {
      irm_object_release(first);
      return irm_error_nomem_("cutting the reproducer's pipeline");
    }
    rest[0] = first;
    for (size_t j = i + 1; j < n; j++) rest[j - i] = irm_array_at(p->passes, j)->v_obj;
    rc = irm_sequential_new(rest, n - i, p->opt_level, irm_string_data(p->name), out);
    irm_free(rest);
    irm_object_release(first);
    return rc;
  }
  return IRM_OK;
}

/* ---- writing ------------------------------------------------------------------- */

static int put(irm_object **map, const char *key, irm_any value) {
  int rc = irm_map_set_move(map, key, &value);
  irm_any_release(&value);
  return rc;
}

static int plugin_paths(irm_object **out) {
  irm_object *list = NULL, *paths = NULL;
  int rc = irm_plugin_list(&list);
  if (!rc) rc = irm_array_new(NULL, 0, &paths);
  for (size_t i = 0; !rc && i < irm_array_size(list); i++) {
    const irm_any *path = irm_map_find_cstr(irm_array_at(list, i)->v_obj, "path");
    if (path) rc = irm_array_append_move(&paths, path);
  }
  irm_object_release(list);
  if (rc) irm_object_release(paths);
  else *out = paths;
  return rc;
}

static int write_text(const char *path, const irm_object *text) {
  FILE *f = fopen(path, "w");
  if (!f) return irm_error(IRM_ERUNTIME, "cannot write the reproducer '%s'", irm_error_quote(path));
  size_t n = irm_string_size(text);
  int bad = fwrite(irm_string_data(text), 1, n, f) != n || fputc('\n', f) == EOF;
  if (fclose(f) != 0) bad = 1;
  return bad ? irm_error(IRM_ERUNTIME, "cannot write the reproducer '%s'", irm_error_quote(path)) : IRM_OK;
}

static int write_reproducer(const char *path, const irm_pass *root, irm_pass_context *ctx, const char *error) {
  irm_pass *pipeline = NULL;
  irm_object *text = NULL, *mod_json = NULL, *doc = NULL, *config = NULL, *plugins = NULL, *json = NULL;
  int rc = cut(root, tl.failed, 0, &pipeline);
  if (!rc && !pipeline) {
    /* A pass a Sequential required: not in the tree, so it stands alone. */
    irm_object_retain(tl.failed);
    pipeline = tl.failed;
  }
  if (!rc) rc = irm_pipeline_print(pipeline, &text);
  irm_any mod = irm_any_object(tl.before);
  if (!rc) rc = irm_to_json(&mod, &mod_json);
  if (!rc) rc = irm_map_with_erase(irm_pass_context_config(ctx), IRM_PASS_REPRODUCER_CONFIG, &config);
  if (!rc) rc = plugin_paths(&plugins);
  if (!rc) rc = irm_map_new(&doc);
  irm_object_retain((irm_object *)irm_pass_context_required(ctx));
  irm_object_retain((irm_object *)irm_pass_context_disabled(ctx));
  irm_object *required = (irm_object *)irm_pass_context_required(ctx);
  irm_object *disabled = (irm_object *)irm_pass_context_disabled(ctx);
  if (!rc) rc = put(&doc, "irm_reproducer", irm_any_int(FORMAT_VERSION));
  if (!rc) rc = put(&doc, "irm_version", irm_any_str(irm_version()));
  if (!rc) rc = put(&doc, "failed_pass", irm_any_str(irm_pass_name(tl.failed)));
  if (!rc) rc = put(&doc, "error", irm_any_str(error));
  if (!rc) rc = put(&doc, "pipeline", irm_any_object(text)), text = NULL;
  if (!rc) rc = put(&doc, "opt_level", irm_any_int(irm_pass_context_opt_level(ctx)));
  if (!rc) rc = put(&doc, "required", irm_any_object(required)), required = NULL;
  if (!rc) rc = put(&doc, "disabled", irm_any_object(disabled)), disabled = NULL;
  if (!rc) rc = put(&doc, "config", irm_any_object(config)), config = NULL;
  if (!rc) rc = put(&doc, "plugins", irm_any_object(plugins)), plugins = NULL;
  if (!rc) rc = put(&doc, "module", irm_any_object(mod_json)), mod_json = NULL;
  irm_any doc_any = irm_any_object(doc);
  if (!rc) rc = irm_to_json(&doc_any, &json);
  if (!rc) rc = write_text(path, json);
  irm_object_release(pipeline);
  irm_object_release(text);
  irm_object_release(mod_json);
  irm_object_release(config);
  irm_object_release(plugins);
  irm_object_release(required);
  irm_object_release(disabled);
  irm_object_release(doc);
  irm_object_release(json);
  return rc;
}

void irm_reproducer_end_(const irm_pass *root, irm_pass_context *ctx, int rc) {
  if (--tl.depth > 0) return;
  if (rc && tl.armed && tl.failed) {
    const irm_any *path = irm_map_find_cstr(irm_pass_context_config(ctx), IRM_PASS_REPRODUCER_CONFIG);
    char *error = irm_strdup(irm_last_error());
    const char *file = NULL;
    if (error && irm_any_to_str(path, &file, NULL) == IRM_OK && write_reproducer(file, root, ctx, error))
      irm_warn("no reproducer written: %s", irm_last_error());
    /* The run's error is what the caller sees, whatever happened here. */
    if (error) irm_set_last_error(error);
    irm_free(error);
  }
  irm_object_release(tl.failed);
  irm_object_release(tl.before);
  tl = (repro_state){0, 0, NULL, NULL};
}

/* ---- reading --------------------------------------------------------------------- */

static int read_file(const char *path, char **text, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return irm_error(IRM_EVALUE, "cannot read the reproducer '%s'", irm_error_quote(path));
  size_t cap = 4096, n = 0;
  char *buf = irm_malloc(cap);
  while (buf) {
    if (n == cap) {
      char *grown = irm_realloc(buf, cap * 2);
      if (!grown) break;
      buf = grown;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  int bad = ferror(f);
  fclose(f);
  if (!buf || (n == cap && !bad)) {
    irm_free(buf);
    return irm_error_nomem_("reading a reproducer");
  }
  if (bad) {
    irm_free(buf);
    return irm_error(IRM_EVALUE, "cannot read the reproducer '%s'", irm_error_quote(path));
  }
  *text = buf;
  *len = n;
  return IRM_OK;
}

/* field key of doc as type code (and type key for objects), else a ValueError. */
static const irm_any *field(const irm_object *doc, const char *key, int code, const char *type) {
  const irm_any *v = irm_map_find_cstr(doc, key);
  if (!v || v->type_code != code || (type && !irm_object_is(v->v_obj, type))) return NULL;
  return v;
}

int irm_pass_reproducer_load(const char *path, irm_object **out) {
  if (!out || !path) return irm_error(IRM_EVALUE, "irm_pass_reproducer_load: path and out must not be NULL");
  *out = NULL;
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  char *text = NULL;
  size_t len = 0;
  if ((rc = read_file(path, &text, &len))) return rc;
  irm_any doc = irm_any_none(), mod = irm_any_none();
  rc = irm_from_json(text, len, &doc);
  irm_free(text);
  if (rc) return irm_error_context(rc, "reproducer '%s'", irm_error_quote(path));
  const irm_object *d = doc.type_code == IRM_OBJECT && irm_object_is(doc.v_obj, "ffi.Map") ? doc.v_obj : NULL;
  const irm_any *version = d ? field(d, "irm_reproducer", IRM_INT, NULL) : NULL;
  const irm_any *pipeline = d ? field(d, "pipeline", IRM_OBJECT, "ffi.String") : NULL;
  const irm_any *module = d ? field(d, "module", IRM_OBJECT, "ffi.String") : NULL;
  const irm_any *level = d ? field(d, "opt_level", IRM_INT, NULL) : NULL;
  const irm_any *plugins = d ? field(d, "plugins", IRM_OBJECT, "ffi.Array") : NULL;
  const irm_any *required = d ? field(d, "required", IRM_OBJECT, "ffi.Array") : NULL;
  const irm_any *disabled = d ? field(d, "disabled", IRM_OBJECT, "ffi.Array") : NULL;
  const irm_any *config = d ? field(d, "config", IRM_OBJECT, "ffi.Map") : NULL;
  if (!version || version->v_int != FORMAT_VERSION || !pipeline || !module || !level || !plugins || !required ||
      !disabled || !config) {
    irm_any_release(&doc);
    return irm_error(IRM_EVALUE, "'%s' is no irm reproducer (version %d)", irm_error_quote(path), FORMAT_VERSION);
  }
  /* Plugins first: the module and pipeline may use what they register. */
  for (size_t i = 0; !rc && i < irm_array_size(plugins->v_obj); i++) {
    const char *plugin = NULL;
    rc = irm_any_to_str(irm_array_at(plugins->v_obj, i), &plugin, NULL);
    if (!rc) rc = irm_plugin_load(plugin);
  }
  irm_object *m = (irm_object *)module->v_obj;
  if (!rc) rc = irm_from_json(irm_string_data(m), irm_string_size(m), &mod);
  if (!rc && (mod.type_code != IRM_OBJECT || !irm_object_is(mod.v_obj, "ir.IRModule")))
    rc = irm_error(IRM_EVALUE, "its module is %s, not an ir.IRModule", irm_any_type_name(&mod));
  irm_pass *pass = NULL;
  irm_pass_context *ctx = NULL;
  if (!rc) rc = irm_pipeline_parse(irm_string_data(pipeline->v_obj), &pass);
  if (!rc) rc = irm_pass_context_new((int)level->v_int, required->v_obj, disabled->v_obj, config->v_obj, NULL, &ctx);
  irm_object *result = NULL;
  if (!rc) {
    const char *keys[] = {"module", "pipeline", "context", "failed_pass", "error", "plugins"};
    irm_any none = irm_any_none();
    const irm_any *fp = irm_map_find_cstr(d, "failed_pass"), *err = irm_map_find_cstr(d, "error");
    irm_any values[] = {mod, irm_any_object(pass), irm_any_object(ctx), fp ? *fp : none, err ? *err : none, *plugins};
    rc = irm_map_from_pairs(keys, values, 6, &result);
  }
  irm_object_release(pass);
  irm_object_release(ctx);
  irm_any_release(&mod);
  irm_any_release(&doc);
  if (rc) return irm_error_context(rc, "reproducer '%s'", irm_error_quote(path));
  *out = result;
  return IRM_OK;
}
