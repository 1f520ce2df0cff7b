/* The `aot` executor's code generator ("executor.codegen" of kind aot,
 * docs/build.md#the-aot-executor): (module, config) -> Map of artifacts
 *   tvmgen_<mod_name>.c   the kernels, the workspace, the constants and
 *                         the entry points (aot_emit.c, aot_kernels.c);
 *   tvmgen_<mod_name>.h   with interface-api = "c": the inputs/outputs
 *                         structs and tvmgen_<mod_name>_run;
 *   <mod_name>.params     with link-params = false: main's constants in
 *                         the params file layout (runtime/include/irm_params.h);
 *   tvmgen_<mod_name>_params.bin, tvmgen_<mod_name>_params.s
 *                         with link-params: that file and the assembler
 *                         unit linking it in as data (aot_params.c).
 * Everything it reads comes through the module: its CompilationConfig
 * (executor options, runtime, default target), mod_name, params and the
 * usmp.* attributes. main is lowered (lower/plan.h) and the emitters read
 * the plan and the options. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "aot_internal.h"
#include "backend_internal.h"
#include "irm/config.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/module.h"

/* An option of the executor; NONE when its kind has no such option (a kind
 * registered at run time may reuse this code generator with fewer options). */
static int option(const irm_object *e, const char *key, irm_any *v) {
  int rc = irm_config_get_attr(e, key, v);
  if (rc == IRM_EATTR) {
    irm_clear_error();
    *v = irm_any_none();
    rc = IRM_OK;
  }
  return rc;
}

static int option_int(const irm_object *e, const char *key, int64_t dflt, int64_t *out) {
  irm_any v = irm_any_none();
  int rc = option(e, key, &v);
  *out = dflt;
  if (!rc && v.type_code != IRM_NONE) rc = irm_any_to_int(&v, out);
  irm_any_release(&v);
  return rc;
}

static int option_bool(const irm_object *e, const char *key, bool dflt, bool *out) {
  irm_any v = irm_any_none();
  int rc = option(e, key, &v);
  *out = dflt;
  if (!rc && v.type_code != IRM_NONE) rc = irm_any_to_bool(&v, out);
  irm_any_release(&v);
  return rc;
}

static int alignment(const irm_object *e, const char *key, size_t *out) {
  int64_t a = 16;
  int rc = option_int(e, key, 16, &a);
  if (!rc && (a < 1 || a > 4096 || (a & (a - 1))))
    rc = irm_error(IRM_EVALUE, "executor 'aot': option '%s' must be a power of two from 1 to 4096, got %lld", key,
                   (long long)a);
  *out = (size_t)a;
  return rc;
}

/* The options of the aot executor and the rest of the configuration: the
 * emitter's options *o, and what lowering is asked for *req. */
static int read_options(const irm_module *mod, const irm_compilation_config *cfg, aot_options *o, plan_request *req) {
  const irm_object *e = irm_compilation_config_executor(cfg);
  irm_any api = irm_any_none();
  const char *a = "packed";
  int rc = option(e, "interface-api", &api);
  if (!rc && api.type_code != IRM_NONE) rc = irm_any_to_str(&api, &a, NULL);
  if (!rc) o->interface_c = strcmp(a, "c") == 0;
  irm_any_release(&api);
  if (!rc) rc = option_bool(e, "unpacked-api", false, &o->unpacked);
  if (!rc) rc = option_bool(e, "link-params", true, &o->link_params);
  if (!rc) rc = alignment(e, "workspace-byte-alignment", &o->ws_align);
  if (!rc) rc = alignment(e, "constant-byte-alignment", &o->const_align);
  if (!rc) rc = irm_mem_algo_of_module_(mod, &req->algo);
  if (rc) return rc;
  o->runtime = irm_config_kind_name(irm_compilation_config_runtime(cfg));
  o->executor = irm_config_kind_name(e);
  o->mod_name = irm_module_mod_name(mod);
  if (!o->mod_name) o->mod_name = "default";
  for (const char *s = o->mod_name; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_')
      return irm_error(IRM_EVALUE,
                       "aot codegen: mod_name '%s' must be a C identifier (letters, digits, '_'): it "
                       "names the generated symbols",
                       irm_error_quote(o->mod_name));
  if (isdigit((unsigned char)o->mod_name[0]))
    return irm_error(IRM_EVALUE, "aot codegen: mod_name '%s' must not start with a digit", o->mod_name);
  req->mod_name = o->mod_name;
  req->who = "aot codegen";
  req->target = irm_compilation_config_default_primitive_target(cfg);
  req->alignment = o->ws_align;
  req->scratch_buffers = true;                    /* in the workspace */
  req->output_buffers = false;                    /* written straight into the caller's outputs */
  req->views_share = req->views_of_inputs = true; /* reshapes run nothing, as the graph's __nop */
  return irm_plan_threads_of_(cfg, &req->threads);
}

/* With interface-api = "c" the inputs are fields of a struct, named by
 * their mangled names (codegen/c_text.h): two names that mangle alike are
 * an error naming both. */
static int distinct_fields(const lowered_plan *p) {
  for (size_t i = 0; i < p->n_inputs; i++)
    for (size_t j = 0; j < i; j++)
      if (strcmp(p->inputs[i].field, p->inputs[j].field) == 0)
        return irm_error(IRM_EVALUE,
                         "aot codegen (interface-api = \"c\"): the inputs %%%s and %%%s both become the C field "
                         "'%s'; rename one",
                         irm_error_quote(p->inputs[j].name), irm_error_quote(p->inputs[i].name), p->inputs[i].field);
  return IRM_OK;
}

static int put_text(irm_object **artifacts, const char *name, irm_text_buf *b) {
  irm_object *s = NULL;
  int rc = irm_text_buf_take_string_(b, "for an artifact", &s);
  irm_any v = irm_any_object(s);
  if (!rc) rc = irm_map_set_move(artifacts, name, &v);
  irm_object_release(s);
  return rc;
}

static int put_blob(irm_object **artifacts, const char *name, irm_object *blob) {
  irm_any v = irm_any_object(blob);
  return irm_map_set_move(artifacts, name, &v);
}

static int aot_codegen(const irm_module *mod, const irm_compilation_config *cfg, irm_object **out) {
  lowered_plan p = {0};
  aot_options o = {0};
  plan_request req = {0};
  irm_text_buf src, hdr, asm_;
  irm_text_buf_init_(&src, NULL, 0);
  irm_text_buf_init_(&hdr, NULL, 0);
  irm_text_buf_init_(&asm_, NULL, 0);
  irm_object *artifacts = NULL, *blob = NULL;
  size_t *offsets = NULL;
  int rc = read_options(mod, cfg, &o, &req);
  if (!rc) rc = irm_plan_lower_(mod, &req, &p);
  if (!rc && o.interface_c) rc = distinct_fields(&p);
  if (!rc) rc = irm_aot_params_blob_(&p, &blob);
  if (!rc && o.link_params && !(offsets = irm_calloc(p.n_consts + 1, sizeof *offsets)))
    rc = irm_error(IRM_ENOMEM, "aot codegen: out of memory");
  if (!rc && o.link_params) rc = irm_aot_params_offsets_(blob, p.n_consts, offsets);
  o.param_offsets = offsets;
  if (!rc) rc = irm_aot_emit_source_(&p, &o, &src);
  if (!rc && o.interface_c) rc = irm_aot_emit_header_(&p, &o, &hdr);
  if (!rc) rc = irm_map_new(&artifacts);
  char name[300];
  snprintf(name, sizeof name, "tvmgen_%s.c", o.mod_name);
  if (!rc) rc = put_text(&artifacts, name, &src);
  snprintf(name, sizeof name, "tvmgen_%s.h", o.mod_name);
  if (!rc && o.interface_c) rc = put_text(&artifacts, name, &hdr);
  snprintf(name, sizeof name, o.link_params ? "tvmgen_%s_params.bin" : "%s.params", o.mod_name);
  if (!rc) rc = put_blob(&artifacts, name, blob);
  if (!rc && o.link_params) {
    irm_aot_params_asm_(o.mod_name, o.const_align, &asm_);
    snprintf(name, sizeof name, "tvmgen_%s_params.s", o.mod_name);
    rc = put_text(&artifacts, name, &asm_);
  }
  irm_object_release(blob);
  irm_free(offsets);
  irm_text_buf_free_(&src);
  irm_text_buf_free_(&hdr);
  irm_text_buf_free_(&asm_);
  irm_plan_free_(&p);
  if (rc) {
    irm_object_release(artifacts);
    return rc;
  }
  *out = artifacts;
  return IRM_OK;
}

/* executor.codegen of aot: (mod, config) -> Map of artifacts. */
int irm_aot_codegen_packed_(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "executor.codegen of executor 'aot'";
  (void)resource;
  irm_object *mod = NULL, *cfg = NULL, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ir.IRModule", &mod);
  if (!rc) rc = irm_arg_object(fn, args, 1, IRM_COMPILATION_CONFIG_TYPE_KEY, &cfg);
  if (!rc) rc = aot_codegen(mod, cfg, &out);
  return irm_ret_object(fn, rc, &out, ret);
}
