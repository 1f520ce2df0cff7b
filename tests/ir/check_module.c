/* IRModule (module.h, docs/architecture.md, "The IRModule"): making modules, their functions in
 * insertion order, function attributes and their key registry,
 * copy-on-write of function changes and the function *_move variants, the
 * ir.IRModule global, structural equality, hashing and repr, and threads
 * reading one module. DictAttrs, module attributes and their key registry
 * are in check_module_attrs.c; freezing, irm_module_check_invariants and
 * JSON in check_module_freeze.c. */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_module_util.h"

static const char *const abc[] = {"a", "b", "c"};

/* Whether irm_base_func_attr_list lists key. */
static int func_key_listed(const char *key) {
  irm_object *list = NULL;
  ck_assert_ok(irm_base_func_attr_list(&list));
  int listed = irm_map_find_cstr(list, key) != NULL;
  irm_object_release(list);
  return listed;
}

/* ---- making modules ------------------------------------------------------------- */

START_TEST(test_empty_module_has_no_functions_no_attrs_and_is_not_frozen) {
  irm_module *m = new_module(NULL, NULL);
  ck_assert_uint_eq(irm_module_function_count(m), 0);
  assert_names(m, "");
  ck_assert_ptr_null(irm_module_function(m, "main"));
  const irm_object *attrs = irm_module_attrs(m);
  ck_assert_ptr_nonnull(attrs);
  ck_assert_str_eq(irm_object_type_key(attrs), "ir.DictAttrs");
  ck_assert_uint_eq(irm_map_size(irm_dict_attrs_map(attrs)), 0);
  ck_assert(!irm_module_is_frozen(m));
  irm_object_release(m);
}
END_TEST

START_TEST(test_module_from_maps_keeps_function_order_and_attributes) {
  const char *names[] = {"main", "helper", "aux"};
  irm_object *f[] = {new_func("main", 1), new_func("helper", 2), new_func("aux", 3)};
  irm_any fv[] = {irm_any_object(f[0]), irm_any_object(f[1]), irm_any_object(f[2])};
  irm_object *funcs = new_map(names, fv, 3);
  const char *keys[] = {IRM_ATTR_MOD_NAME, "test.note"};
  irm_any values[] = {irm_any_str("tiny"), irm_any_int(7)};
  irm_object *attrs = new_map(keys, values, 2);
  irm_module *m = new_module(funcs, attrs);
  ck_assert_uint_eq(irm_module_function_count(m), 3);
  assert_names(m, "main,helper,aux");
  for (int i = 0; i < 3; i++) ck_assert_ptr_eq(irm_module_function(m, names[i]), f[i]);
  ck_assert_str_eq(irm_module_mod_name(m), "tiny");
  ck_assert_uint_eq(irm_map_size(irm_dict_attrs_map(irm_module_attrs(m))), 2);
  irm_object_release(m);
  irm_object_release(funcs);
  irm_object_release(attrs);
  for (int i = 0; i < 3; i++) irm_object_release(f[i]);
}
END_TEST

START_TEST(test_module_new_copies_its_maps_so_changing_them_later_changes_nothing) {
  irm_object *f = new_func("main", 1);
  irm_object *funcs = map1("main", irm_any_object(f));
  irm_object *attrs = map1("test.note", irm_any_int(1));
  irm_module *m = new_module(funcs, attrs);
  irm_object *g = new_func("extra", 2);
  irm_any gv = irm_any_object(g), two = irm_any_int(2);
  ck_assert_ok(irm_map_set_move(&funcs, "extra", &gv));
  ck_assert_ok(irm_map_set_move(&attrs, "test.note", &two));
  ck_assert_uint_eq(irm_module_function_count(m), 1);
  ck_assert_ptr_null(irm_module_function(m, "extra"));
  irm_any note = irm_any_none();
  ck_assert_ok(irm_module_get_attr(m, "test.note", &note));
  ck_assert_int_eq(note.type_code, IRM_INT);
  ck_assert_int_eq(note.v_int, 1);
  irm_object_release(m);
  irm_object_release(funcs);
  irm_object_release(attrs);
  irm_object_release(f);
  irm_object_release(g);
}
END_TEST

START_TEST(test_module_new_of_something_else_than_a_map_is_type_error) {
  irm_object *s = new_string("main");
  irm_module *m = NULL;
  ck_assert_error(irm_module_new(s, NULL, &m), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_null(m);
  ck_assert_error(irm_module_new(NULL, s, &m), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_null(m);
  irm_object_release(s);
}
END_TEST

START_TEST(test_module_new_of_a_function_that_is_not_a_base_func_is_type_error_naming_it) {
  irm_object *packed = new_const(1); /* an ffi.Function, not an ir.BaseFunc */
  irm_object *funcs = map1("kernel", irm_any_object(packed));
  irm_module *m = NULL;
  ck_assert_error(irm_module_new(funcs, NULL, &m), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("kernel");
  ck_assert_error_mentions("ir.BaseFunc");
  ck_assert_ptr_null(m);
  irm_object_release(funcs);
  funcs = map1("answer", irm_any_int(42));
  ck_assert_error(irm_module_new(funcs, NULL, &m), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("answer");
  ck_assert_ptr_null(m);
  irm_object_release(funcs);
  irm_object_release(packed);
}
END_TEST

START_TEST(test_a_subtype_of_base_func_is_a_base_func_with_its_own_attrs) {
  irm_object *f = new_func("main", 1);
  ck_assert(irm_object_is(f, "ir.BaseFunc"));
  ck_assert(irm_type_is_subtype(irm_object_type_index(f), irm_base_func_type()));
  ck_assert_str_eq(irm_type_key(irm_base_func_type()), "ir.BaseFunc");
  const irm_object *attrs = irm_base_func_attrs(f);
  ck_assert_ptr_eq(attrs, ((test_func *)irm_object_payload(f))->head.attrs);
  irm_object *s = new_string("main");
  ck_assert_ptr_null(irm_base_func_attrs(s));
  irm_object_release(s);
  irm_object_release(f);
}
END_TEST

/* ---- functions ------------------------------------------------------------------ */

START_TEST(test_with_function_appends_in_insertion_order) {
  irm_module *m = new_module(NULL, NULL);
  const char *order[] = {"zeta", "alpha", "mid"};
  for (int i = 0; i < 3; i++) {
    irm_object *f = new_func(order[i], i);
    irm_module *next = NULL;
    ck_assert_ok(irm_module_with_function(m, order[i], f, &next));
    ck_assert_ptr_eq(irm_module_function(next, order[i]), f);
    irm_object_release(f);
    irm_object_release(m);
    m = next;
  }
  assert_names(m, "zeta,alpha,mid");
  ck_assert_uint_eq(irm_module_function_count(m), 3);
  irm_object_release(m);
}
END_TEST

START_TEST(test_with_function_of_an_existing_name_replaces_it_keeping_its_position) {
  irm_module *m = module_of(abc, 3);
  irm_object *b2 = new_func("b", 20);
  irm_module *next = NULL;
  ck_assert_ok(irm_module_with_function(m, "b", b2, &next));
  assert_names(next, "a,b,c");
  ck_assert_uint_eq(irm_module_function_count(next), 3);
  ck_assert_ptr_eq(irm_module_function(next, "b"), b2);
  ck_assert_int_eq(func_body(irm_module_function(next, "b")), 20);
  ck_assert_ptr_eq(irm_module_function(next, "a"), irm_module_function(m, "a"));
  irm_object_release(next);
  irm_object_release(b2);
  irm_object_release(m);
}
END_TEST

START_TEST(test_without_function_removes_it_and_keeps_the_order_of_the_rest) {
  irm_module *m = module_of(abc, 3);
  irm_module *next = NULL;
  ck_assert_ok(irm_module_without_function(m, "b", &next));
  assert_names(next, "a,c");
  ck_assert_ptr_null(irm_module_function(next, "b"));
  ck_assert_uint_eq(irm_module_function_count(next), 2);
  irm_object *b = new_func("b", 9);
  irm_module *again = NULL;
  ck_assert_ok(irm_module_with_function(next, "b", b, &again));
  assert_names(again, "a,c,b"); /* added back: at the end */
  irm_object_release(again);
  irm_object_release(b);
  irm_object_release(next);
  irm_object_release(m);
}
END_TEST

START_TEST(test_get_function_gives_the_function_borrowed_and_null_when_absent) {
  irm_module *m = module_of(abc, 3);
  irm_object *a = irm_module_function(m, "a");
  uint32_t count = irm_object_refcount(a);
  ck_assert_int_eq(func_body(a), 1);
  ck_assert_ptr_eq(irm_module_function(m, "a"), a);
  ck_assert_uint_eq(irm_object_refcount(a), count);
  ck_assert_ptr_null(irm_module_function(m, "d"));
  ck_assert_ptr_null(irm_module_function(m, "A"));
  irm_object_release(m);
}
END_TEST

START_TEST(test_without_function_of_an_absent_name_is_key_error_suggesting_the_closest) {
  const char *names[] = {"main", "helper"};
  irm_module *m = module_of(names, 2);
  irm_module *out = NULL;
  ck_assert_error(irm_module_without_function(m, "mian", &out), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("'mian'");
  ck_assert_error_mentions("did you mean 'main'");
  ck_assert_ptr_null(out);
  irm_object_release(m);
}
END_TEST

START_TEST(test_with_function_of_a_non_base_func_is_type_error) {
  irm_module *m = module_of(abc, 3);
  irm_object *packed = new_const(1);
  irm_module *out = NULL;
  ck_assert_error(irm_module_with_function(m, "kernel", packed, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("kernel");
  ck_assert_error_mentions("ir.BaseFunc");
  ck_assert_ptr_null(out);
  irm_object *s = new_string("text");
  ck_assert_error(irm_module_with_function(m, "a", s, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_null(out);
  irm_object_release(s);
  irm_object_release(packed);
  irm_object_release(m);
}
END_TEST

START_TEST(test_function_names_is_a_new_array_the_module_does_not_share) {
  irm_module *m = module_of(abc, 3);
  irm_object *names = NULL;
  ck_assert_ok(irm_module_function_names(m, &names));
  irm_any d = irm_any_str("d");
  ck_assert_ok(irm_array_append_move(&names, &d));
  ck_assert_uint_eq(irm_array_size(names), 4);
  assert_names(m, "a,b,c");
  irm_object_release(names);
  irm_object_release(m);
}
END_TEST

/* ---- function attributes -------------------------------------------------------------------- */

START_TEST(test_builtin_function_attr_keys_are_listed) {
  irm_object *list = NULL;
  ck_assert_ok(irm_base_func_attr_list(&list));
  const char *keys[] = {IRM_BASE_FUNC_ATTR_GLOBAL_SYMBOL, IRM_BASE_FUNC_ATTR_TARGET,
                        IRM_BASE_FUNC_ATTR_CALLING_CONV,  IRM_BASE_FUNC_ATTR_PRIMITIVE,
                        IRM_BASE_FUNC_ATTR_COMPILER,      IRM_BASE_FUNC_ATTR_SKIP_OPTIMIZATION};
  for (size_t i = 0; i < 6; i++) ck_assert_msg(listed_type(list, keys[i]) != NULL, "'%s' is not listed", keys[i]);
  ck_assert_str_eq(listed_type(list, IRM_BASE_FUNC_ATTR_GLOBAL_SYMBOL), "str");
  ck_assert_str_eq(listed_type(list, IRM_BASE_FUNC_ATTR_COMPILER), "str");
  irm_object_release(list);
}
END_TEST

START_TEST(test_func_get_attr_gives_the_value_or_none) {
  irm_object *attrs = map1(IRM_BASE_FUNC_ATTR_GLOBAL_SYMBOL, irm_any_str("main_impl"));
  irm_object *f = new_func_attrs("main", 1, attrs);
  irm_any v = irm_any_int(-1);
  ck_assert_ok(irm_base_func_get_attr(f, IRM_BASE_FUNC_ATTR_GLOBAL_SYMBOL, &v));
  ck_assert_int_eq(v.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_string_data(v.v_obj), "main_impl");
  irm_any_release(&v);
  v = irm_any_int(-1);
  ck_assert_ok(irm_base_func_get_attr(f, IRM_BASE_FUNC_ATTR_COMPILER, &v));
  ck_assert_int_eq(v.type_code, IRM_NONE);
  irm_object *s = new_string("main");
  v = irm_any_int(-1);
  ck_assert_ok(irm_base_func_get_attr(s, IRM_BASE_FUNC_ATTR_GLOBAL_SYMBOL, &v));
  ck_assert_int_eq(v.type_code, IRM_NONE);
  irm_object_release(s);
  irm_object_release(f);
  irm_object_release(attrs);
}
END_TEST

START_TEST(test_func_with_attr_gives_a_copy_through_the_hooks_leaving_f_unchanged) {
  irm_object *f = new_func("main", 7);
  const irm_object *attrs_before = irm_base_func_attrs(f);
  irm_any sym = irm_any_str("main_impl");
  irm_object *g = NULL;
  ck_assert_ok(irm_base_func_with_attr(f, IRM_BASE_FUNC_ATTR_GLOBAL_SYMBOL, &sym, &g));
  ck_assert_ptr_ne(g, f);
  ck_assert_str_eq(irm_object_type_key(g), TEST_FUNC_KEY);
  ck_assert_int_eq(func_body(g), 7);
  const test_func *gp = irm_object_payload_const(g), *fp = irm_object_payload_const(f);
  ck_assert_ptr_eq(gp->name, fp->name);
  ck_assert_ptr_eq(irm_base_func_attrs(f), attrs_before);
  ck_assert_uint_eq(irm_map_size(irm_dict_attrs_map(attrs_before)), 0);
  irm_any v = irm_any_none();
  ck_assert_ok(irm_base_func_get_attr(g, IRM_BASE_FUNC_ATTR_GLOBAL_SYMBOL, &v));
  ck_assert_str_eq(irm_string_data(v.v_obj), "main_impl");
  irm_any_release(&v);
  ck_assert_ok(irm_base_func_get_attr(f, IRM_BASE_FUNC_ATTR_GLOBAL_SYMBOL, &v));
  ck_assert_int_eq(v.type_code, IRM_NONE);
  irm_object_release(g);
  irm_object_release(f);
}
END_TEST

START_TEST(test_func_with_attr_checks_registered_key_types) {
  irm_object *f = new_func("main", 1);
  irm_object *g = NULL;
  irm_any bad = irm_any_int(5);
  ck_assert_error(irm_base_func_with_attr(f, IRM_BASE_FUNC_ATTR_GLOBAL_SYMBOL, &bad, &g), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("global_symbol");
  ck_assert_error_mentions("str");
  ck_assert_error_mentions("int");
  ck_assert_ptr_null(g);
  ck_assert_ok(irm_base_func_attr_register("test.inline_level", "int"));
  irm_any text = irm_any_str("high");
  ck_assert_error(irm_base_func_with_attr(f, "test.inline_level", &text, &g), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("test.inline_level");
  ck_assert_ptr_null(g);
  irm_any level = irm_any_int(2);
  ck_assert_ok(irm_base_func_with_attr(f, "test.inline_level", &level, &g));
  irm_object_release(g);
  ck_assert_ok(irm_base_func_with_attr(f, "test.unregistered", &text, &g)); /* any value */
  irm_object_release(g);
  irm_object_release(f);
}
END_TEST

START_TEST(test_func_with_attr_of_a_non_base_func_is_type_error) {
  irm_object *packed = new_const(1), *g = NULL;
  irm_any sym = irm_any_str("x");
  ck_assert_error(irm_base_func_with_attr(packed, IRM_BASE_FUNC_ATTR_GLOBAL_SYMBOL, &sym, &g), IRM_ETYPE,
                  "TypeError: ");
  ck_assert_error_mentions("ir.BaseFunc");
  ck_assert_ptr_null(g);
  ck_assert_ptr_null(irm_base_func_attrs(packed));
  irm_object_release(packed);
}
END_TEST

START_TEST(test_func_with_attr_of_a_type_without_hooks_is_runtime_error) {
  irm_object *f = new_hookless_func(), *g = NULL;
  ck_assert(irm_object_is(f, "ir.BaseFunc"));
  irm_any sym = irm_any_str("x");
  ck_assert_error(irm_base_func_with_attr(f, IRM_BASE_FUNC_ATTR_GLOBAL_SYMBOL, &sym, &g), IRM_ERUNTIME,
                  "RuntimeError: ");
  ck_assert_error_mentions("test.HooklessFunc");
  ck_assert_ptr_null(g);
  irm_object_release(f);
}
END_TEST

START_TEST(test_function_attr_keys_register_like_module_keys) {
  ck_assert_ok(irm_base_func_attr_register("test.fkey", "bool"));
  ck_assert(func_key_listed("test.fkey"));
  ck_assert_ok(irm_base_func_attr_register("test.fkey", "bool"));
  ck_assert_error(irm_base_func_attr_register("test.fkey", "int"), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("test.fkey");
  ck_assert_error(irm_base_func_attr_register("test.fkey2", "flaot"), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("did you mean 'float'");
  ck_assert(!func_key_listed("test.fkey2"));
  irm_object *list = NULL;
  ck_assert_ok(irm_module_attr_list(&list));
  ck_assert_ptr_null(listed_type(list, "test.fkey")); /* two registries */
  irm_object_release(list);
}
END_TEST

START_TEST(test_rollback_removes_a_function_attr_key_registered_inside_it) {
  irm_object *f = new_func("main", 1); /* test.Func registered outside the journal */
  irm_journal *j = open_journal();
  ck_assert_ok(irm_base_func_attr_register("test.fjournaled", "int"));
  ck_assert(func_key_listed("test.fjournaled"));
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert(!func_key_listed("test.fjournaled"));
  ck_assert(func_key_listed(IRM_BASE_FUNC_ATTR_GLOBAL_SYMBOL));
  irm_any text = irm_any_str("text");
  irm_object *g = NULL;
  ck_assert_ok(irm_base_func_with_attr(f, "test.fjournaled", &text, &g));
  irm_object_release(g);
  irm_object_release(f);
}
END_TEST

/* ---- copy-on-write ----------------------------------------------------------------- */

START_TEST(test_with_and_without_function_leave_the_argument_unchanged) {
  irm_module *m = module_of(abc, 3);
  set_attr(&m, IRM_ATTR_MOD_NAME, irm_any_str("tiny"));
  module_snapshot s = snapshot(m);
  irm_object *d = new_func("d", 4), *b2 = new_func("b", 20);
  irm_module *out = NULL;
  ck_assert_ok(irm_module_with_function(m, "d", d, &out));
  ck_assert_ptr_ne(out, m);
  assert_unchanged(&s);
  irm_object_release(out);
  ck_assert_ok(irm_module_with_function(m, "b", b2, &out));
  assert_unchanged(&s);
  irm_object_release(out);
  ck_assert_ok(irm_module_without_function(m, "a", &out));
  assert_unchanged(&s);
  ck_assert_str_eq(irm_module_mod_name(out), "tiny"); /* attributes carried over */
  irm_object_release(out);
  ck_assert_uint_eq(irm_object_refcount(m), 1);
  irm_object_release(d);
  irm_object_release(b2);
  irm_object_release(m);
}
END_TEST

START_TEST(test_a_derived_module_shares_the_functions_it_did_not_change) {
  irm_module *m = module_of(abc, 3);
  irm_object *b2 = new_func("b", 20);
  irm_module *out = NULL;
  ck_assert_ok(irm_module_with_function(m, "b", b2, &out));
  ck_assert_ptr_eq(irm_module_function(out, "a"), irm_module_function(m, "a"));
  ck_assert_ptr_eq(irm_module_function(out, "c"), irm_module_function(m, "c"));
  irm_object_release(out);
  irm_object_release(b2);
  irm_object_release(m);
}
END_TEST

START_TEST(test_set_function_move_on_a_sole_owner_changes_it_in_place) {
  irm_module *m = module_of(abc, 3);
  irm_module *before = m;
  ck_assert_uint_eq(irm_object_refcount(m), 1);
  irm_object *d = new_func("d", 4), *a2 = new_func("a", 10);
  ck_assert_ok(irm_module_set_function_move(&m, "d", d));
  ck_assert_ptr_eq(m, before);
  ck_assert_ok(irm_module_set_function_move(&m, "a", a2));
  ck_assert_ptr_eq(m, before);
  assert_names(m, "a,b,c,d");
  ck_assert_ptr_eq(irm_module_function(m, "a"), a2);
  ck_assert_ptr_eq(irm_module_function(m, "d"), d);
  irm_object_release(d);
  irm_object_release(a2);
  irm_object_release(m);
}
END_TEST

START_TEST(test_remove_function_move_on_a_sole_owner_changes_it_in_place) {
  irm_module *m = module_of(abc, 3);
  irm_module *before = m;
  ck_assert_ok(irm_module_remove_function_move(&m, "b"));
  ck_assert_ptr_eq(m, before);
  assert_names(m, "a,c");
  ck_assert_ptr_null(irm_module_function(m, "b"));
  irm_object_release(m);
}
END_TEST

START_TEST(test_function_moves_on_a_shared_module_copy_and_leave_the_other_holder_unchanged) {
  irm_module *m = module_of(abc, 3);
  irm_object_retain(m);
  irm_module *other = m;
  module_snapshot s = snapshot(other);
  irm_object *d = new_func("d", 4);
  ck_assert_ok(irm_module_set_function_move(&m, "d", d));
  ck_assert_ptr_ne(m, other);
  ck_assert_uint_eq(irm_object_refcount(other), 1); /* the move released our old reference */
  assert_unchanged(&s);
  assert_names(m, "a,b,c,d");
  irm_object_retain(m);
  irm_module *second = m;
  module_snapshot s2 = snapshot(second);
  ck_assert_ok(irm_module_remove_function_move(&m, "a"));
  ck_assert_ptr_ne(m, second);
  assert_unchanged(&s2);
  assert_unchanged(&s);
  assert_names(m, "b,c,d");
  irm_object_release(second);
  irm_object_release(d);
  irm_object_release(other);
  irm_object_release(m);
}
END_TEST

START_TEST(test_a_move_in_place_leaves_the_modules_derived_from_it_unchanged) {
  irm_module *m = module_of(abc, 3);
  irm_module *derived = with_attr(m, "test.note", irm_any_int(1)); /* shares m's functions */
  module_snapshot s = snapshot(derived);
  irm_module *before = m;
  irm_object *d = new_func("d", 4);
  ck_assert_ok(irm_module_set_function_move(&m, "d", d));
  ck_assert_ok(irm_module_remove_function_move(&m, "a"));
  ck_assert_ptr_eq(m, before);
  assert_names(m, "b,c,d");
  assert_unchanged(&s);
  assert_names(derived, "a,b,c");
  irm_object_release(d);
  irm_object_release(derived);
  irm_object_release(m);
}
END_TEST

START_TEST(test_failed_function_moves_leave_ref_untouched) {
  const char *names[] = {"main", "helper"};
  irm_module *m = module_of(names, 2);
  irm_module *before = m;
  module_snapshot s = snapshot(m);
  ck_assert_error(irm_module_remove_function_move(&m, "mian"), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("did you mean 'main'");
  ck_assert_ptr_eq(m, before);
  assert_unchanged(&s);
  irm_object *packed = new_const(1);
  ck_assert_error(irm_module_set_function_move(&m, "kernel", packed), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_eq(m, before);
  assert_unchanged(&s);
  irm_object_retain(m); /* shared: a failed move must not copy or release either */
  ck_assert_error(irm_module_set_function_move(&m, "kernel", packed), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_eq(m, before);
  ck_assert_uint_eq(irm_object_refcount(m), 2);
  irm_object_release(m);
  assert_unchanged(&s);
  irm_object_release(packed);
  irm_object_release(m);
}
END_TEST

/* ---- the ir.IRModule global -------------------------------------------------------- */

START_TEST(test_global_ir_module_without_arguments_is_empty) {
  irm_module *m = call_obj("ir.IRModule", NULL, 0, "ir.IRModule");
  ck_assert_uint_eq(irm_module_function_count(m), 0);
  ck_assert_uint_eq(irm_map_size(irm_dict_attrs_map(irm_module_attrs(m))), 0);
  ck_assert(!global_is_frozen(m));
  irm_object_release(m);
}
END_TEST

START_TEST(test_global_ir_module_takes_functions_and_attrs_either_optional) {
  irm_object *f = new_func("main", 1);
  irm_object *funcs = map1("main", irm_any_object(f));
  irm_object *attrs = map1(IRM_ATTR_MOD_NAME, irm_any_str("tiny"));
  irm_any both[] = {irm_any_object(funcs), irm_any_object(attrs)};
  irm_module *m = call_obj("ir.IRModule", both, 2, "ir.IRModule");
  ck_assert_ptr_eq(irm_module_function(m, "main"), f);
  ck_assert_str_eq(irm_module_mod_name(m), "tiny");
  irm_object_release(m);
  irm_any only_attrs[] = {irm_any_none(), irm_any_object(attrs)};
  m = call_obj("ir.IRModule", only_attrs, 2, "ir.IRModule");
  ck_assert_uint_eq(irm_module_function_count(m), 0);
  ck_assert_str_eq(irm_module_mod_name(m), "tiny");
  irm_object_release(m);
  m = call_obj("ir.IRModule", both, 1, "ir.IRModule");
  ck_assert_ptr_eq(irm_module_function(m, "main"), f);
  ck_assert_ptr_null(irm_module_mod_name(m));
  irm_object_release(m);
  irm_object_release(funcs);
  irm_object_release(attrs);
  irm_object_release(f);
}
END_TEST

START_TEST(test_global_ir_module_rejects_non_maps_and_non_functions) {
  irm_any text = irm_any_str("main");
  ck_assert_int_eq(call_fails("ir.IRModule", &text, 1), IRM_ETYPE);
  ck_assert_last_error("TypeError: ");
  irm_object *funcs = map1("kernel", irm_any_int(3));
  irm_any arg = irm_any_object(funcs);
  ck_assert_int_eq(call_fails("ir.IRModule", &arg, 1), IRM_ETYPE);
  ck_assert_last_error("TypeError: ");
  ck_assert_error_mentions("kernel");
  irm_object_release(funcs);
}
END_TEST

/* ---- structural equality, hash, repr ------------------------------------------------ */

static int global_equal(const irm_object *a, const irm_object *b) {
  irm_any args[] = {irm_any_object((irm_object *)a), irm_any_object((irm_object *)b)};
  irm_any ret = call_ok("ffi.StructuralEqual", args, 2);
  ck_assert_int_eq(ret.type_code, IRM_BOOL);
  return (int)ret.v_int;
}

static int64_t global_hash(const irm_object *a) {
  irm_any arg = irm_any_object((irm_object *)a);
  irm_any ret = call_ok("ffi.StructuralHash", &arg, 1);
  ck_assert_int_eq(ret.type_code, IRM_INT);
  return ret.v_int;
}

START_TEST(test_structural_equality_of_modules_is_reflexive_symmetric_and_transitive) {
  irm_module *a = new_configured_module();
  irm_module *b = new_configured_module(); /* same content, other objects throughout */
  irm_module *c = json_round_trip(a);
  ck_assert_ptr_ne(irm_module_function(a, "main"), irm_module_function(b, "main"));
  ck_assert(global_equal(a, a));
  ck_assert(global_equal(a, b) && global_equal(b, a));
  ck_assert(global_equal(b, c) && global_equal(a, c));
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(c);
}
END_TEST

START_TEST(test_equal_modules_have_equal_hashes) {
  irm_module *a = new_configured_module();
  irm_module *b = new_configured_module();
  irm_module *c = json_round_trip(a);
  ck_assert_int_eq(global_hash(a), global_hash(a));
  ck_assert_int_eq(global_hash(a), global_hash(b));
  ck_assert_int_eq(global_hash(a), global_hash(c));
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(c);
}
END_TEST

START_TEST(test_modules_differing_in_a_function_or_an_attribute_are_unequal) {
  irm_module *base = new_configured_module();
  irm_object *main2 = new_func("main", 99);
  irm_object *extra = new_func("extra", 1);
  irm_module *other_body = NULL, *more = NULL, *fewer = NULL;
  ck_assert_ok(irm_module_with_function(base, "main", main2, &other_body));
  ck_assert_ok(irm_module_with_function(base, "extra", extra, &more));
  ck_assert_ok(irm_module_without_function(base, "main", &fewer));
  irm_module *renamed = with_attr(base, IRM_ATTR_MOD_NAME, irm_any_str("other"));
  irm_module *noted = with_attr(base, "test.note", irm_any_int(1));
  irm_module *variants[] = {other_body, more, fewer, renamed, noted};
  for (size_t i = 0; i < 5; i++) {
    ck_assert_msg(!global_equal(base, variants[i]), "variant %zu equals the base module", i);
    ck_assert_msg(!global_equal(variants[i], base), "the base module equals variant %zu", i);
    irm_object_release(variants[i]);
  }
  irm_object_release(main2);
  irm_object_release(extra);
  irm_object_release(base);
}
END_TEST

START_TEST(test_repr_mentions_the_functions_and_the_attributes) {
  const char *names[] = {"main", "helper"};
  irm_module *m = module_of(names, 2);
  set_attr(&m, IRM_ATTR_MOD_NAME, irm_any_str("tiny_model"));
  set_attr(&m, "test.note", irm_any_int(4242));
  irm_any arg = irm_any_object(m);
  irm_any text = call_ok("ffi.Repr", &arg, 1);
  ck_assert_int_eq(text.type_code, IRM_OBJECT);
  const char *s = irm_string_data(text.v_obj);
  ck_assert_ptr_nonnull(s);
  const char *needles[] = {"main", "helper", "mod_name", "tiny_model", "test.note", "4242"};
  for (size_t i = 0; i < 6; i++)
    ck_assert_msg(strstr(s, needles[i]) != NULL, "the repr does not mention '%s': %s", needles[i], s);
  irm_any_release(&text);
  irm_object_release(m);
}
END_TEST

/* ---- threads -------------------------------------------------------------------------- */

typedef struct reader {
  const irm_module *mod;
  const irm_object *main_fn;
  uint64_t hash;
  atomic_int *go;
  long rounds;
  long failures;
} reader;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reads the module over and over for about a second; counts what differs. */
static void *read_module(void *arg) {
  reader *r = arg;
  while (!atomic_load(r->go)) {
  }
  double end = now_seconds() + 1.0;
  while (now_seconds() < end) {
    irm_any name = irm_any_none();
    if (irm_module_get_attr(r->mod, IRM_ATTR_MOD_NAME, &name) != 0 || name.type_code != IRM_OBJECT ||
        strcmp(irm_string_data(name.v_obj), "tiny") != 0)
      r->failures++;
    irm_any_release(&name);
    if (irm_module_function(r->mod, "main") != r->main_fn) r->failures++;
    if (irm_module_executor(r->mod) == NULL) r->failures++;
    irm_object *names = NULL;
    if (irm_module_function_names(r->mod, &names) != 0 || irm_array_size(names) != 1 ||
        !irm_string_equals(irm_array_at(names, 0)->v_obj, "main", 4))
      r->failures++;
    irm_object_release(names);
    irm_any v = irm_any_object((irm_object *)r->mod);
    uint64_t h = 0;
    if (irm_structural_hash(&v, &h) != 0 || h != r->hash) r->failures++;
    irm_module *derived = NULL; /* deriving shares parts of the module across threads */
    irm_any note = irm_any_int(r->rounds);
    if (irm_module_with_attr(r->mod, "test.note", &note, &derived) != 0 ||
        irm_module_function(derived, "main") != r->main_fn)
      r->failures++;
    irm_object_release(derived);
    r->rounds++;
  }
  return NULL;
}

START_TEST(test_four_threads_reading_and_deriving_from_one_module_see_consistent_results) {
  irm_module *m = new_configured_module();
  irm_any v = irm_any_object(m);
  uint64_t h = 0;
  ck_assert_ok(irm_structural_hash(&v, &h));
  atomic_int go = 0;
  reader readers[4];
  pthread_t threads[4];
  for (int i = 0; i < 4; i++) {
    readers[i] = (reader){m, irm_module_function(m, "main"), h, &go, 0, 0};
    ck_assert_int_eq(pthread_create(&threads[i], NULL, read_module, &readers[i]), 0);
  }
  atomic_store(&go, 1);
  for (int i = 0; i < 4; i++) ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
  for (int i = 0; i < 4; i++) {
    ck_assert_msg(readers[i].failures == 0, "thread %d saw %ld inconsistent results in %ld rounds", i,
                  readers[i].failures, readers[i].rounds);
    ck_assert_int_gt(readers[i].rounds, 0);
  }
  ck_assert_uint_eq(irm_object_refcount(m), 1);
  irm_object_release(m);
}
END_TEST

/* ---- the suite ----------------------------------------------------------------------- */

static Suite *module_suite(void) {
  Suite *s = suite_create("module");

  TCase *make = tcase_create("make");
  tcase_add_test(make, test_empty_module_has_no_functions_no_attrs_and_is_not_frozen);
  tcase_add_test(make, test_module_from_maps_keeps_function_order_and_attributes);
  tcase_add_test(make, test_module_new_copies_its_maps_so_changing_them_later_changes_nothing);
  tcase_add_test(make, test_module_new_of_something_else_than_a_map_is_type_error);
  tcase_add_test(make, test_module_new_of_a_function_that_is_not_a_base_func_is_type_error_naming_it);
  tcase_add_test(make, test_a_subtype_of_base_func_is_a_base_func_with_its_own_attrs);
  suite_add_tcase(s, make);

  TCase *funcs = tcase_create("functions");
  tcase_add_test(funcs, test_with_function_appends_in_insertion_order);
  tcase_add_test(funcs, test_with_function_of_an_existing_name_replaces_it_keeping_its_position);
  tcase_add_test(funcs, test_without_function_removes_it_and_keeps_the_order_of_the_rest);
  tcase_add_test(funcs, test_get_function_gives_the_function_borrowed_and_null_when_absent);
  tcase_add_test(funcs, test_without_function_of_an_absent_name_is_key_error_suggesting_the_closest);
  tcase_add_test(funcs, test_with_function_of_a_non_base_func_is_type_error);
  tcase_add_test(funcs, test_function_names_is_a_new_array_the_module_does_not_share);
  suite_add_tcase(s, funcs);

  TCase *func = tcase_create("function_attrs");
  tcase_add_test(func, test_builtin_function_attr_keys_are_listed);
  tcase_add_test(func, test_func_get_attr_gives_the_value_or_none);
  tcase_add_test(func, test_func_with_attr_gives_a_copy_through_the_hooks_leaving_f_unchanged);
  tcase_add_test(func, test_func_with_attr_checks_registered_key_types);
  tcase_add_test(func, test_func_with_attr_of_a_non_base_func_is_type_error);
  tcase_add_test(func, test_func_with_attr_of_a_type_without_hooks_is_runtime_error);
  tcase_add_test(func, test_function_attr_keys_register_like_module_keys);
  tcase_add_test(func, test_rollback_removes_a_function_attr_key_registered_inside_it);
  suite_add_tcase(s, func);

  TCase *cow = tcase_create("copy_on_write");
  tcase_add_test(cow, test_with_and_without_function_leave_the_argument_unchanged);
  tcase_add_test(cow, test_a_derived_module_shares_the_functions_it_did_not_change);
  tcase_add_test(cow, test_set_function_move_on_a_sole_owner_changes_it_in_place);
  tcase_add_test(cow, test_remove_function_move_on_a_sole_owner_changes_it_in_place);
  tcase_add_test(cow, test_function_moves_on_a_shared_module_copy_and_leave_the_other_holder_unchanged);
  tcase_add_test(cow, test_a_move_in_place_leaves_the_modules_derived_from_it_unchanged);
  tcase_add_test(cow, test_failed_function_moves_leave_ref_untouched);
  suite_add_tcase(s, cow);

  TCase *globals = tcase_create("globals");
  tcase_add_test(globals, test_global_ir_module_without_arguments_is_empty);
  tcase_add_test(globals, test_global_ir_module_takes_functions_and_attrs_either_optional);
  tcase_add_test(globals, test_global_ir_module_rejects_non_maps_and_non_functions);
  suite_add_tcase(s, globals);

  TCase *structural = tcase_create("structural");
  tcase_add_test(structural, test_structural_equality_of_modules_is_reflexive_symmetric_and_transitive);
  tcase_add_test(structural, test_equal_modules_have_equal_hashes);
  tcase_add_test(structural, test_modules_differing_in_a_function_or_an_attribute_are_unequal);
  tcase_add_test(structural, test_repr_mentions_the_functions_and_the_attributes);
  suite_add_tcase(s, structural);

  TCase *threads = tcase_create("threads");
  tcase_add_test(threads, test_four_threads_reading_and_deriving_from_one_module_see_consistent_results);
  tcase_set_timeout(threads, 60);
  suite_add_tcase(s, threads);
  return s;
}

int main(void) { return run_suite(module_suite()); }
