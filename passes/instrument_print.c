/* The printing instrument (transform.PassPrintingInstrument): prints the
 * module before and/or after the named passes (or all passes) to stdout,
 * through the global ir.Print when one is registered (with the options Map
 * {"elide_larger_than": N} when N > 0), else ffi.Repr (irm_repr). The
 * state never changes after it is made; the lock only keeps one module's
 * text together when threads print at once. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "irm_internal.h"
#include "instrument_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/structural.h"

typedef struct printing_state {
  irm_hook_state_ head; /* first */
  pthread_mutex_t lock;
  irm_object *names;   /* Array of Strings, or NULL: all passes */
  irm_object *options; /* ir.Print's options Map, or NULL: every tensor in full */
} printing_state;

static int on_before(const irm_any *args, int32_t nargs, irm_any *ret, void *res);
static int on_after(const irm_any *args, int32_t nargs, irm_any *ret, void *res);
static void drop_state(void *state);
static int check_names(const irm_object *names);

int irm_printing_instrument_new_ex(const irm_object *pass_names, int before, int after, int64_t elide_larger_than,
                                   irm_instrument **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_printing_instrument_new: out must not be NULL");
  *out = NULL;
  int rc = check_names(pass_names);
  if (!rc && elide_larger_than < 0)
    rc = irm_error(IRM_EVALUE, "elide_larger_than must be 0 (print every element) or more, got %lld",
                   (long long)elide_larger_than);
  if (rc) return irm_error_context(rc, "transform.PassPrintingInstrument");
  irm_object *options = NULL;
  if (elide_larger_than > 0) {
    const char *key = "elide_larger_than";
    irm_any limit = irm_any_int(elide_larger_than);
    if ((rc = irm_map_from_pairs(&key, &limit, 1, &options)) != IRM_OK) return rc;
  }
  printing_state *s = irm_calloc(1, sizeof *s);
  if (!s) {
    irm_object_release(options);
    return irm_error_nomem_("making a printing instrument");
  }
  atomic_init(&s->head.refs, 1);
  s->head.drop = drop_state;
  pthread_mutex_init(&s->lock, NULL);
  if (pass_names) {
    s->names = (irm_object *)pass_names;
    irm_object_retain(s->names);
  }
  s->options = options;
  irm_hooks_ hooks = {NULL, NULL, NULL, before ? on_before : NULL, after ? on_after : NULL, NULL};
  return irm_instrument_from_hooks_("PassPrintingInstrument", &hooks, &s->head, out);
}

int irm_printing_instrument_new(const irm_object *pass_names, int before, int after, irm_instrument **out) {
  return irm_printing_instrument_new_ex(pass_names, before, after, IRM_PRINTING_ELIDE_DEFAULT, out);
}

static int check_names(const irm_object *names) {
  if (!names) return IRM_OK;
  if (!irm_object_is(names, "ffi.Array"))
    return irm_error(IRM_ETYPE, "pass names: expected an Array of Strings, got %s", irm_object_type_key(names));
  for (size_t i = 0; i < irm_array_size(names); i++) {
    const irm_any *item = irm_array_at(names, i);
    if (item->type_code != IRM_OBJECT || !irm_string_data(item->v_obj))
      return irm_error(IRM_ETYPE, "pass names: item %zu: expected a String, got %s", i, irm_any_type_name(item));
  }
  return IRM_OK;
}

static void drop_state(void *state) {
  printing_state *s = state;
  irm_object_release(s->names);
  irm_object_release(s->options);
  pthread_mutex_destroy(&s->lock);
  irm_free(s);
}

/* ---- hooks ------------------------------------------------------------------------ */

static int wanted(const printing_state *s, const char *name) {
  if (!s->names) return 1;
  for (size_t i = 0; i < irm_array_size(s->names); i++)
    if (strcmp(irm_string_data(irm_array_at(s->names, i)->v_obj), name) == 0) return 1;
  return 0;
}

/* The module's text as a NEW String: ir.Print(mod [, options]) when
 * registered (user code, so no lock is held), else irm_repr. */
static int module_text(const printing_state *s, const irm_any *mod, irm_object **out) {
  irm_object *print = NULL;
  *out = NULL;
  int rc = irm_func_get_global("ir.Print", &print);
  if (rc || !print) return rc ? rc : irm_repr(mod, out);
  irm_any text = irm_any_none(), args[2] = {*mod, irm_any_object(s->options)};
  rc = irm_func_call(print, args, s->options ? 2 : 1, &text);
  irm_object_release(print);
  if (rc) return irm_error_context(rc, "printing the module with ir.Print");
  if (text.type_code != IRM_OBJECT || !irm_string_data(text.v_obj)) {
    rc = irm_error(IRM_ETYPE, "ir.Print returned %s, expected a str", irm_any_type_name(&text));
    irm_any_release(&text);
    return rc;
  }
  *out = text.v_obj;
  return IRM_OK;
}

static int print_module(printing_state *s, const irm_any *args, int32_t nargs, const char *when) {
  const char *name = irm_hook_pass_name_(args, nargs);
  if (nargs < 1 || !wanted(s, name)) return IRM_OK;
  irm_object *text = NULL;
  int rc = module_text(s, &args[0], &text);
  if (rc) return irm_error_context(rc, "PassPrintingInstrument, %s pass '%s'", when, name);
  pthread_mutex_lock(&s->lock);
  printf("; IR %s pass '%s'\n", when, name);
  fwrite(irm_string_data(text), 1, irm_string_size(text), stdout);
  size_t n = irm_string_size(text);
  if (n == 0 || irm_string_data(text)[n - 1] != '\n') fputc('\n', stdout);
  fflush(stdout);
  pthread_mutex_unlock(&s->lock);
  irm_object_release(text);
  return IRM_OK;
}

static int on_before(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)ret;
  return print_module(res, args, nargs, "before");
}

static int on_after(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)ret;
  return print_module(res, args, nargs, "after");
}
