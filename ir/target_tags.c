/* Target tags: named targets ("nvidia/jetson-nano"). A sorted table behind a
 * reader-writer lock; every registration is journaled, so a rollback removes
 * a tag (or brings back the one it overrode). The built-in tags are written
 * as target text and stored as the Map config that text gives; they are
 * registered on the first use of the tag table (its own lazy start), since
 * parsing them is most of the work of starting irm. */
#include <ctype.h>
#include <pthread.h>
#include <string.h>

#include "irm_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/journal.h"
#include "irm/structural.h"
#include "target_internal.h"

typedef struct tag_entry {
  char *name;
  irm_object *config; /* Map, with "tag" */
  irm_object *target; /* the Target config makes */
} tag_entry;

static pthread_rwlock_t tags_lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static tag_entry *tags;
static size_t n_tags, cap_tags;

/* What a rollback needs: the name, the Target it added (to know the entry is
 * still its own) and the entry it replaced, if any. */
typedef struct tag_undo {
  irm_object *added;
  tag_entry previous; /* name NULL: there was none */
  char name[];
} tag_undo;

/* The index of name, or where it would go (*found 0). Lock held. */
static size_t find_locked(const char *name, int *found) {
  size_t lo = 0, hi = n_tags;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(tags[mid].name, name);
    if (c == 0) {
      *found = 1;
      return mid;
    }
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  *found = 0;
  return lo;
}

static void entry_release(tag_entry *e) {
  irm_free(e->name);
  irm_object_release(e->config);
  irm_object_release(e->target);
}

static irm_lazy tags_lazy = IRM_LAZY_INIT;

static int register_builtin_tags(void);

/* Registers the built-in tags unless that has succeeded before (a call from
 * inside that registration returns at once). */
static int tags_ready(void) { return irm_lazy_run(&tags_lazy, register_builtin_tags); }

int irm_target_tag_lookup_(const char *name, irm_object **config, irm_object **target) {
  if (config) *config = NULL;
  if (target) *target = NULL;
  int found, rc = tags_ready();
  if (rc) return rc;
  pthread_rwlock_rdlock(&tags_lock);
  size_t i = find_locked(name, &found);
  if (found && config) {
    *config = tags[i].config;
    irm_object_retain(*config);
  }
  if (found && target) {
    *target = tags[i].target;
    irm_object_retain(*target);
  }
  pthread_rwlock_unlock(&tags_lock);
  return IRM_OK;
}

/* ---- undo ------------------------------------------------------------------------ */

static void tag_undo_run(void *data) {
  tag_undo *u = data;
  tag_entry gone = {0};
  int found;
  pthread_rwlock_wrlock(&tags_lock);
  size_t i = find_locked(u->name, &found);
  if (found && tags[i].target == u->added) {
    gone = tags[i];
    if (u->previous.name) {
      tags[i] = u->previous;
      memset(&u->previous, 0, sizeof u->previous);
    } else {
      memmove(&tags[i], &tags[i + 1], (n_tags - i - 1) * sizeof *tags);
      n_tags--;
    }
  }
  pthread_rwlock_unlock(&tags_lock);
  entry_release(&gone); /* outside the lock: a finalizer may be user code */
}

static void tag_undo_dispose(void *data) {
  tag_undo *u = data;
  entry_release(&u->previous);
  irm_free(u);
}

/* ---- registration ---------------------------------------------------------------- */

static int check_tag_name(const char *name) {
  if (!name || !name[0]) return irm_error(IRM_EVALUE, "a target tag name must be a non-empty string");
  if (name[0] == '-') return irm_error(IRM_EVALUE, "target tag name '%s' must not start with '-'", irm_error_quote(name));
  for (const char *p = name; *p; p++)
    if (isspace((unsigned char)*p) || *p == '\'' || *p == '\\')
      return irm_error(IRM_EVALUE, "target tag name '%s' must not hold spaces, quotes or backslashes", irm_error_quote(name));
  irm_kind *kind = NULL;
  int rc = irm_kind_find("target", name, &kind);
  if (rc == IRM_OK) return irm_error(IRM_EVALUE, "target tag name '%s' is the name of a target kind", irm_error_quote(name));
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

/* The tag is registered with a config that gives an equal Target:
 * registering it again changes nothing. KeyError when it gives another. */
static int same_as_registered(const char *name, const irm_object *target, int *same) {
  irm_object *before = NULL;
  *same = 0;
  int rc = irm_target_tag_lookup_(name, NULL, &before);
  if (rc || !before) return rc;
  irm_any a = irm_any_object(before), b = irm_any_object((irm_object *)target);
  rc = irm_structural_equal(&a, &b, same);
  irm_object_release(before);
  if (!rc && !*same)
    rc = irm_error(IRM_EKEY, "target tag '%s' is already registered with another config (override it, or choose "
                   "another name)", irm_error_quote(name));
  return rc;
}

/* Puts the entry in the table (taking its references); with override an
 * existing entry is replaced. IRM_EKEY when one appeared meanwhile. */
static int insert(tag_entry *e, int override, tag_undo *undo) {
  int found, rc = IRM_OK;
  tag_entry replaced = {0};
  pthread_rwlock_wrlock(&tags_lock);
  size_t i = find_locked(e->name, &found);
  if (found && !override) {
    rc = IRM_EKEY;
  } else if (found) {
    replaced = tags[i];
    tags[i] = *e;
  } else if (n_tags == cap_tags) {
    size_t cap = cap_tags ? cap_tags * 2 : 64;
    tag_entry *grown = irm_realloc(tags, cap * sizeof *grown);
    if (grown) {
      tags = grown;
      cap_tags = cap;
    } else {
      rc = IRM_ENOMEM;
    }
  }
  if (!rc && !found) {
    memmove(&tags[i + 1], &tags[i], (n_tags - i) * sizeof *tags);
    tags[i] = *e;
    n_tags++;
  }
  pthread_rwlock_unlock(&tags_lock);
  if (rc) return rc;
  if (undo) {
    undo->added = e->target;
    undo->previous = replaced;
    (void)irm_journal_record(tag_undo_run, tag_undo_dispose, undo); /* room reserved */
  } else {
    entry_release(&replaced);
  }
  return IRM_OK;
}

/* Registers a tag whose Target is already made (references taken). */
static int register_made(const char *name, irm_object *config, irm_object *target, int override) {
  size_t len = strlen(name);
  tag_entry e = {irm_strdup(name), config, target};
  tag_undo *undo = irm_journal_active() ? irm_calloc(1, sizeof *undo + len + 1) : NULL;
  int rc = !e.name || (irm_journal_active() && (!undo || irm_journal_reserve_(1)))
               ? irm_error_nomem_("registering a target tag") : IRM_OK;
  if (undo) memcpy(undo->name, name, len + 1);
  if (!rc) rc = insert(&e, override, undo);
  if (rc == IRM_EKEY) rc = irm_error(IRM_EKEY, "target tag '%s' was registered by another thread meanwhile", irm_error_quote(name));
  else if (rc == IRM_ENOMEM) rc = irm_error_nomem_("registering a target tag");
  if (rc) {
    entry_release(&e);
    irm_free(undo);
  }
  return rc;
}

int irm_target_tag_register(const char *name, const irm_object *config, int override) {
  int rc = irm_builtins_ready();
  if (!rc) rc = tags_ready();
  if (!rc) rc = check_tag_name(name);
  irm_object *full = NULL, *target = NULL;
  int same = 0;
  if (!rc) rc = tagged_config(name, config, &full);
  if (!rc) rc = irm_target_build_(full, 0, NULL, &target);
  if (!rc && !override) rc = same_as_registered(name, target, &same);
  if (!rc && same) {
    irm_object_release(full);
    irm_object_release(target);
    return IRM_OK;
  }
  if (!rc) return register_made(name, full, target, override);
  irm_object_release(full);
  irm_object_release(target);
  return name ? irm_error_context(rc, "registering target tag '%s'", irm_error_quote(name)) : rc;
}

int irm_target_tag_find(const char *name, irm_target **out) {
  if (!name || !out) return irm_error(IRM_EVALUE, "irm_target_tag_find: name and out must not be NULL");
  *out = NULL;
  int rc = irm_builtins_ready();
  return rc ? rc : irm_target_tag_lookup_(name, NULL, out);
}

int irm_target_tag_config(const char *name, irm_object **out) {
  if (!name || !out) return irm_error(IRM_EVALUE, "irm_target_tag_config: name and out must not be NULL");
  *out = NULL;
  int rc = irm_builtins_ready();
  return rc ? rc : irm_target_tag_lookup_(name, out, NULL);
}

int irm_target_tag_list(irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_target_tag_list: out must not be NULL");
  *out = NULL;
  int rc = irm_builtins_ready();
  if (!rc) rc = tags_ready();
  if (rc) return rc;
  pthread_rwlock_rdlock(&tags_lock);
  irm_any *items = irm_malloc((n_tags ? n_tags : 1) * sizeof *items);
  for (size_t i = 0; items && i < n_tags; i++) items[i] = irm_any_str(tags[i].name);
  rc = items ? irm_array_new(items, n_tags, out) : irm_error_nomem_("listing target tags");
  pthread_rwlock_unlock(&tags_lock);
  irm_free(items);
  return rc;
}

/* ---- built-in tags ----------------------------------------------------------------- */

#define CUDA_TAG(name, arch, regs)                                                                     \
  {name, "cuda -keys=cuda,gpu -arch=" arch " -max_shared_memory_per_block=49152 "                     \
         "-max_threads_per_block=1024 -thread_warp_size=32 -registers_per_block=" regs}
#define C5_TAG(name, cores, cpu) {name, "llvm -keys=x86,cpu -mcpu=" cpu " -num-cores=" cores}
#define METAL_TAG(name, threads)                                                                       \
  {name, "metal -max_threads_per_block=" threads " -max_shared_memory_per_block=32768 "               \
         "-thread_warp_size=32 --host='llvm -mtriple=arm64-apple-macos -mcpu=apple-latest'"}

static const struct {
  const char *name;
  const char *text;
} builtin_tags[] = {
    {"raspberry-pi/4b-aarch64",
     "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72 -mattr=+neon -num-cores=4 "
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
  int rc = irm_builtins_ready();
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
