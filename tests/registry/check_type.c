/* The type registry (object.h, c_api.h): registration, look-up, subtypes,
 * and registration from many threads. */
#include <check.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_object_util.h"

START_TEST(test_type_register_gives_a_dynamic_index) {
  int32_t a = animal_type();
  int32_t p = plant_type();
  ck_assert_int_ge(a, IRM_TYPE_FIRST_DYNAMIC);
  ck_assert_int_ge(p, IRM_TYPE_FIRST_DYNAMIC);
  ck_assert_int_ne(a, p);
}
END_TEST

START_TEST(test_type_find_returns_the_registered_index) {
  int32_t dog = dog_type();
  int32_t found = -1;
  ck_assert_int_eq(irm_type_find("test.Dog", &found), 0);
  ck_assert_int_eq(found, dog);
}
END_TEST

START_TEST(test_type_find_unknown_key_suggests_closest) {
  dog_type();
  int32_t found = -1;
  ck_assert_error(irm_type_find("test.Dgo", &found), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("test.Dgo");
  ck_assert_error_mentions("did you mean 'test.Dog'");
}
END_TEST

START_TEST(test_type_find_finds_the_builtin_types) {
  int32_t i = -1;
  ck_assert_int_eq(irm_type_find("ffi.Object", &i), 0);
  ck_assert_int_eq(i, IRM_TYPE_OBJECT);
  ck_assert_int_eq(irm_type_find("ffi.String", &i), 0);
  ck_assert_int_eq(i, IRM_TYPE_STRING);
  ck_assert_int_eq(irm_type_find("ffi.Array", &i), 0);
  ck_assert_int_eq(i, IRM_TYPE_ARRAY);
  ck_assert_int_eq(irm_type_find("ffi.Map", &i), 0);
  ck_assert_int_eq(i, IRM_TYPE_MAP);
  ck_assert_int_eq(irm_type_find("ffi.Function", &i), 0);
  ck_assert_int_eq(i, IRM_TYPE_FUNCTION);
}
END_TEST

START_TEST(test_type_register_duplicate_key_is_key_error) {
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.type_key = "test.Twice";
  int32_t first = -1, second = -1;
  ck_assert_int_eq(irm_type_register(&info, &first), 0);
  ck_assert_error(irm_type_register(&info, &second), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("test.Twice");
  int32_t found = -1;
  ck_assert_int_eq(irm_type_find("test.Twice", &found), 0);
  ck_assert_int_eq(found, first);
}
END_TEST

START_TEST(test_type_register_builtin_key_is_key_error) {
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.type_key = "ffi.String";
  int32_t idx = -1;
  ck_assert_error(irm_type_register(&info, &idx), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("ffi.String");
}
END_TEST

START_TEST(test_type_register_unknown_parent_is_key_error_with_closest) {
  animal_type();
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.type_key = "test.Cat";
  info.parent_key = "test.Animl";
  int32_t idx = -1;
  ck_assert_error(irm_type_register(&info, &idx), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("test.Animl");
  ck_assert_error_mentions("did you mean 'test.Animal'");
  /* Nothing was registered. */
  ck_assert_int_ne(irm_type_find("test.Cat", &idx), 0);
}
END_TEST

START_TEST(test_type_register_null_or_empty_key_is_value_error) {
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  int32_t idx = -1;
  info.type_key = NULL;
  ck_assert_error(irm_type_register(&info, &idx), IRM_EVALUE, "ValueError: ");
  info.type_key = "";
  ck_assert_error(irm_type_register(&info, &idx), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_type_register_null_info_or_out_is_value_error) {
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.type_key = "test.NoOut";
  int32_t idx = -1;
  ck_assert_error(irm_type_register(NULL, &idx), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_type_register(&info, NULL), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_type_register_too_small_struct_size_is_value_error) {
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.type_key = "test.Small";
  int32_t idx = -1;
  info.struct_size = 0;
  ck_assert_error(irm_type_register(&info, &idx), IRM_EVALUE, "ValueError: ");
  info.struct_size = sizeof(uint32_t);
  ck_assert_error(irm_type_register(&info, &idx), IRM_EVALUE, "ValueError: ");
  ck_assert_int_ne(irm_type_find("test.Small", &idx), 0);
}
END_TEST

START_TEST(test_type_register_copies_info_and_strings) {
  char key[32], parent[32];
  strcpy(key, "test.Copied");
  strcpy(parent, "test.Animal");
  animal_type();
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.type_key = key;
  info.parent_key = parent;
  info.finalize = node_finalize;
  int32_t idx = -1;
  ck_assert_int_eq(irm_type_register(&info, &idx), 0);
  memset(key, 'x', sizeof key - 1);
  memset(parent, 'y', sizeof parent - 1);
  info.finalize = NULL;

  ck_assert_str_eq(irm_type_key(idx), "test.Copied");
  const irm_type_info *got = irm_type_info_of(idx);
  ck_assert_ptr_nonnull(got);
  ck_assert_ptr_ne(got, &info);
  ck_assert_str_eq(got->type_key, "test.Copied");
  ck_assert_str_eq(got->parent_key, "test.Animal");
  ck_assert(got->finalize == node_finalize);
  ck_assert(irm_type_is_subtype(idx, animal_type()));
}
END_TEST

static int dummy_repr(const irm_object *self, irm_object **out) {
  (void)self;
  return irm_string_from_cstr("dummy", out);
}

START_TEST(test_type_info_of_keeps_the_hooks) {
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.type_key = "test.Hooked";
  info.repr = dummy_repr;
  int32_t idx = -1;
  ck_assert_int_eq(irm_type_register(&info, &idx), 0);
  const irm_type_info *got = irm_type_info_of(idx);
  ck_assert_ptr_nonnull(got);
  ck_assert(got->repr == dummy_repr);
  ck_assert(got->finalize == NULL);
  ck_assert(got->to_fields == NULL);
  ck_assert(got->from_fields == NULL);
  ck_assert(got->equal == NULL);
  ck_assert(got->hash == NULL);
}
END_TEST

START_TEST(test_type_info_of_unknown_index_is_null) {
  ck_assert_ptr_null(irm_type_info_of(-1));
  ck_assert_ptr_null(irm_type_info_of(1000000));
  const irm_type_info *s = irm_type_info_of(IRM_TYPE_STRING);
  ck_assert_ptr_nonnull(s);
  ck_assert_str_eq(s->type_key, "ffi.String");
}
END_TEST

START_TEST(test_type_key_of_builtin_indices) {
  ck_assert_str_eq(irm_type_key(IRM_TYPE_OBJECT), "ffi.Object");
  ck_assert_str_eq(irm_type_key(IRM_TYPE_STRING), "ffi.String");
  ck_assert_str_eq(irm_type_key(IRM_TYPE_ARRAY), "ffi.Array");
  ck_assert_str_eq(irm_type_key(IRM_TYPE_MAP), "ffi.Map");
  ck_assert_str_eq(irm_type_key(IRM_TYPE_FUNCTION), "ffi.Function");
}
END_TEST

START_TEST(test_type_key_of_unknown_index_is_null) {
  ck_assert_ptr_null(irm_type_key(-1));
  ck_assert_ptr_null(irm_type_key(1000000));
}
END_TEST

START_TEST(test_type_is_subtype_follows_parents) {
  int32_t animal = animal_type(), dog = dog_type(), plant = plant_type();
  ck_assert(irm_type_is_subtype(dog, dog));
  ck_assert(irm_type_is_subtype(dog, animal));
  ck_assert(irm_type_is_subtype(dog, IRM_TYPE_OBJECT));
  ck_assert(irm_type_is_subtype(plant, IRM_TYPE_OBJECT));
  ck_assert(!irm_type_is_subtype(animal, dog));
  ck_assert(!irm_type_is_subtype(dog, plant));
  ck_assert(!irm_type_is_subtype(plant, animal));
  ck_assert(irm_type_is_subtype(IRM_TYPE_STRING, IRM_TYPE_OBJECT));
  ck_assert(!irm_type_is_subtype(IRM_TYPE_STRING, IRM_TYPE_ARRAY));
  ck_assert(!irm_type_is_subtype(IRM_TYPE_OBJECT, IRM_TYPE_STRING));
}
END_TEST

START_TEST(test_type_is_subtype_of_unknown_indices_is_false) {
  int32_t dog = dog_type();
  ck_assert(!irm_type_is_subtype(-1, IRM_TYPE_OBJECT));
  ck_assert(!irm_type_is_subtype(1000000, IRM_TYPE_OBJECT));
  ck_assert(!irm_type_is_subtype(dog, -1));
  ck_assert(!irm_type_is_subtype(dog, 1000000));
}
END_TEST

START_TEST(test_object_is_checks_self_parent_and_root) {
  irm_object *d = new_object(dog_type(), 0);
  plant_type();
  ck_assert(irm_object_is(d, "test.Dog"));
  ck_assert(irm_object_is(d, "test.Animal"));
  ck_assert(irm_object_is(d, "ffi.Object"));
  ck_assert(!irm_object_is(d, "test.Plant"));
  ck_assert(!irm_object_is(d, "ffi.String"));
  irm_object *a = new_object(animal_type(), 0);
  ck_assert(irm_object_is(a, "test.Animal"));
  ck_assert(!irm_object_is(a, "test.Dog"));
  irm_object_release(a);
  irm_object_release(d);
}
END_TEST

START_TEST(test_object_is_of_null_object_or_unknown_key_is_false) {
  irm_object *d = new_object(dog_type(), 0);
  ck_assert(!irm_object_is(NULL, "ffi.Object"));
  ck_assert(!irm_object_is(d, "test.NoSuchType"));
  ck_assert(!irm_object_is(d, ""));
  irm_object_release(d);
}
END_TEST

START_TEST(test_object_is_for_builtin_containers) {
  irm_object *s = new_string("x");
  ck_assert(irm_object_is(s, "ffi.String"));
  ck_assert(irm_object_is(s, "ffi.Object"));
  ck_assert(!irm_object_is(s, "ffi.Array"));
  irm_object_release(s);
}
END_TEST

/* ---- former keys ---------------------------------------------------------- */

/* Registers key with the NULL-terminated former keys (and parent). */
static int register_renamed(const char *key, const char *parent, const char *const *former, int32_t *index) {
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.type_key = key;
  info.parent_key = parent;
  info.former_keys = former;
  return irm_type_register(&info, index);
}

START_TEST(test_former_keys_find_the_type_which_reports_its_current_key) {
  static const char *const former[] = {"test.OldWidget", "test.OlderWidget", NULL};
  int32_t index = -1, found = -1;
  ck_assert_ok(register_renamed("test.Widget", NULL, former, &index));
  ck_assert_ok(irm_type_find("test.OldWidget", &found));
  ck_assert_int_eq(found, index);
  ck_assert_ok(irm_type_find("test.OlderWidget", &found));
  ck_assert_int_eq(found, index);
  ck_assert_ok(irm_type_find("test.Widget", &found));
  ck_assert_int_eq(found, index);
  ck_assert_str_eq(irm_type_key(index), "test.Widget");
  irm_object *o = new_object(index, 0);
  ck_assert_str_eq(irm_object_type_key(o), "test.Widget");
  ck_assert(irm_object_is(o, "test.Widget"));
  ck_assert(irm_object_is(o, "test.OldWidget"));
  ck_assert(irm_object_is(o, "test.OlderWidget"));
  ck_assert(!irm_object_is(o, "test.OldestWidget"));
  irm_object_release(o);
}
END_TEST

START_TEST(test_former_keys_are_copied_and_reported_by_type_info_of) {
  char old[32];
  strcpy(old, "test.OldCopy");
  const char *former[] = {old, NULL};
  int32_t index = -1, found = -1;
  ck_assert_ok(register_renamed("test.Copy", NULL, former, &index));
  memset(old, 'x', sizeof old - 1);
  former[0] = "test.Elsewhere";
  const irm_type_info *info = irm_type_info_of(index);
  ck_assert_ptr_nonnull(info->former_keys);
  ck_assert_str_eq(info->former_keys[0], "test.OldCopy");
  ck_assert_ptr_null(info->former_keys[1]);
  ck_assert_ok(irm_type_find("test.OldCopy", &found));
  ck_assert_int_eq(found, index);
  /* A type without former keys reports none. */
  ck_assert_ptr_null(irm_type_info_of(dog_type())->former_keys);
  ck_assert_ptr_null(irm_type_info_of(IRM_TYPE_STRING)->former_keys);
}
END_TEST

START_TEST(test_former_keys_of_the_parent_and_the_children_resolve) {
  static const char *const former[] = {"test.OldBase", NULL};
  int32_t base = -1, child = -1;
  ck_assert_ok(register_renamed("test.Base", NULL, former, &base));
  /* A parent named by its former key is the renamed type. */
  ck_assert_ok(register_renamed("test.Derived", "test.OldBase", NULL, &child));
  ck_assert(irm_type_is_subtype(child, base));
  ck_assert_str_eq(irm_type_info_of(child)->parent_key, "test.Base");
  irm_object *o = new_object(child, 0);
  ck_assert(irm_object_is(o, "test.OldBase"));
  ck_assert(irm_object_is(o, "test.Base"));
  irm_object_release(o);
}
END_TEST

START_TEST(test_former_keys_are_ignored_below_their_struct_size) {
  /* A caller built before the field existed: whatever follows repr in its
   * memory is not read. */
  static const char *const former[] = {"test.NotAFormerKey", NULL};
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = (uint32_t)offsetof(irm_type_info, former_keys);
  info.type_key = "test.OldCaller";
  info.former_keys = former;
  int32_t index = -1, found = -1;
  ck_assert_ok(irm_type_register(&info, &index));
  ck_assert_ptr_null(irm_type_info_of(index)->former_keys);
  ck_assert_error(irm_type_find("test.NotAFormerKey", &found), IRM_EKEY, "KeyError: ");
}
END_TEST

START_TEST(test_former_key_already_taken_is_key_error_and_registers_nothing) {
  static const char *const first[] = {"test.OldGadget", NULL};
  int32_t gadget = -1, index = -1, found = -1;
  ck_assert_ok(register_renamed("test.Gadget", NULL, first, &gadget));
  dog_type();
  /* A former key that is another type's key... */
  static const char *const dog[] = {"test.OldGizmo", "test.Dog", NULL};
  ck_assert_error(register_renamed("test.Gizmo", NULL, dog, &index), IRM_EKEY,
                  "KeyError: type 'test.Gizmo': former key 'test.Dog' already names type 'test.Dog' (index ");
  /* ...or another type's former key. */
  static const char *const old[] = {"test.OldGadget", NULL};
  ck_assert_error(register_renamed("test.Gizmo", NULL, old, &index), IRM_EKEY,
                  "KeyError: type 'test.Gizmo': former key 'test.OldGadget' already names type "
                  "'test.Gadget' as one of its former keys");
  ck_assert_error(irm_type_find("test.Gizmo", &found), IRM_EKEY, "KeyError: ");
  ck_assert_error(irm_type_find("test.OldGizmo", &found), IRM_EKEY, "KeyError: ");
  /* A new type may not take a former key as its key either. */
  ck_assert_error(register_renamed("test.OldGadget", NULL, NULL, &index), IRM_EKEY,
                  "KeyError: type 'test.OldGadget' is already registered: it is a former key of type "
                  "'test.Gadget'");
  ck_assert_ok(irm_type_find("test.OldGadget", &found));
  ck_assert_int_eq(found, gadget);
}
END_TEST

START_TEST(test_bad_former_keys_are_value_errors) {
  int32_t index = -1, found = -1;
  static const char *const empty[] = {"test.OldA", "", NULL};
  ck_assert_error(register_renamed("test.A", NULL, empty, &index), IRM_EVALUE,
                  "ValueError: irm_type_register: former key 1 of type 'test.A' is empty");
  static const char *const own[] = {"test.A", NULL};
  ck_assert_error(register_renamed("test.A", NULL, own, &index), IRM_EVALUE,
                  "ValueError: irm_type_register: type 'test.A' lists its own key as a former key");
  static const char *const twice[] = {"test.OldA", "test.OlderA", "test.OldA", NULL};
  ck_assert_error(register_renamed("test.A", NULL, twice, &index), IRM_EVALUE,
                  "ValueError: irm_type_register: former key 'test.OldA' of type 'test.A' appears twice");
  ck_assert_error(irm_type_find("test.A", &found), IRM_EKEY, "KeyError: ");
  ck_assert_error(irm_type_find("test.OldA", &found), IRM_EKEY, "KeyError: ");
}
END_TEST

START_TEST(test_type_ensure_with_a_former_key_gives_the_renamed_type) {
  static const char *const former[] = {"test.OldSprocket", NULL};
  int32_t index = -1, again = -1;
  ck_assert_ok(register_renamed("test.Sprocket", NULL, former, &index));
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.type_key = "test.OldSprocket";
  ck_assert_ok(irm_type_ensure(&info, &again));
  ck_assert_int_eq(again, index);
}
END_TEST

START_TEST(test_unknown_key_near_a_former_key_suggests_the_current_key) {
  static const char *const former[] = {"test.LegacyThingamajig", NULL};
  int32_t index = -1;
  ck_assert_ok(register_renamed("zz.Renamed", NULL, former, &index));
  ck_assert_error(irm_type_find("test.LegacyThingamajgi", &index), IRM_EKEY,
                  "KeyError: type 'test.LegacyThingamajgi' is not registered (did you mean 'zz.Renamed'?)");
}
END_TEST

/* ---- threads ------------------------------------------------------------ */

enum { reg_threads = 4, reg_per_thread = 100 };

typedef struct register_job {
  int thread;
  int failures;
  int32_t indices[reg_per_thread];
} register_job;

static void *register_many(void *arg) {
  register_job *job = arg;
  char key[48];
  for (int i = 0; i < reg_per_thread; i++) {
    snprintf(key, sizeof key, "test.T%d_%d", job->thread, i);
    irm_type_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    info.type_key = key;
    int32_t found = -1;
    if (irm_type_register(&info, &job->indices[i]) != 0) job->failures++;
    else if (irm_type_find(key, &found) != 0 || found != job->indices[i]) job->failures++;
    /* Lookups of builtin types run while others register. */
    if (irm_type_find("ffi.Map", &found) != 0 || found != IRM_TYPE_MAP) job->failures++;
  }
  return NULL;
}

START_TEST(test_type_register_from_many_threads_gives_unique_indices) {
  pthread_t t[reg_threads];
  register_job jobs[reg_threads];
  memset(jobs, 0, sizeof jobs);
  for (int i = 0; i < reg_threads; i++) {
    jobs[i].thread = i;
    ck_assert_int_eq(pthread_create(&t[i], NULL, register_many, &jobs[i]), 0);
  }
  for (int i = 0; i < reg_threads; i++) ck_assert_int_eq(pthread_join(t[i], NULL), 0);

  static char seen[1 << 16];
  char key[48];
  for (int i = 0; i < reg_threads; i++) {
    ck_assert_int_eq(jobs[i].failures, 0);
    for (int j = 0; j < reg_per_thread; j++) {
      int32_t idx = jobs[i].indices[j];
      ck_require(idx >= IRM_TYPE_FIRST_DYNAMIC && idx < (int32_t)sizeof seen, "index %d out of the expected range",
                 (int)idx);
      ck_require(!seen[idx], "index %d given twice", (int)idx);
      seen[idx] = 1;
      snprintf(key, sizeof key, "test.T%d_%d", i, j);
      ck_require(strcmp(irm_type_key(idx), key) == 0, "index %d is '%s', not '%s'", (int)idx, irm_type_key(idx), key);
    }
  }
}
END_TEST

static atomic_int same_key_wins;
static atomic_int same_key_key_errors;

static void *register_same_key(void *arg) {
  (void)arg;
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.type_key = "test.Contended";
  int32_t idx = -1;
  int rc = irm_type_register(&info, &idx);
  if (rc == 0) atomic_fetch_add(&same_key_wins, 1);
  else if (rc == IRM_EKEY && strncmp(irm_last_error(), "KeyError: ", 10) == 0)
    atomic_fetch_add(&same_key_key_errors, 1);
  return NULL;
}

START_TEST(test_type_register_same_key_from_many_threads_succeeds_once) {
  enum { n = 8 };
  pthread_t t[n];
  for (int i = 0; i < n; i++) ck_assert_int_eq(pthread_create(&t[i], NULL, register_same_key, NULL), 0);
  for (int i = 0; i < n; i++) ck_assert_int_eq(pthread_join(t[i], NULL), 0);
  ck_assert_int_eq(atomic_load(&same_key_wins), 1);
  ck_assert_int_eq(atomic_load(&same_key_key_errors), n - 1);
}
END_TEST

START_TEST(test_type_registry_holds_a_deep_chain_of_many_types) {
  /* Objects made before the registry grows keep their type. */
  irm_object *early = new_object(dog_type(), 0);
  enum { n = 1000 };
  char key[32], parent[32];
  int32_t first = -1, last = -1;
  for (int i = 0; i < n; i++) {
    snprintf(key, sizeof key, "test.Chain%d", i);
    snprintf(parent, sizeof parent, "test.Chain%d", i - 1);
    irm_type_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    info.type_key = key;
    info.parent_key = i ? parent : NULL;
    int rc = irm_type_register(&info, &last);
    ck_require(rc == 0, "registering %s: %s", key, irm_last_error());
    if (i == 0) first = last;
  }
  ck_assert(irm_type_is_subtype(last, first));
  ck_assert(!irm_type_is_subtype(first, last));
  irm_object *o = new_object(last, 0);
  ck_assert(irm_object_is(o, "test.Chain0"));
  ck_assert(irm_object_is(o, "test.Chain500"));
  ck_assert(irm_object_is(o, "ffi.Object"));
  ck_assert(!irm_object_is(o, "test.Animal"));
  ck_assert_str_eq(irm_object_type_key(o), "test.Chain999");
  ck_assert_str_eq(irm_object_type_key(early), "test.Dog");
  ck_assert(irm_object_is(early, "test.Animal"));
  irm_object_release(o);
  irm_object_release(early);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *type_suite(void) {
  Suite *s = suite_create("type");

  TCase *tc = tcase_create("types");
  tcase_add_test(tc, test_type_register_gives_a_dynamic_index);
  tcase_add_test(tc, test_type_find_returns_the_registered_index);
  tcase_add_test(tc, test_type_find_unknown_key_suggests_closest);
  tcase_add_test(tc, test_type_find_finds_the_builtin_types);
  tcase_add_test(tc, test_type_register_duplicate_key_is_key_error);
  tcase_add_test(tc, test_type_register_builtin_key_is_key_error);
  tcase_add_test(tc, test_type_register_unknown_parent_is_key_error_with_closest);
  tcase_add_test(tc, test_type_register_null_or_empty_key_is_value_error);
  tcase_add_test(tc, test_type_register_null_info_or_out_is_value_error);
  tcase_add_test(tc, test_type_register_too_small_struct_size_is_value_error);
  tcase_add_test(tc, test_type_register_copies_info_and_strings);
  tcase_add_test(tc, test_type_info_of_keeps_the_hooks);
  tcase_add_test(tc, test_type_info_of_unknown_index_is_null);
  tcase_add_test(tc, test_type_key_of_builtin_indices);
  tcase_add_test(tc, test_type_key_of_unknown_index_is_null);
  tcase_add_test(tc, test_type_is_subtype_follows_parents);
  tcase_add_test(tc, test_type_is_subtype_of_unknown_indices_is_false);
  tcase_add_test(tc, test_object_is_checks_self_parent_and_root);
  tcase_add_test(tc, test_object_is_of_null_object_or_unknown_key_is_false);
  tcase_add_test(tc, test_object_is_for_builtin_containers);
  suite_add_tcase(s, tc);

  tc = tcase_create("former keys");
  tcase_add_test(tc, test_former_keys_find_the_type_which_reports_its_current_key);
  tcase_add_test(tc, test_former_keys_are_copied_and_reported_by_type_info_of);
  tcase_add_test(tc, test_former_keys_of_the_parent_and_the_children_resolve);
  tcase_add_test(tc, test_former_keys_are_ignored_below_their_struct_size);
  tcase_add_test(tc, test_former_key_already_taken_is_key_error_and_registers_nothing);
  tcase_add_test(tc, test_bad_former_keys_are_value_errors);
  tcase_add_test(tc, test_type_ensure_with_a_former_key_gives_the_renamed_type);
  tcase_add_test(tc, test_unknown_key_near_a_former_key_suggests_the_current_key);
  suite_add_tcase(s, tc);

  tc = tcase_create("threads");
  tcase_add_test(tc, test_type_register_from_many_threads_gives_unique_indices);
  tcase_add_test(tc, test_type_register_same_key_from_many_threads_succeeds_once);
  tcase_add_test(tc, test_type_registry_holds_a_deep_chain_of_many_types);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(type_suite()); }
