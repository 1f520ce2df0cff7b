/* The target kinds: the options every target kind has (added by the
 * category's prepare function, so kinds registered later get them too), the
 * built-in kinds with TVM's option lists, default keys and checks, and
 * target.RegisterKind's schema registration. */
#include <string.h>

#include "irm_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/journal.h"
#include "irm/structural.h"
#include "target_internal.h"

typedef struct option_spec {
  const char *name;
  irm_option_type type;
  int has_default;
  int64_t default_value; /* an int, or a bool as 0/1 */
  const char *doc;
} option_spec;

typedef struct kind_spec {
  const char *name;
  int64_t device_type; /* DLPack's DLDeviceType */
  const char *keys[3]; /* default keys, NULL-terminated */
  const option_spec *options;
  size_t n_options;
  irm_packed_cfunc validate; /* FValidate, or NULL */
} kind_spec;

#define NO_DEFAULT 0, 0
#define DEFAULT(v) 1, (v)
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const option_spec common_options[] = {
    {"keys", IRM_OPTION_ARRAY_STR, NO_DEFAULT, "keys that select strategies (the kind's default keys are added)"},
    {"tag", IRM_OPTION_STR, NO_DEFAULT, "the tag this target was made from"},
    {"device", IRM_OPTION_STR, NO_DEFAULT, "the device, such as arm_cpu (added to the keys)"},
    {"model", IRM_OPTION_STR, NO_DEFAULT, "the device model, such as rk3399"},
    {"libs", IRM_OPTION_ARRAY_STR, NO_DEFAULT, "external libraries to offload to, such as cudnn"},
    {"host", IRM_OPTION_TARGET, NO_DEFAULT, "the host target that launches this target's code"},
    {"from_device", IRM_OPTION_INT, NO_DEFAULT, "the device id to read device attributes from"},
};

static const option_spec llvm_options[] = {
    {"mtriple", IRM_OPTION_STR, NO_DEFAULT, "the LLVM target triple, such as aarch64-linux-gnu"},
    {"mcpu", IRM_OPTION_STR, NO_DEFAULT, "the CPU to generate code for, such as cortex-a72"},
    {"mattr", IRM_OPTION_ARRAY_STR, NO_DEFAULT, "CPU features to enable or disable, such as +neon"},
    {"mabi", IRM_OPTION_STR, NO_DEFAULT, "the ABI, such as lp64"},
    {"mfloat-abi", IRM_OPTION_STR, NO_DEFAULT, "the float ABI: soft or hard"},
    {"num-cores", IRM_OPTION_INT, NO_DEFAULT, "the number of cores to run on"},
    {"opt-level", IRM_OPTION_INT, NO_DEFAULT, "LLVM's optimization level"},
    {"fast-math", IRM_OPTION_BOOL, NO_DEFAULT, "all of the fast-math flags below"},
    {"fast-math-nnan", IRM_OPTION_BOOL, NO_DEFAULT, "assume no NaN arguments or results"},
    {"fast-math-ninf", IRM_OPTION_BOOL, NO_DEFAULT, "assume no infinite arguments or results"},
    {"fast-math-nsz", IRM_OPTION_BOOL, NO_DEFAULT, "treat the sign of zero as insignificant"},
    {"fast-math-arcp", IRM_OPTION_BOOL, NO_DEFAULT, "allow reciprocals instead of divisions"},
    {"fast-math-contract", IRM_OPTION_BOOL, NO_DEFAULT, "allow floating-point contraction (fused multiply-add)"},
    {"fast-math-reassoc", IRM_OPTION_BOOL, NO_DEFAULT, "allow reassociation of floating-point operations"},
    {"cl-opt", IRM_OPTION_ARRAY_STR, NO_DEFAULT, "LLVM command-line options, -name[:type]=value"},
};

static const option_spec c_options[] = {
    {"mtriple", IRM_OPTION_STR, NO_DEFAULT,
     "the target triple, such as aarch64-linux-gnu (cross-compiled with <triple>-gcc)"},
    {"mcpu", IRM_OPTION_STR, NO_DEFAULT, "the CPU the C code is for"},
    {"march", IRM_OPTION_STR, NO_DEFAULT, "the architecture the C code is for"},
    {"mattr", IRM_OPTION_ARRAY_STR, NO_DEFAULT, "CPU features to enable or disable, such as +avx512f (cc -m<feature>)"},
};

static const option_spec cuda_options[] = {
    {"mcpu", IRM_OPTION_STR, NO_DEFAULT, "the GPU, for code generated through LLVM"},
    {"arch", IRM_OPTION_STR, NO_DEFAULT, "the CUDA architecture, sm_XX"},
    {"max_shared_memory_per_block", IRM_OPTION_INT, NO_DEFAULT, "shared memory per block, in bytes"},
    {"max_threads_per_block", IRM_OPTION_INT, NO_DEFAULT, "threads per block"},
    {"thread_warp_size", IRM_OPTION_INT, DEFAULT(32), "threads per warp"},
    {"registers_per_block", IRM_OPTION_INT, NO_DEFAULT, "32-bit registers per block"},
    {"l2_cache_size_bytes", IRM_OPTION_INT, NO_DEFAULT, "the L2 cache size, in bytes"},
    {"max_num_threads", IRM_OPTION_INT, DEFAULT(1024), "threads per block (older name)"},
};

static const option_spec nvptx_options[] = {
    {"mcpu", IRM_OPTION_STR, NO_DEFAULT, "the CUDA architecture, sm_XX"},
    {"mtriple", IRM_OPTION_STR, NO_DEFAULT, "the LLVM target triple, nvptx64-nvidia-cuda"},
    {"max_num_threads", IRM_OPTION_INT, DEFAULT(1024), "threads per block"},
    {"thread_warp_size", IRM_OPTION_INT, DEFAULT(32), "threads per warp"},
};

static const option_spec rocm_options[] = {
    {"mcpu", IRM_OPTION_STR, NO_DEFAULT, "the GPU, gfxNNN"},
    {"mtriple", IRM_OPTION_STR, NO_DEFAULT, "the LLVM target triple, such as amdgcn-amd-amdhsa-hcc"},
    {"mattr", IRM_OPTION_ARRAY_STR, NO_DEFAULT, "GPU features to enable or disable"},
    {"max_num_threads", IRM_OPTION_INT, DEFAULT(256), "threads per block (older name)"},
    {"max_threads_per_block", IRM_OPTION_INT, DEFAULT(256), "threads per block"},
    {"max_shared_memory_per_block", IRM_OPTION_INT, DEFAULT(65536), "shared memory per block, in bytes"},
    {"thread_warp_size", IRM_OPTION_INT, DEFAULT(64), "threads per wavefront"},
};

static const option_spec opencl_options[] = {
    {"max_threads_per_block", IRM_OPTION_INT, DEFAULT(256), "work items per work group"},
    {"max_shared_memory_per_block", IRM_OPTION_INT, DEFAULT(16384), "local memory per work group, in bytes"},
    {"max_num_threads", IRM_OPTION_INT, DEFAULT(256), "work items per work group (older name)"},
    {"thread_warp_size", IRM_OPTION_INT, DEFAULT(1), "work items per sub-group"},
    {"texture_spatial_limit", IRM_OPTION_INT, DEFAULT(16384), "the largest image width or height"},
    {"max_function_args", IRM_OPTION_INT, DEFAULT(128), "the most kernel arguments"},
};

static const option_spec vulkan_options[] = {
    {"mattr", IRM_OPTION_ARRAY_STR, NO_DEFAULT, "features to enable or disable"},
    {"supports_float16", IRM_OPTION_BOOL, NO_DEFAULT, "16-bit floats"},
    {"supports_float32", IRM_OPTION_BOOL, DEFAULT(1), "32-bit floats"},
    {"supports_float64", IRM_OPTION_BOOL, NO_DEFAULT, "64-bit floats"},
    {"supports_int8", IRM_OPTION_BOOL, NO_DEFAULT, "8-bit integers"},
    {"supports_int16", IRM_OPTION_BOOL, NO_DEFAULT, "16-bit integers"},
    {"supports_int32", IRM_OPTION_BOOL, DEFAULT(1), "32-bit integers"},
    {"supports_int64", IRM_OPTION_BOOL, NO_DEFAULT, "64-bit integers"},
    {"supports_8bit_buffer", IRM_OPTION_BOOL, NO_DEFAULT, "8-bit storage buffers"},
    {"supports_16bit_buffer", IRM_OPTION_BOOL, NO_DEFAULT, "16-bit storage buffers"},
    {"supports_storage_buffer_storage_class", IRM_OPTION_BOOL, NO_DEFAULT, "the StorageBuffer storage class"},
    {"supports_push_descriptor", IRM_OPTION_BOOL, NO_DEFAULT, "VK_KHR_push_descriptor"},
    {"supports_dedicated_allocation", IRM_OPTION_BOOL, NO_DEFAULT, "VK_KHR_dedicated_allocation"},
    {"supports_integer_dot_product", IRM_OPTION_BOOL, NO_DEFAULT, "VK_KHR_shader_integer_dot_product"},
    {"supported_subgroup_operations", IRM_OPTION_INT, NO_DEFAULT, "VkSubgroupFeatureFlagBits"},
    {"max_num_threads", IRM_OPTION_INT, DEFAULT(256), "invocations per workgroup (older name)"},
    {"max_threads_per_block", IRM_OPTION_INT, DEFAULT(256), "invocations per workgroup"},
    {"thread_warp_size", IRM_OPTION_INT, DEFAULT(1), "invocations per subgroup"},
    {"max_block_size_x", IRM_OPTION_INT, NO_DEFAULT, "the largest workgroup in x"},
    {"max_block_size_y", IRM_OPTION_INT, NO_DEFAULT, "the largest workgroup in y"},
    {"max_block_size_z", IRM_OPTION_INT, NO_DEFAULT, "the largest workgroup in z"},
    {"max_push_constants_size", IRM_OPTION_INT, NO_DEFAULT, "push constant bytes"},
    {"max_uniform_buffer_range", IRM_OPTION_INT, NO_DEFAULT, "uniform buffer bytes"},
    {"max_storage_buffer_range", IRM_OPTION_INT, NO_DEFAULT, "storage buffer bytes"},
    {"max_per_stage_descriptor_storage_buffer", IRM_OPTION_INT, NO_DEFAULT, "storage buffers per stage"},
    {"max_shared_memory_per_block", IRM_OPTION_INT, NO_DEFAULT, "shared memory per workgroup, in bytes"},
    {"device_type", IRM_OPTION_STR, NO_DEFAULT, "the Vulkan device type"},
    {"device_name", IRM_OPTION_STR, NO_DEFAULT, "the device name"},
    {"driver_name", IRM_OPTION_STR, NO_DEFAULT, "the driver name"},
    {"driver_version", IRM_OPTION_INT, NO_DEFAULT, "the driver version"},
    {"vulkan_api_version", IRM_OPTION_INT, NO_DEFAULT, "the Vulkan API version"},
    {"max_spirv_version", IRM_OPTION_INT, NO_DEFAULT, "the newest SPIR-V version"},
};

static const option_spec metal_options[] = {
    {"max_num_threads", IRM_OPTION_INT, DEFAULT(256), "threads per threadgroup (older name)"},
    {"max_threads_per_block", IRM_OPTION_INT, DEFAULT(256), "threads per threadgroup"},
    {"max_shared_memory_per_block", IRM_OPTION_INT, DEFAULT(32768), "threadgroup memory, in bytes"},
    {"thread_warp_size", IRM_OPTION_INT, DEFAULT(16), "threads per SIMD group"},
    {"max_function_args", IRM_OPTION_INT, DEFAULT(31), "the most kernel arguments"},
};

static const option_spec webgpu_options[] = {
    {"max_num_threads", IRM_OPTION_INT, DEFAULT(256), "invocations per workgroup"},
};

static const option_spec hexagon_options[] = {
    {"mattr", IRM_OPTION_ARRAY_STR, NO_DEFAULT, "features to enable or disable, such as +hvx-length128b"},
    {"mcpu", IRM_OPTION_STR, NO_DEFAULT, "the Hexagon version, such as hexagonv68"},
    {"mtriple", IRM_OPTION_STR, NO_DEFAULT, "the LLVM target triple"},
    {"llvm-options", IRM_OPTION_ARRAY_STR, NO_DEFAULT, "LLVM command-line options"},
    {"num-cores", IRM_OPTION_INT, NO_DEFAULT, "the number of cores to run on"},
    {"vtcm-capacity", IRM_OPTION_INT, NO_DEFAULT, "VTCM bytes"},
};

/* TVM's composite target: code for several devices at once. */
static const option_spec composite_options[] = {
    {"devices", IRM_OPTION_ARRAY_TARGET, NO_DEFAULT, "the targets this target is made of"},
};

static int cuda_validate(const irm_any *args, int32_t nargs, irm_any *ret, void *resource);
static int rocm_validate(const irm_any *args, int32_t nargs, irm_any *ret, void *resource);

static const kind_spec builtin_kinds[] = {
    {"llvm", 1, {"cpu"}, llvm_options, COUNT(llvm_options), NULL},
    {"c", 1, {"cpu"}, c_options, COUNT(c_options), NULL},
    {"cuda", 2, {"cuda", "gpu"}, cuda_options, COUNT(cuda_options), cuda_validate},
    {"nvptx", 2, {"cuda", "gpu"}, nvptx_options, COUNT(nvptx_options), NULL},
    {"rocm", 10, {"rocm", "gpu"}, rocm_options, COUNT(rocm_options), rocm_validate},
    {"opencl", 4, {"opencl", "gpu"}, opencl_options, COUNT(opencl_options), NULL},
    {"vulkan", 7, {"vulkan", "gpu"}, vulkan_options, COUNT(vulkan_options), NULL},
    {"metal", 8, {"metal", "gpu"}, metal_options, COUNT(metal_options), NULL},
    {"webgpu", 15, {"webgpu", "gpu"}, webgpu_options, COUNT(webgpu_options), NULL},
    {"hexagon", 16, {"hexagon", "cpu"}, hexagon_options, COUNT(hexagon_options), NULL},
    {"ext_dev", 12, {NULL}, NULL, 0, NULL},
    {"composite", 1, {NULL}, composite_options, COUNT(composite_options), NULL},
};

/* ---- idempotent registration ------------------------------------------------- */

/* Adds the option unless the kind has it (from an earlier, partial run). */
static int ensure_option(irm_kind *kind, const option_spec *o) {
  if (irm_kind_option(kind, o->name, NULL, NULL) == IRM_OK) return IRM_OK;
  irm_clear_error();
  irm_any def = o->type == IRM_OPTION_BOOL ? irm_any_bool(o->default_value != 0) : irm_any_int(o->default_value);
  return irm_kind_add_option(kind, o->name, o->type, o->has_default ? &def : NULL, o->doc, 0);
}

/* Sets the attribute unless the kind has a value for it. */
static int ensure_attr(irm_kind *kind, const char *attr, const irm_any *value) {
  irm_any now = irm_any_none();
  int rc = irm_kind_get_attr(kind, attr, &now);
  int present = rc == IRM_OK && now.type_code != IRM_NONE;
  irm_any_release(&now);
  if (present) return IRM_OK;
  irm_clear_error();
  return irm_kind_set_attr(kind, attr, value, 10);
}

/* The category's prepare function: every target kind gets these. */
static int add_common_options(irm_kind *kind) {
  int rc = IRM_OK;
  for (size_t i = 0; rc == IRM_OK && i < COUNT(common_options); i++) rc = ensure_option(kind, &common_options[i]);
  return rc;
}

static int default_keys_value(const kind_spec *spec, irm_any *out) {
  irm_any items[3];
  size_t n = 0;
  while (n < 3 && spec->keys[n]) {
    items[n] = irm_any_str(spec->keys[n]);
    n++;
  }
  irm_object *arr = NULL;
  int rc = irm_array_new(items, n, &arr);
  *out = irm_any_object(arr);
  return rc;
}

static int register_kind(const kind_spec *spec) {
  irm_kind *kind = NULL;
  int rc = irm_kind_register("target", spec->name, &kind);
  for (size_t i = 0; rc == IRM_OK && i < spec->n_options; i++) rc = ensure_option(kind, &spec->options[i]);
  irm_any keys = irm_any_none(), device = irm_any_int(spec->device_type);
  if (!rc) rc = default_keys_value(spec, &keys);
  if (!rc) rc = ensure_attr(kind, "default_keys", &keys);
  if (!rc) rc = ensure_attr(kind, "device_type", &device);
  irm_any_release(&keys);
  if (!rc && spec->validate) {
    irm_object *f = NULL;
    rc = irm_func_new_packed(spec->validate, NULL, NULL, &f);
    irm_any check = irm_any_object(f);
    if (!rc) rc = ensure_attr(kind, "FValidate", &check);
    irm_object_release(f);
  }
  return rc ? irm_error_context(rc, "registering target kind '%s'", irm_error_quote(spec->name)) : IRM_OK;
}

int irm_target_register_kinds_(void) {
  int rc = irm_kind_category_set_prepare("target", add_common_options);
  for (size_t i = 0; rc == IRM_OK && i < COUNT(builtin_kinds); i++) rc = register_kind(&builtin_kinds[i]);
  return rc;
}

/* ---- per-kind checks (FValidate) ---------------------------------------------- */

/* The string option of the attrs Map (args[1]), or NULL when unset. */
static const char *string_option(const char *fn, const irm_any *args, int32_t nargs, const char *option, int *rc) {
  irm_object *attrs = NULL;
  *rc = irm_arg_count(fn, nargs, 2, 2);
  if (!*rc) *rc = irm_arg_object(fn, args, 1, "ffi.Map", &attrs);
  if (*rc) return NULL;
  const irm_any *v = irm_map_find_cstr(attrs, option);
  return v && v->type_code == IRM_OBJECT ? irm_string_data(v->v_obj) : NULL;
}

static int cuda_validate(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)ret;
  (void)resource;
  int rc;
  const char *arch = string_option("target 'cuda' check", args, nargs, "arch", &rc);
  if (!rc && arch && strncmp(arch, "sm_", 3) != 0)
    rc = irm_error(IRM_EVALUE, "option 'arch' of target 'cuda' must start with 'sm_' (as in 'sm_80'), got '%s'",
                   irm_error_quote(arch));
  return rc;
}

static int rocm_validate(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)ret;
  (void)resource;
  int rc;
  const char *mcpu = string_option("target 'rocm' check", args, nargs, "mcpu", &rc);
  if (!rc && mcpu && strncmp(mcpu, "gfx", 3) != 0)
    rc = irm_error(IRM_EVALUE, "option 'mcpu' of target 'rocm' must start with 'gfx' (as in 'gfx908'), got '%s'",
                   irm_error_quote(mcpu));
  return rc;
}

/* ---- target.RegisterKind -------------------------------------------------------- */

typedef struct schema_entry {
  const char *name;
  irm_option_type type;
  const irm_any *default_value; /* borrowed from the options Map; NULL: none */
  const char *doc;
} schema_entry;

static int is_common_option(const char *name) {
  for (size_t i = 0; i < COUNT(common_options); i++)
    if (strcmp(common_options[i].name, name) == 0) return 1;
  return 0;
}

/* Reads one entry: a type name, or a Map {type, default, doc}. */
static int read_entry(const char *kind, const char *name, const irm_any *v, schema_entry *e) {
  memset(e, 0, sizeof *e);
  e->name = name;
  if (is_common_option(name))
    return irm_error(IRM_EVALUE, "option '%s' of target kind '%s': every target kind has it already",
                     irm_error_quote(name), irm_error_quote(kind));
  const char *type = NULL;
  if (irm_any_to_str(v, &type, NULL) == IRM_OK) return irm_option_type_parse(type, &e->type);
  if (v->type_code != IRM_OBJECT || !irm_object_is(v->v_obj, "ffi.Map"))
    return irm_error(IRM_ETYPE,
                     "option '%s' of target kind '%s': expected a type name or a Map {type, default, "
                     "doc}, got %s",
                     irm_error_quote(name), irm_error_quote(kind), irm_any_describe_(v));
  static const char *const fields[] = {"type", "default", "doc"};
  irm_map_iter it = irm_map_iter_begin(v->v_obj);
  const irm_object *key;
  const irm_any *field;
  while (irm_map_iter_next(&it, &key, &field)) {
    const char *k = irm_string_data(key);
    if (strcmp(k, "type") && strcmp(k, "default") && strcmp(k, "doc")) {
      const char *best = irm_closest_name(k, fields, 3);
      return irm_error(IRM_EVALUE,
                       "option '%s' of target kind '%s': unknown field '%s'%s%s%s (fields: type, "
                       "default, doc)",
                       irm_error_quote(name), irm_error_quote(kind), irm_error_quote(k), best ? " (did you mean '" : "",
                       best ? best : "", best ? "'?)" : "");
    }
  }
  const irm_any *tv = irm_map_find_cstr(v->v_obj, "type");
  const irm_any *doc = irm_map_find_cstr(v->v_obj, "doc");
  if (!tv || irm_any_to_str(tv, &type, NULL))
    return irm_error(IRM_EVALUE, "option '%s' of target kind '%s': the Map needs 'type', a type name",
                     irm_error_quote(name), irm_error_quote(kind));
  if (doc && doc->type_code != IRM_NONE && irm_any_to_str(doc, &e->doc, NULL))
    return irm_error(IRM_ETYPE, "option '%s' of target kind '%s': 'doc' must be str, got %s", irm_error_quote(name),
                     irm_error_quote(kind), irm_any_describe_(doc));
  e->default_value = irm_map_find_cstr(v->v_obj, "default");
  if (e->default_value && e->default_value->type_code == IRM_NONE) e->default_value = NULL;
  return irm_option_type_parse(type, &e->type);
}

/* 0 when the kind's own options are exactly the entries (types and
 * defaults); else a KeyError saying what differs. */
static int compare_schema(const irm_kind *kind, const schema_entry *entries, size_t n) {
  irm_object *described = NULL;
  int rc = irm_kind_describe_options(kind, &described);
  size_t own = 0;
  irm_map_iter it = irm_map_iter_begin(described);
  const irm_object *key;
  const irm_any *info;
  while (!rc && irm_map_iter_next(&it, &key, &info)) {
    const char *name = irm_string_data(key);
    if (is_common_option(name)) continue;
    own++;
    size_t i = 0;
    while (i < n && strcmp(entries[i].name, name)) i++;
    const char *type = irm_string_data(irm_map_find_cstr(info->v_obj, "type")->v_obj);
    irm_any none = irm_any_none();
    const irm_any *def = irm_map_find_cstr(info->v_obj, "default");
    int same = 0;
    if (i == n)
      rc = irm_error(IRM_EKEY,
                     "target kind '%s' is registered with another definition: it has option '%s', "
                     "which the new one lacks",
                     irm_kind_name(kind), irm_error_quote(name));
    else if (strcmp(type, irm_option_type_name(entries[i].type)))
      rc = irm_error(IRM_EKEY,
                     "target kind '%s' is registered with another definition: option '%s' is %s, "
                     "not %s",
                     irm_kind_name(kind), irm_error_quote(name), type, irm_option_type_name(entries[i].type));
    else if (!(rc = irm_structural_equal(def, entries[i].default_value ? entries[i].default_value : &none, &same)) &&
             !same)
      rc = irm_error(IRM_EKEY,
                     "target kind '%s' is registered with another definition: option '%s' has "
                     "another default",
                     irm_kind_name(kind), irm_error_quote(name));
  }
  if (!rc && own != n)
    rc = irm_error(IRM_EKEY,
                   "target kind '%s' is registered with another definition: it lacks some of the new "
                   "options",
                   irm_kind_name(kind));
  irm_object_release(described);
  return rc;
}

static int add_entries(const char *name, const schema_entry *entries, size_t n) {
  irm_kind *kind = NULL;
  int rc = irm_kind_register("target", name, &kind);
  for (size_t i = 0; rc == IRM_OK && i < n; i++)
    rc = irm_kind_add_option(kind, entries[i].name, entries[i].type, entries[i].default_value, entries[i].doc, 0);
  return rc;
}

/* Registers the kind with the entries, or checks that the registered kind
 * has exactly them. */
static int register_or_compare(const char *name, const schema_entry *entries, size_t n) {
  irm_kind *existing = NULL;
  int rc = irm_kind_find("target", name, &existing);
  if (rc == IRM_OK) return compare_schema(existing, entries, n);
  if (rc != IRM_EVALUE) return rc; /* out of memory while reporting */
  irm_journal *j = NULL;           /* all or nothing: a failed option takes the kind with it */
  rc = irm_journal_open(&j);
  if (!rc) rc = add_entries(name, entries, n);
  if (!rc) rc = irm_journal_commit(j);
  if (j && rc) (void)irm_journal_rollback(j); /* a failed commit leaves j open */
  return rc;
}

int irm_target_kind_register_schema_(const char *name, const irm_object *options) {
  if (!name || !name[0]) return irm_error(IRM_EVALUE, "a target kind name must be a non-empty string");
  if (options && !irm_object_is(options, "ffi.Map"))
    return irm_error(IRM_ETYPE, "the options of target kind '%s': expected ffi.Map, got %s", irm_error_quote(name),
                     irm_object_type_key(options));
  size_t n = irm_map_size(options), i = 0;
  schema_entry *entries = irm_calloc(n ? n : 1, sizeof *entries);
  if (!entries) return irm_error_nomem_("registering a target kind");
  int rc = IRM_OK;
  irm_map_iter it = irm_map_iter_begin(options);
  const irm_object *key;
  const irm_any *value;
  while (!rc && irm_map_iter_next(&it, &key, &value)) rc = read_entry(name, irm_string_data(key), value, &entries[i++]);
  if (!rc) rc = register_or_compare(name, entries, n);
  irm_free(entries);
  return rc;
}
