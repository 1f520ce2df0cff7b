/* A generated C file cut into translation units at the irm-unit markers
 * its emitter wrote (export_internal.h): the file stays one valid C file
 * (the markers are comments), and export_library compiles its sections
 * apart and at once. */
#include <stdio.h>
#include <string.h>

#include "export_internal.h"
#include "irm/alloc.h"
#include "irm/error.h"

void irm_export_units_free_(export_unit_ *units, size_t n) {
  for (size_t i = 0; i < n; i++) {
    irm_free(units[i].name);
    irm_free(units[i].text);
  }
  irm_free(units);
}

typedef struct section_ {
  const char *name; /* after the marker, up to the comment's end */
  size_t name_len;
  const char *text; /* the lines after the marker line */
  size_t len;
} section_;

int irm_export_units_grow_(export_unit_ **units, size_t *n, size_t *cap) {
  if (*n < *cap) return IRM_OK;
  size_t c = *cap ? 2 * *cap : 8;
  export_unit_ *v = irm_realloc(*units, c * sizeof *v);
  if (!v) return irm_error(IRM_ENOMEM, "export_library: out of memory");
  *units = v;
  *cap = c;
  return IRM_OK;
}

/* The sections of text: the marker lines found at line starts. */
static size_t sections(const char *text, size_t size, section_ *out, size_t max) {
  static const char mark[] = IRM_UNIT_MARKER_;
  size_t n = 0;
  const char *end = text + size;
  for (const char *s = text; s < end;) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    const char *next = nl ? nl + 1 : end;
    if ((size_t)(end - s) > sizeof mark - 1 && memcmp(s, mark, sizeof mark - 1) == 0) {
      const char *name = s + sizeof mark - 1, *close = strstr(name, " */");
      if (close && close < next) {
        if (n && out) out[n - 1].len = (size_t)(s - out[n - 1].text);
        if (out && n < max) out[n] = (section_){name, (size_t)(close - name), next, (size_t)(end - next)};
        n++;
      }
    }
    s = next;
  }
  return n;
}

int irm_export_split_units_(const char *file, const char *text, size_t size, export_unit_ **units, size_t *n,
                            size_t *cap) {
  size_t count = sections(text, size, NULL, 0);
  size_t stem = strlen(file) > 2 ? strlen(file) - 2 : strlen(file); /* without ".c" */
  int rc = irm_export_units_grow_(units, n, cap);
  if (rc) return rc;
  if (!count) { /* one unit: the file as it is */
    export_unit_ *u = &(*units)[*n];
    *u = (export_unit_){irm_strdup(file), irm_malloc(size + 1), size, " -O2", 0};
    if (!u->name || !u->text) {
      irm_free(u->name);
      irm_free(u->text);
      return irm_error(IRM_ENOMEM, "export_library: out of memory");
    }
    memcpy(u->text, text, size);
    u->text[size] = '\0';
    (*n)++;
    return IRM_OK;
  }
  section_ *sec = irm_calloc(count, sizeof *sec);
  if (!sec) return irm_error(IRM_ENOMEM, "export_library: out of memory");
  sections(text, size, sec, count);
  size_t common = (size_t)(sec[0].name - (sizeof IRM_UNIT_MARKER_ - 1) - text); /* the head */
  for (size_t i = 0; i < count; i++)
    if (sec[i].name_len == 6 && memcmp(sec[i].name, "common", 6) == 0) common += sec[i].len;
  for (size_t i = 0; !rc && i < count; i++) {
    if (sec[i].name_len == 6 && memcmp(sec[i].name, "common", 6) == 0) continue;
    /* sections of one name are one unit */
    size_t own = 0, first = i;
    for (size_t j = 0; j < i; j++)
      if (sec[j].name_len == sec[i].name_len && memcmp(sec[j].name, sec[i].name, sec[i].name_len) == 0) first = j;
    if (first != i) continue;
    for (size_t j = i; j < count; j++)
      if (sec[j].name_len == sec[i].name_len && memcmp(sec[j].name, sec[i].name, sec[i].name_len) == 0)
        own += sec[j].len;
    if ((rc = irm_export_units_grow_(units, n, cap))) break;
    export_unit_ *u = &(*units)[*n];
    size_t name_len = stem + sec[i].name_len + 8;
    *u = (export_unit_){irm_malloc(name_len), irm_malloc(common + own + 1), common + own,
                        strncmp(sec[i].name, "kernels", 7) == 0 ? " -O2" : " -O1", 0};
    if (!u->name || !u->text) {
      irm_free(u->name);
      irm_free(u->text);
      rc = irm_error(IRM_ENOMEM, "export_library: out of memory");
      break;
    }
    snprintf(u->name, name_len, "%.*s__%.*s.c", (int)stem, file, (int)sec[i].name_len, sec[i].name);
    /* the head, every common section, then this unit's own, in file order */
    size_t at = (size_t)(sec[0].name - (sizeof IRM_UNIT_MARKER_ - 1) - text);
    memcpy(u->text, text, at);
    for (int pass = 0; pass < 2; pass++)
      for (size_t j = 0; j < count; j++) {
        int is_common = sec[j].name_len == 6 && memcmp(sec[j].name, "common", 6) == 0;
        int mine = sec[j].name_len == sec[i].name_len && memcmp(sec[j].name, sec[i].name, sec[i].name_len) == 0;
        if ((pass == 0 && is_common) || (pass == 1 && mine)) {
          memcpy(u->text + at, sec[j].text, sec[j].len);
          at += sec[j].len;
        }
      }
    u->text[at] = '\0';
    (*n)++;
  }
  irm_free(sec);
  return rc;
}
