/* The modules of a loaded library (irm_library.h): its dynamic symbol
 * table read through the dynamic linker's link map. Stands alone
 * (runtime/): no irm header. */
#define _GNU_SOURCE /* dlinfo, RTLD_DI_LINKMAP */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "irm_library.h"

typedef struct symtab {
  const ElfW(Sym) * syms;
  const char *strs;
  size_t n;
} symtab;

static int read_symtab(void *handle, symtab *t);
static size_t gnu_hash_count(const uint32_t *h);

int irm_library_modules(void *handle, char *names, size_t size, size_t *count) {
  *count = 0;
  if (size) names[0] = '\0';
  symtab t;
  if (!handle || read_symtab(handle, &t)) return IRM_LIBRARY_ENOSYMTAB;
  const size_t pre = strlen(IRM_LIBRARY_PREFIX), suf = strlen(IRM_LIBRARY_METADATA);
  size_t at = 0;
  for (size_t i = 0; i < t.n; i++) {
    const ElfW(Sym) *s = &t.syms[i];
    /* ELF32_ST_TYPE and ELF64_ST_TYPE are the same: the low four bits */
    if (s->st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s->st_info) != STT_FUNC) continue;
    const char *name = t.strs + s->st_name;
    size_t len = strlen(name);
    if (len <= pre + suf || strncmp(name, IRM_LIBRARY_PREFIX, pre) != 0 ||
        strcmp(name + len - suf, IRM_LIBRARY_METADATA) != 0)
      continue;
    int wrote = snprintf(names + at, at < size ? size - at : 0, "%s%.*s", *count ? ", " : "", (int)(len - pre - suf),
                         name + pre);
    at += wrote > 0 ? (size_t)wrote : 0;
    ++*count;
  }
  if (at >= size && size >= 4) strcpy(names + size - 4, "...");
  return *count == 1 && at >= size ? IRM_LIBRARY_ENAME : IRM_LIBRARY_OK;
}

void *irm_library_symbol(void *handle, const char *mod_name, const char *suffix) {
  char name[512];
  int n = snprintf(name, sizeof name, IRM_LIBRARY_PREFIX "%s%s", mod_name, suffix);
  return n > 0 && (size_t)n < sizeof name ? dlsym(handle, name) : NULL;
}

/* The dynamic section's addresses: relocated in place by glibc on most
 * targets, left as offsets on some (a read-only dynamic section). */
static const void *at_(const struct link_map *lm, ElfW(Addr) p) {
  return (const void *)(p < lm->l_addr ? lm->l_addr + p : p);
}

static int read_symtab(void *handle, symtab *t) {
  struct link_map *lm = NULL;
  memset(t, 0, sizeof *t);
  if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_ld) return -1;
  const uint32_t *hash = NULL, *gnu = NULL;
  for (const ElfW(Dyn) *d = lm->l_ld; d->d_tag != DT_NULL; d++) {
    if (d->d_tag == DT_SYMTAB) t->syms = at_(lm, d->d_un.d_ptr);
    else if (d->d_tag == DT_STRTAB) t->strs = at_(lm, d->d_un.d_ptr);
    else if (d->d_tag == DT_HASH) hash = at_(lm, d->d_un.d_ptr);
    else if (d->d_tag == DT_GNU_HASH) gnu = at_(lm, d->d_un.d_ptr);
  }
  if (!t->syms || !t->strs || (!hash && !gnu)) return -1;
  t->n = gnu ? gnu_hash_count(gnu) : hash[1]; /* DT_HASH: nchain is the number of symbols */
  return 0;
}

/* The number of symbols of a GNU hash table: past the highest bucket's
 * chain, whose last entry has the low bit set. */
static size_t gnu_hash_count(const uint32_t *h) {
  uint32_t nbuckets = h[0], symoffset = h[1], bloom_size = h[2];
  const uint32_t *buckets = (const uint32_t *)((const ElfW(Addr) *)(h + 4) + bloom_size);
  const uint32_t *chain = buckets + nbuckets;
  uint32_t last = 0;
  for (uint32_t b = 0; b < nbuckets; b++)
    if (buckets[b] > last) last = buckets[b];
  if (last < symoffset) return symoffset;
  while (!(chain[last - symoffset] & 1)) last++;
  return (size_t)last + 1;
}
