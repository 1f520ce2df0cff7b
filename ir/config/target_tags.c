/* Target tags: named targets ("nvidia/jetson-nano"). A counted name table
 * (registry/internal/name_table.h) of tag name -> (config, Target); every
 * registration is journaled, so a rollback removes a tag (or brings back
 * the one it overrode). The built-in tags are written as target text and
 * stored as the Map config that text gives; they are registered on the
 * first use of the tag table (its own lazy start), since parsing them is
 * most of the work of starting irm. */
#include <ctype.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "irm_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/structural.h"
#include "target_internal.h"

/* A tag's value, shared by the table and journal records. */
typedef struct tag_value {
  atomic_int refs;
  irm_object *config; /* Map, with "tag" */
  irm_object *target; /* the Target config makes */
} tag_value;

static void tag_retain(void *p) { atomic_fetch_add(&((tag_value *)p)->refs, 1); }

static void tag_release(void *p) {
  tag_value *v = p;
  if (atomic_fetch_sub(&v->refs, 1) != 1) return;
  irm_object_release(v->config);
  irm_object_release(v->target);
  irm_free(v);
}

static const irm_name_hooks tag_hooks = {tag_retain, tag_release, NULL};
static irm_name_table tags = IRM_NAME_TABLE_INIT(&tag_hooks);

static irm_lazy tags_lazy = IRM_LAZY_INIT;

static int register_builtin_tags(void);

/* Registers the built-in tags unless that has succeeded before (a call from
 * inside that registration returns at once). */
static int tags_ready(void) { return irm_lazy_run_(&tags_lazy, register_builtin_tags); }

int irm_target_tag_lookup_(const char *name, irm_object **config, irm_object **target) {
  if (config) *config = NULL;
  if (target) *target = NULL;
  int rc = tags_ready();
  if (rc) return rc;
  tag_value *v = irm_name_table_get_(&tags, name);
  if (!v) return IRM_OK;
  if (config) {
    *config = v->config;
    irm_object_retain(*config);
  }
  if (target) {
    *target = v->target;
    irm_object_retain(*target);
  }
  tag_release(v);
  return IRM_OK;
}

/* ---- registration ---------------------------------------------------------------- */

static int check_tag_name(const char *name) {
  if (!name || !name[0]) return irm_error(IRM_EVALUE, "a target tag name must be a non-empty string");
  if (name[0] == '-')
    return irm_error(IRM_EVALUE, "target tag name '%s' must not start with '-'", irm_error_quote(name));
  for (const char *p = name; *p; p++)
    if (isspace((unsigned char)*p) || *p == '\'' || *p == '\\')
      return irm_error(IRM_EVALUE, "target tag name '%s' must not hold spaces, quotes or backslashes",
                       irm_error_quote(name));
  irm_kind *kind = NULL;
  int rc = irm_kind_find("target", name, &kind);
  if (rc == IRM_OK)
    return irm_error(IRM_EVALUE, "target tag name '%s' is the name of a target kind", irm_error_quote(name));
  if (rc != IRM_EVALUE) return rc; /* out of memory while reporting */
  irm_clear_error();
  return IRM_OK;
}

/* The config with "tag" set to name unless it gives one. *out NEW. */
static int tagged_config(const char *name, const irm_object *config, irm_object **out) {
  if (!config || !irm_object_is(config, "ffi.Map"))
    return irm_error(IRM_ETYPE, "the config of target tag '%s': expected ffi.Map, got %s", irm_error_quote(name),
                     config ? irm_object_type_key(config) : "NULL");
  const irm_any *tag = irm_map_find_cstr(config, "tag");
  if (tag && tag->type_code != IRM_NONE) {
    irm_object_retain((irm_object *)config);
    *out = (irm_object *)config;
    return IRM_OK;
  }
  irm_any value = irm_any_str(name);
  return irm_map_with_set(config, "tag", &value, out);
}

/* Registers a tag whose Target is already made (references taken). Unless
 * override, a tag registered with a config giving an equal Target stays
 * (registering it again changes nothing), and one giving another Target is
 * a KeyError. */
static int register_made(const char *name, irm_object *config, irm_object *target, int override) {
  tag_value *v = irm_malloc(sizeof *v);
  if (!v) {
    irm_object_release(config);
    irm_object_release(target);
    return irm_error_nomem_("registering a target tag");
  }
  atomic_init(&v->refs, 1);
  v->config = config;
  v->target = target;
  irm_name_existing was;
  int rc = irm_name_table_add_(&tags, name, v, override ? IRM_NAME_OVERRIDE : IRM_NAME_UNIQUE, &was, NULL);
  if (rc == IRM_ENOMEM) rc = irm_error_nomem_("registering a target tag");
  if (rc != IRM_EKEY) {
    if (was.value) tag_release(was.value);
    tag_release(v);
    return rc;
  }
  tag_value *before = was.value;
  irm_any a = irm_any_object(before->target), b = irm_any_object(target);
  int same = 0;
  rc = irm_structural_equal(&a, &b, &same);
  tag_release(before);
  tag_release(v);
  if (!rc && !same) {
    char by[256];
    rc = irm_error(IRM_EKEY,
                   "target tag '%s' is already registered%s with another config (override it, or choose "
                   "another name)",
                   irm_error_quote(name), irm_name_by_plugin_(was.plugin, by, sizeof by));
  }
  return rc;
}

int irm_target_tag_register(const char *name, const irm_object *config, int override) {
  int rc = irm_builtins_ready_();
  if (!rc) rc = tags_ready();
  if (!rc) rc = check_tag_name(name);
  irm_object *full = NULL, *target = NULL;
  if (!rc) rc = tagged_config(name, config, &full);
  if (!rc) rc = irm_target_build_(full, 0, NULL, &target);
  if (!rc) {
    rc = register_made(name, full, target, override);
    /* A clash reads as before, when it was found ahead of registering. */
    return rc && rc != IRM_ENOMEM ? irm_error_context(rc, "registering target tag '%s'", name) : rc;
  }
  irm_object_release(full);
  irm_object_release(target);
  return name ? irm_error_context(rc, "registering target tag '%s'", irm_error_quote(name)) : rc;
}

int irm_target_tag_find(const char *name, irm_target **out) {
  if (!name || !out) return irm_error(IRM_EVALUE, "irm_target_tag_find: name and out must not be NULL");
  *out = NULL;
  int rc = irm_builtins_ready_();
  return rc ? rc : irm_target_tag_lookup_(name, NULL, out);
}

int irm_target_tag_config(const char *name, irm_object **out) {
  if (!name || !out) return irm_error(IRM_EVALUE, "irm_target_tag_config: name and out must not be NULL");
  *out = NULL;
  int rc = irm_builtins_ready_();
  return rc ? rc : irm_target_tag_lookup_(name, out, NULL);
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int irm_target_tag_list(irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_target_tag_list: out must not be NULL");
  *out = NULL;
  int rc = irm_builtins_ready_();
  if (!rc) rc = tags_ready();
  if (rc) return rc;
  irm_name_snapshot snap;
  if (irm_name_table_snapshot_(&tags, &snap)) return irm_error_nomem_("listing target tags");
  qsort(snap.names, snap.n, sizeof *snap.names, compare_names);
  irm_any *items = irm_malloc((snap.n ? snap.n : 1) * sizeof *items);
  for (size_t i = 0; items && i < snap.n; i++) items[i] = irm_any_str(snap.names[i]);
  rc = items ? irm_array_new(items, snap.n, out) : irm_error_nomem_("listing target tags");
  irm_name_snapshot_free_(&tags, &snap);
  irm_free(items);
  return rc;
}

/* ---- built-in tags ----------------------------------------------------------------- */

#define CUDA_TAG(name, arch, regs)                                                      \
  {                                                                                     \
    name, "cuda -keys=cuda,gpu -arch=" arch " -max_shared_memory_per_block=49152 "      \
          "-max_threads_per_block=1024 -thread_warp_size=32 -registers_per_block=" regs \
  }
#define C5_TAG(name, cores, cpu) \
  { name, "llvm -keys=x86,cpu -mcpu=" cpu " -num-cores=" cores }
#define METAL_TAG(name, threads)                                                             \
  {                                                                                          \
    name, "metal -max_threads_per_block=" threads " -max_shared_memory_per_block=32768 "     \
          "-thread_warp_size=32 --host='llvm -mtriple=arm64-apple-macos -mcpu=apple-latest'" \
  }

static const struct {
  const char *name;
  const char *text;
} builtin_tags[] = {
    {"raspberry-pi/4b-aarch64", "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72 -mattr=+neon -num-cores=4 "
                                "--host='llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72 -mattr=+neon -num-cores=4'"},
    {"nvidia/jetson-nano",
     "cuda -arch=sm_53 -max_shared_memory_per_block=49152 -max_threads_per_block=1024 -thread_warp_size=32 "
     "-registers_per_block=32768 --host='llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a57 -num-cores=4'"},
    {"nvidia/jetson-agx-xavier",
     "cuda -arch=sm_72 -max_shared_memory_per_block=49152 -max_threads_per_block=1024 -thread_warp_size=32 "
     "-registers_per_block=65536 --host='llvm -mtriple=aarch64-linux-gnu -mcpu=carmel -num-cores=8'"},
    {"nvidia/jetson-tx2",
     "cuda -arch=sm_62 -max_shared_memory_per_block=49152 -max_threads_per_block=1024 -thread_warp_size=32 "
     "-registers_per_block=32768 --host='llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a57 -num-cores=4'"},
    CUDA_TAG("nvidia/nvidia-a100", "sm_80", "65536"),
    CUDA_TAG("nvidia/nvidia-v100", "sm_70", "65536"),
    CUDA_TAG("nvidia/nvidia-t4", "sm_75", "65536"),
    CUDA_TAG("nvidia/tesla-p100", "sm_60", "65536"),
    CUDA_TAG("nvidia/geforce-rtx-3090", "sm_86", "65536"),
    CUDA_TAG("nvidia/geforce-rtx-2080-ti", "sm_75", "65536"),
    CUDA_TAG("nvidia/geforce-gtx-1080-ti", "sm_61", "65536"),
    C5_TAG("aws/cpu/c5.large", "1", "skylake-avx512"),
    C5_TAG("aws/cpu/c5.xlarge", "2", "skylake-avx512"),
    C5_TAG("aws/cpu/c5.2xlarge", "4", "skylake-avx512"),
    C5_TAG("aws/cpu/c5.4xlarge", "8", "skylake-avx512"),
    C5_TAG("aws/cpu/c5.9xlarge", "18", "skylake-avx512"),
    C5_TAG("aws/cpu/c5.12xlarge", "24", "cascadelake"),
    C5_TAG("aws/cpu/c5.18xlarge", "36", "skylake-avx512"),
    C5_TAG("aws/cpu/c5.24xlarge", "48", "cascadelake"),
    METAL_TAG("apple/m1-gpu", "1024"),
    METAL_TAG("apple/m1-gpu-restricted", "256"),
    METAL_TAG("apple/m2-gpu", "1024"),
};

/* One parse per tag: the text with -tag added gives the Target, and its
 * Map form the config. Skips tags an earlier, partial run registered. */
static int register_builtin_tags(void) {
  int rc = irm_builtins_ready_();
  for (size_t i = 0; rc == IRM_OK && i < sizeof builtin_tags / sizeof builtin_tags[0]; i++) {
    const char *name = builtin_tags[i].name;
    irm_object *config = NULL, *target = NULL, *text = NULL;
    (void)irm_target_tag_lookup_(name, &config, NULL);
    if (config) {
      irm_object_release(config);
      continue;
    }
    rc = irm_string_format(&text, "%s -tag=%s", builtin_tags[i].text, name);
    if (!rc) rc = irm_target_parse_(irm_string_data(text), 0, NULL, &target);
    if (!rc) rc = irm_target_export(target, &config);
    irm_object_release(text);
    if (!rc) rc = register_made(name, config, target, 0);
    else {
      irm_object_release(config);
      irm_object_release(target);
    }
    if (rc) irm_error_context(rc, "built-in target tag '%s'", name);
  }
  return rc;
}
