/* Compiler answers remembered across processes (docs/build.md#the-cpu):
 * the compiler's --version, the CPU name -mcpu=native resolves to and the
 * macros cc defines under a target's flags, stored as small entries of
 * the build cache (so trimmed, cleared and checked like the others). A
 * fresh process's warm build then runs no compiler: each run costs
 * 10-35 ms, more than the rest of a reused build.
 *
 * The caller gives the key's text; what depends on the machine's CPU
 * (anything asking for native) adds irm_cc_cpu_identity_, read from
 * /proc/cpuinfo without running anything. IRM_CACHE=0 remembers nothing;
 * a cache that cannot be read or written is no error (the compiler runs,
 * as without a memo). */
#include <stdio.h>
#include <string.h>

#include "export_internal.h"
#include "irm/alloc.h"
#include "irm/error.h"

#define MEMO_ "irm-cc-memo 1\n"

/* The lines of /proc/cpuinfo that name the CPU and its features: x86's
 * vendor, family, model and flags, Arm's implementer, part and Features
 * (not the clock or per-core ids, which move). */
static const char *const cpu_fields_[] = {
    "vendor_id",       "cpu family", "model",       "model name",       "stepping", "flags",
    "CPU implementer", "CPU part",   "CPU variant", "CPU architecture", "Features", "isa",
};

static int cpu_field(const char *line) {
  for (size_t i = 0; i < sizeof cpu_fields_ / sizeof cpu_fields_[0]; i++) {
    size_t n = strlen(cpu_fields_[i]);
    if (strncmp(line, cpu_fields_[i], n) == 0 && (line[n] == ' ' || line[n] == '\t' || line[n] == ':')) return 1;
  }
  return 0;
}

int irm_cc_cpu_identity_(irm_text_buf *out) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return 0;
  char line[8192];
  int found = 0, long_line = 0;
  while (fgets(line, sizeof line, f)) {
    size_t n = strlen(line);
    int whole = n && line[n - 1] == '\n';
    if (!long_line && line[0] == '\n') {
      if (found) break; /* the first processor's block is enough */
      continue;
    }
    if (long_line || cpu_field(line)) {
      irm_text_buf_puts_(out, line); /* a flags line longer than the buffer comes in pieces */
      found |= !long_line;
    }
    long_line = !whole && (long_line || cpu_field(line));
  }
  fclose(f);
  return found && !out->failed;
}

/* The cache the memo uses, or NULL: off by IRM_CACHE=0, or not opened. */
static irm_build_cache *open_cache(void) {
  irm_build_cache *cache = NULL;
  if (!irm_build_cache_enabled_by_env()) return NULL;
  if (irm_build_cache_open_quiet_(NULL, &cache) != IRM_OK) {
    irm_clear_error(); /* no cache: the compiler runs */
    return NULL;
  }
  return cache;
}

static void memo_key(const char *what, const char *key, char out[65]) {
  const void *parts[3] = {MEMO_, what, key};
  const size_t sizes[3] = {sizeof MEMO_ - 1, strlen(what), strlen(key)};
  irm_build_cache_key(parts, sizes, 3, out);
}

int irm_cc_memo_get_(const char *what, const char *key, irm_text_buf *value) {
  irm_build_cache *cache = open_cache();
  if (!cache) return 0;
  char k[65], *data = NULL;
  size_t n = 0;
  irm_build_cache_status status;
  memo_key(what, key, k);
  int found = irm_build_cache_get_(cache, k, &data, &n, &status) == IRM_OK && status == IRM_BUILD_CACHE_HIT &&
              n >= sizeof MEMO_ - 1 && memcmp(data, MEMO_, sizeof MEMO_ - 1) == 0 &&
              strlen(data) == n; /* no NUL inside: the answer is text */
  if (found) {
    irm_text_buf_puts_(value, data + sizeof MEMO_ - 1);
    found = !value->failed;
  }
  irm_clear_error(); /* a memo that cannot be read is no memo */
  irm_free(data);
  irm_build_cache_close(cache);
  return found;
}

void irm_cc_memo_put_(const char *what, const char *key, const char *value) {
  irm_build_cache *cache = open_cache();
  if (!cache || !irm_build_cache_writable(cache)) {
    irm_build_cache_close(cache);
    return;
  }
  char k[65];
  memo_key(what, key, k);
  irm_text_buf payload;
  irm_text_buf_init_(&payload, NULL, 0);
  irm_text_buf_printf_(&payload, MEMO_ "%s", value);
  if (!payload.failed && irm_build_cache_put_(cache, k, irm_text_buf_cstr_(&payload), payload.len) != IRM_OK)
    irm_clear_error(); /* only the memo is lost */
  irm_text_buf_free_(&payload);
  irm_build_cache_close(cache);
}
