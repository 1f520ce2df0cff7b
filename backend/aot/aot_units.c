/* The plan's kernels as sections of the generated C file (aot_internal.h),
 * so that export_library compiles them as several translation units at
 * once (backend/export/units.c splits at the markers): the kernel text
 * stays as the code generator gave it, only each kernel's `static` becomes
 * IRM_KERNEL_LINKAGE (hidden, not static: the glue unit calls it). What
 * lies between kernels at the top level (the kernel headers' includes,
 * their checks) goes to every unit. A unit is one family: the kernels
 * calling one runtime/kernels routine, since what a kernel costs the
 * compiler is mostly that routine's inlined code, paid once per unit
 * using it (resnet18: 6 convs on conv2d_nchwc take 1.15 s of cc in a unit
 * of their own, 10 convs and 15 other kernels 2.5 s in one); a family
 * past UNIT_KERNELS_ kernels or UNIT_BYTES_ of text is cut into several,
 * and families of fewer than SMALL_FAMILY_ kernels share one unit.
 * The limits do not depend on the job count, so the units and their cache
 * keys are the same however many jobs compile them. */
#include <stdlib.h>
#include <string.h>

#include "aot_internal.h"
#include "export/export_internal.h"
#include "irm/alloc.h"
#include "irm/error.h"

enum { UNIT_BYTES_ = 64 * 1024, UNIT_KERNELS_ = 32, SMALL_FAMILY_ = 4 };

typedef struct chunk_ {
  const char *text;
  size_t len;
  size_t def;         /* a kernel's: where its definition starts in text (its task functions precede it) */
  long kernel;        /* the plan kernel it defines, or -1 (common text) */
  const char *family; /* family_of */
  size_t family_len;
  size_t order;
} chunk_;

/* Skips a comment, string or character literal starting at s (else s). */
static const char *skip_literal(const char *s, const char *end) {
  if (s + 1 < end && s[0] == '/' && s[1] == '*') {
    const char *e = strstr(s + 2, "*/");
    return e && e + 2 <= end ? e + 2 : end;
  }
  if (s + 1 < end && s[0] == '/' && s[1] == '/') {
    while (s < end && *s != '\n') s++;
    return s;
  }
  if (*s == '"' || *s == '\'') {
    char q = *s++;
    while (s < end && *s != q) s += *s == '\\' ? 2 : 1;
    return s < end ? s + 1 : end;
  }
  return s;
}

static int defines(const plan_kernel *k, const char *s) {
  size_t n = strlen(k->symbol);
  return !k->external && strncmp(s, k->symbol, n) == 0 && s[n] == '(';
}

/* The kernel whose definition starts at line s ("static int32_t <sym>("),
 * or -1. The generator writes them in plan order: *next is tried first. */
static long kernel_at(const lowered_plan *p, const char *s, size_t *next) {
  static const char pre[] = "static int32_t ";
  if (strncmp(s, pre, sizeof pre - 1) != 0) return -1;
  s += sizeof pre - 1;
  for (size_t i = 0; i <= p->n_kernels; i++) {
    size_t k = i ? i - 1 : *next;
    if (k < p->n_kernels && defines(&p->kernels[k], s)) {
      *next = k + 1;
      return (long)k;
    }
  }
  return -1;
}

/* Whether line s starts a kernel's task function (codegen's
 * irm_cg_parallel_: "static void <kernel>_task<k>("). */
static int is_task(const char *s) {
  static const char pre[] = "static void ";
  if (strncmp(s, pre, sizeof pre - 1) != 0) return 0;
  const char *paren = strchr(s, '('), *task = strstr(s, "_task");
  return paren && task && task < paren;
}

/* A kernel's family: the runtime/kernels routine it calls (its first
 * irm_kernel_<word>, so conv2d_nchwc and conv2d_nchwc_padded are one), or
 * "loops" for generated loops only. */
static void family_of(chunk_ *c) {
  static const char call[] = "irm_kernel_";
  const char *end = c->text + c->len;
  for (const char *s = c->text; (s = strstr(s, call)) && s < end; s += sizeof call - 1) {
    const char *w = s + sizeof call - 1;
    size_t n = 0;
    while (w + n < end && ((w[n] >= 'a' && w[n] <= 'z') || (w[n] >= '0' && w[n] <= '9'))) n++;
    const char *paren = w + n;
    while (paren < end && paren[0] != '(' && paren[0] != ' ' && paren[0] != '\n') paren++;
    if (n && paren < end && *paren == '(') {
      c->family = w;
      c->family_len = n;
      return;
    }
  }
  c->family = "loops";
  c->family_len = 5;
}

/* Cuts the kernels' text into top-level chunks: kernel definitions (from
 * their first line to the brace closing them) and what lies between. */
static int chunks_of(const lowered_plan *p, chunk_ **out, size_t *n_out) {
  const char *s = p->kernels_c ? p->kernels_c : "", *end = s + strlen(s);
  size_t cap = 2 * p->n_kernels + 2, n = 0;
  chunk_ *v = irm_calloc(cap, sizeof *v);
  if (!v) return irm_error(IRM_ENOMEM, "codegen: out of memory for the units");
  const char *common = s, *tasks = NULL;
  size_t next = 0;
  while (s < end) {
    long k = kernel_at(p, s, &next);
    if (k < 0 && !tasks && is_task(s)) tasks = s;
    if (k < 0) { /* a line of common text */
      const char *nl = memchr(s, '\n', (size_t)(end - s));
      s = nl ? nl + 1 : end;
      continue;
    }
    /* the kernel's task functions (and constants) since its first task
     * go with it: they are static, and only it calls them */
    const char *start = tasks ? tasks : s;
    tasks = NULL;
    if (start > common) {
      v[n] = (chunk_){common, (size_t)(start - common), 0, -1, NULL, 0, n};
      n++;
    }
    const char *e = s;
    int depth = 0, opened = 0;
    while (e < end && !(opened && depth == 0)) {
      const char *after = skip_literal(e, end);
      if (after != e) {
        e = after;
        continue;
      }
      depth += *e == '{' ? 1 : *e == '}' ? -1 : 0;
      opened |= *e == '{';
      e++;
    }
    while (e < end && *e != '\n') e++;
    if (e < end) e++;
    v[n] = (chunk_){start, (size_t)(e - start), (size_t)(s - start), k, NULL, 0, n};
    family_of(&v[n]);
    n++;
    if (n + 2 > cap) {
      chunk_ *w = irm_realloc(v, 2 * cap * sizeof *w);
      if (!w) {
        irm_free(v);
        return irm_error(IRM_ENOMEM, "codegen: out of memory for the units");
      }
      v = w;
      cap *= 2;
    }
    s = common = e;
  }
  if (end > common) {
    v[n] = (chunk_){common, (size_t)(end - common), 0, -1, NULL, 0, n};
    n++;
  }
  *out = v;
  *n_out = n;
  return IRM_OK;
}

/* Common text first, then kernels by family, each family in plan order. */
static int by_family(const void *a, const void *b) {
  const chunk_ *x = a, *y = b;
  if ((x->kernel < 0) != (y->kernel < 0)) return x->kernel < 0 ? -1 : 1;
  if (x->kernel >= 0) {
    size_t n = x->family_len < y->family_len ? x->family_len : y->family_len;
    int c = strncmp(x->family, y->family, n);
    if (c) return c;
    if (x->family_len != y->family_len) return x->family_len < y->family_len ? -1 : 1;
  }
  return x->order < y->order ? -1 : x->order > y->order;
}

static int same_family(const chunk_ *a, const chunk_ *b) {
  return a->kernel >= 0 && b->kernel >= 0 && a->family_len == b->family_len &&
         memcmp(a->family, b->family, a->family_len) == 0;
}

/* Families of fewer than SMALL_FAMILY_ kernels (v sorted by family) become
 * one "misc" family: a unit costs the compiler its headers at least, so a
 * unit per one-kernel family costs more than it saves. */
static void merge_small_families(chunk_ *v, size_t n) {
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && same_family(&v[i], &v[j])) j++;
    for (size_t k = i; v[i].kernel >= 0 && j - i < SMALL_FAMILY_ && k < j; k++) {
      v[k].family = "misc";
      v[k].family_len = 4;
    }
    i = j;
  }
}

/* The kernel's definition with IRM_KERNEL_LINKAGE for its `static`; its
 * prototype (the text before its body's brace) into protos. */
static void emit_kernel(const chunk_ *c, irm_text_buf *b, irm_text_buf *protos) {
  static const char pre[] = "static ";
  const char *def = c->text + c->def, *body = def + sizeof pre - 1, *brace = memchr(def, '{', c->len - c->def);
  irm_text_buf_append_(b, c->text, c->def); /* its task functions, static */
  irm_text_buf_puts_(b, "IRM_KERNEL_LINKAGE ");
  irm_text_buf_append_(b, body, c->len - c->def - (sizeof pre - 1));
  size_t head = brace ? (size_t)(brace - body) : 0;
  while (head && (body[head - 1] == ' ' || body[head - 1] == '\n')) head--;
  irm_text_buf_puts_(protos, "IRM_KERNEL_LINKAGE ");
  irm_text_buf_append_(protos, body, head);
  irm_text_buf_puts_(protos, ";\n");
}

static void emit_linkage(irm_text_buf *b) {
  irm_text_buf_puts_(b, "/* kernels are compiled apart from the code calling them (export_library's units) */\n"
                        "#if defined(__GNUC__)\n#define IRM_KERNEL_LINKAGE __attribute__((visibility(\"hidden\")))\n"
                        "#else\n#define IRM_KERNEL_LINKAGE\n#endif\n\n");
}

int irm_aot_emit_kernel_units_(const lowered_plan *p, irm_text_buf *b) {
  chunk_ *v = NULL;
  size_t n = 0;
  int rc = chunks_of(p, &v, &n);
  if (rc) return rc;
  emit_linkage(b);
  irm_text_buf_puts_(b, p->prelude);
  irm_text_buf_putc_(b, '\n');
  irm_text_buf protos_, *protos = &protos_;
  irm_text_buf_init_(protos, NULL, 0);
  qsort(v, n, sizeof *v, by_family);
  merge_small_families(v, n);
  qsort(v, n, sizeof *v, by_family);
  size_t unit = 0, fill = 0, count = 0;
  int common_open = 0;
  for (size_t i = 0; i < n; i++) {
    if (v[i].kernel < 0) { /* sorted first: one common section */
      size_t blank = 0;
      while (blank < v[i].len && (v[i].text[blank] == '\n' || v[i].text[blank] == ' ')) blank++;
      if (blank == v[i].len) continue;
      if (!common_open++) irm_text_buf_puts_(b, IRM_UNIT_MARKER_ "common */\n");
      irm_text_buf_append_(b, v[i].text, v[i].len);
      continue;
    }
    if (!i || !same_family(&v[i - 1], &v[i]) || fill >= UNIT_BYTES_ ||
        count == UNIT_KERNELS_) { /* a new unit, named after its family */
      irm_text_buf_printf_(b, IRM_UNIT_MARKER_ "kernels_%zu_%.*s */\n", unit++,
                           (int)(v[i].family_len > 40 ? 40 : v[i].family_len), v[i].family);
      fill = count = 0;
    }
    emit_kernel(&v[i], b, protos);
    fill += v[i].len;
    count++;
  }
  irm_free(v);
  irm_text_buf_puts_(b, "\n" IRM_UNIT_MARKER_ "glue */\n");
  irm_text_buf_puts_(b, irm_text_buf_cstr_(protos));
  if (protos->failed) irm_text_buf_fail_(b);
  irm_text_buf_free_(protos);
  return IRM_OK;
}
