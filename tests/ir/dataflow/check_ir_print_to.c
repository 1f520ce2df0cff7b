/* The streaming printer (dataflow/text.h: irm_dataflow_print_to,
 * irm_dataflow_print_file): its pieces joined are irm_dataflow_print's text, for small
 * and large modules (many pieces), with and without elision; a refusing
 * sink stops it with a RuntimeError; bad arguments are refused. */
#include <stdio.h>
#include <stdlib.h>

#include "check_util.h"
#include "dataflow_gen.h"

typedef struct collected {
  char *data;
  size_t len, cap;
  int pieces;
  int refuse_after; /* refuse the piece after this many; -1: never */
} collected;

static int collect(void *ctx, const char *data, size_t len) {
  collected *c = ctx;
  if (c->refuse_after >= 0 && c->pieces >= c->refuse_after) return 7;
  ck_assert_uint_gt(len, 0);
  if (c->len + len + 1 > c->cap) {
    c->cap = 2 * (c->len + len + 1);
    c->data = realloc(c->data, c->cap);
    ck_assert_ptr_nonnull(c->data);
  }
  memcpy(c->data + c->len, data, len);
  c->len += len;
  c->data[c->len] = '\0';
  c->pieces++;
  return 0;
}

/* Prints mod both ways (opts may be NULL) and compares; returns the number
 * of pieces. */
static int same_text(const irm_module *mod, const irm_dataflow_print_options *opts) {
  irm_object *text = NULL;
  ck_assert_ok(irm_dataflow_print_ex(mod, opts, &text));
  collected c = {NULL, 0, 0, 0, -1};
  ck_assert_ok(irm_dataflow_print_to(mod, opts, collect, &c));
  ck_assert_uint_eq(c.len, irm_string_size(text));
  ck_assert(memcmp(c.data, irm_string_data(text), c.len) == 0);
  /* and through a FILE */
  FILE *f = tmpfile();
  ck_assert_ptr_nonnull(f);
  ck_assert_ok(irm_dataflow_print_file(mod, opts, f));
  long size = ftell(f);
  ck_assert_int_eq(size, (long)c.len);
  rewind(f);
  char *back = malloc((size_t)size + 1);
  ck_assert_uint_eq(fread(back, 1, (size_t)size, f), (size_t)size);
  ck_assert(memcmp(back, c.data, c.len) == 0);
  free(back);
  fclose(f);
  free(c.data);
  irm_object_release(text);
  return c.pieces;
}

START_TEST(test_streamed_text_is_the_printed_text) {
  irm_object *names = NULL;
  ck_assert_ok(irm_dataflow_example_model_names(&names));
  ck_assert_uint_gt(irm_array_size(names), 0);
  for (size_t i = 0; i < irm_array_size(names); i++) {
    irm_module *m = NULL;
    ck_assert_ok(irm_dataflow_example_model(irm_string_data(irm_array_at(names, i)->v_obj), &m));
    ck_assert_int_eq(same_text(m, NULL), 1); /* small: one piece */
    irm_dataflow_print_options opts = IRM_DATAFLOW_PRINT_OPTIONS_INIT;
    opts.elide_larger_than = 4;
    same_text(m, &opts);
    irm_object_release(m);
  }
  irm_object_release(names);
}
END_TEST

START_TEST(test_a_large_module_streams_in_many_pieces) {
  ck_assert_ok(irm_test_gen_ops());
  irm_module *m = irm_test_random_module(3, 40000);
  ck_assert_ptr_nonnull(m);
  ck_assert_int_gt(same_text(m, NULL), 4);
  irm_dataflow_print_options opts = IRM_DATAFLOW_PRINT_OPTIONS_INIT;
  opts.elide_larger_than = 2;
  ck_assert_int_ge(same_text(m, &opts), 1);
  /* a sink that refuses the second piece: RuntimeError, nothing more written */
  collected c = {NULL, 0, 0, 0, 1};
  ck_assert_error(irm_dataflow_print_to(m, NULL, collect, &c), IRM_ERUNTIME,
                  "RuntimeError: function 'f0': irm_dataflow_print_to: the sink refused the text (returned 7)");
  ck_assert_int_eq(c.pieces, 1);
  free(c.data);
  irm_object_release(m);
}
END_TEST

START_TEST(test_bad_arguments) {
  irm_module *m = NULL;
  ck_assert_ok(irm_dataflow_example_model("cnn", &m));
  collected c = {NULL, 0, 0, 0, -1};
  ck_assert_error(irm_dataflow_print_to(m, NULL, NULL, &c), IRM_EVALUE,
                  "ValueError: irm_dataflow_print_to: sink must not be NULL");
  ck_assert_error(irm_dataflow_print_file(m, NULL, NULL), IRM_EVALUE,
                  "ValueError: irm_dataflow_print_file: file must not be NULL");
  irm_object *not_a_module = NULL;
  ck_assert_ok(irm_map_new(&not_a_module));
  ck_assert_error(irm_dataflow_print_to((irm_module *)not_a_module, NULL, collect, &c), IRM_ETYPE,
                  "TypeError: ir.Print: expected ir.IRModule, got ffi.Map");
  irm_dataflow_print_options bad = IRM_DATAFLOW_PRINT_OPTIONS_INIT;
  bad.elide_larger_than = -1;
  ck_assert_error(irm_dataflow_print_to(m, &bad, collect, &c), IRM_EVALUE,
                  "ValueError: irm_dataflow_print_to: elide_larger_than must be 0");
  ck_assert_int_eq(c.pieces, 0);
  irm_object_release(not_a_module);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ir_print_to");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_streamed_text_is_the_printed_text);
  tcase_add_test(tc, test_a_large_module_streams_in_many_pieces);
  tcase_add_test(tc, test_bad_arguments);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
