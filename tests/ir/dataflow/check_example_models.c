/* The built-in example models (dataflow/text.h: irm_dataflow_example_model*, and the
 * global ir.ExampleModel): their texts are the files of examples/models/,
 * they parse, type-check, verify and run, their parameters are the same
 * on every call, and the errors name the closest model. main() installs
 * a counting allocator, so one test also sweeps allocation failures. */
#include <math.h>
#include <stdio.h>

#include "check_alloc_util.h"

#ifndef IRM_EXAMPLE_MODELS_DIR
#error "tests/CMakeLists.txt passes IRM_EXAMPLE_MODELS_DIR, the path of examples/models"
#endif

static const char *const model_names[] = {"cnn", "mlp", "residual"};
enum { N_MODELS = sizeof model_names / sizeof model_names[0] };

/* The contents of examples/models/<name>.irm (malloc'd). */
static char *read_model_file(const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.irm", IRM_EXAMPLE_MODELS_DIR, name);
  FILE *f = fopen(path, "rb");
  ck_require(f != NULL, "cannot open %s", path);
  ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
  long size = ftell(f);
  ck_assert_int_ge(size, 0);
  rewind(f);
  char *text = malloc((size_t)size + 1);
  ck_assert_ptr_nonnull(text);
  ck_assert_uint_eq(fread(text, 1, (size_t)size, f), (size_t)size);
  text[size] = '\0';
  fclose(f);
  return text;
}

static irm_module *model(const char *name) {
  irm_module *m = NULL;
  ck_assert_ok(irm_dataflow_example_model(name, &m));
  ck_assert_ptr_nonnull(m);
  return m;
}

static int modules_equal(const irm_module *a, const irm_module *b) {
  irm_any va = irm_any_object((irm_object *)a), vb = irm_any_object((irm_object *)b);
  return equal(&va, &vb);
}

START_TEST(names_list_the_models) {
  irm_object *names = NULL;
  ck_assert_ok(irm_dataflow_example_model_names(&names));
  ck_assert_uint_eq(irm_array_size(names), N_MODELS);
  for (size_t i = 0; i < N_MODELS; i++)
    ck_assert_str_eq(irm_string_data(irm_array_at(names, i)->v_obj), model_names[i]);
  irm_object_release(names);
  ck_assert_error(irm_dataflow_example_model_names(NULL), IRM_EVALUE, "ValueError: irm_dataflow_example_model_names");
}
END_TEST

/* The built-in texts are the files of examples/models/, byte for byte. */
START_TEST(texts_are_the_files) {
  for (size_t i = 0; i < N_MODELS; i++) {
    char *file = read_model_file(model_names[i]);
    const char *text = irm_dataflow_example_model_text(model_names[i]);
    ck_assert_ptr_nonnull(text);
    ck_require(strcmp(file, text) == 0,
               "examples/models/%s.irm differs from the built-in text of ir/dataflow/example_models.c:\n"
               "--- file ---\n%s\n--- built-in ---\n%s",
               model_names[i], file, text);
    free(file);
  }
  ck_assert_ptr_eq(irm_dataflow_example_model_text(NULL), irm_dataflow_example_model_text("cnn"));
  ck_assert_ptr_null(irm_dataflow_example_model_text("nope"));
  ck_assert_ptr_null(irm_dataflow_example_model_text(""));
}
END_TEST

/* Each text is what the printer gives for it, its comments aside. */
START_TEST(texts_print_as_written) {
  for (size_t i = 0; i < N_MODELS; i++) {
    const char *text = irm_dataflow_example_model_text(model_names[i]);
    char *expected = malloc(strlen(text) + 1), *o = expected;
    for (const char *line = text; *line;) {
      const char *end = strchr(line, '\n');
      size_t n = end ? (size_t)(end - line) + 1 : strlen(line);
      if (strncmp(line, "//", 2) != 0) {
        memcpy(o, line, n);
        o += n;
      }
      line += n;
    }
    *o = '\0';
    irm_module *m = NULL;
    irm_object *printed = NULL;
    ck_assert_ok(irm_dataflow_parse(text, strlen(text), &m));
    ck_assert_ok(irm_dataflow_print(m, &printed));
    ck_assert_str_eq(irm_string_data(printed), expected);
    irm_object_release(printed);
    irm_object_release(m);
    free(expected);
  }
}
END_TEST

/* The module: the text's functions and mod_name, plus params for every
 * parameter of @main but the input, typed as the parameter. */
START_TEST(model_has_params_for_its_weights) {
  for (size_t i = 0; i < N_MODELS; i++) {
    irm_module *m = model(model_names[i]);
    ck_assert_str_eq(irm_module_mod_name(m), model_names[i]);
    irm_object *f = irm_module_function(m, "main");
    ck_assert_ptr_nonnull(f);
    ck_assert_str_eq(irm_var_name(irm_function_param(f, 0)), "data");
    irm_object *params = irm_module_params(m);
    ck_assert_ptr_nonnull(params);
    size_t n = irm_function_param_count(f);
    ck_assert_uint_eq(irm_map_size(params), n - 1);
    for (size_t p = 1; p < n; p++) {
      irm_object *var = irm_function_param(f, p), *type = NULL;
      const irm_any *v = irm_map_find_cstr(params, irm_var_name(var));
      ck_require(v && irm_is_tensor(v->v_obj), "%s: no tensor for %s", model_names[i], irm_var_name(var));
      ck_assert_ok(irm_tensor_type_of(v->v_obj, &type));
      ck_require(irm_dataflow_type_equal(type, irm_expr_type(var)), "%s: %s has the wrong type", model_names[i],
                 irm_var_name(var));
      irm_object_release(type);
      /* He-scaled: within sqrt(6 / fan_in) for weights, 0.1 for biases, and not constant. */
      const DLTensor *dl = irm_tensor_dl(v->v_obj);
      int64_t numel = irm_tensor_numel(v->v_obj);
      double limit = dl->ndim >= 2 ? sqrt(6.0 / (double)(numel / dl->shape[0])) : 0.1, lo = 1e9, hi = -1e9;
      for (int64_t k = 0; k < numel; k++) {
        double x = irm_tensor_get_f64(v->v_obj, k);
        ck_require(fabs(x) <= limit * (1 + 1e-6), "%s: %s[%lld] = %g beyond %g", model_names[i], irm_var_name(var),
                   (long long)k, x, limit);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
      }
      ck_assert(lo < 0 && hi > 0 && hi - lo > limit / 2);
    }
    ck_assert_ok(irm_dataflow_verify(m));
    irm_object_release(m);
  }
}
END_TEST

/* The same bits on every call and every machine: the values are pinned. */
START_TEST(params_are_fixed) {
  irm_module *a = model("cnn"), *b = model(NULL);
  ck_assert(modules_equal(a, b));
  irm_object *w = irm_map_find_cstr(irm_module_params(a), "conv1_weight")->v_obj;
  ck_assert_float_eq((float)irm_tensor_get_f64(w, 0), -0.232159451f);
  ck_assert_float_eq((float)irm_tensor_get_f64(w, 215), -0.234928504f);
  irm_object *d = irm_map_find_cstr(irm_module_params(a), "dense_bias")->v_obj;
  ck_assert_float_eq((float)irm_tensor_get_f64(d, 0), -0.00673669577f);
  irm_object_release(a);
  irm_object_release(b);
  irm_module *r = model("residual");
  w = irm_map_find_cstr(irm_module_params(r), "fc_weight")->v_obj;
  ck_assert_float_eq((float)irm_tensor_get_f64(w, 0), 0.809979498f);
  irm_object_release(r);
}
END_TEST

/* InferType types every model to (1, 10) float32, and evaluating it on an
 * input gives probabilities that sum to 1. */
START_TEST(models_type_check_and_run) {
  for (size_t i = 0; i < N_MODELS; i++) {
    irm_module *m = model(model_names[i]), *typed = NULL;
    ck_assert_ok(irm_dataflow_infer_type(m, &typed));
    ck_assert_ok(irm_dataflow_verify(typed));
    irm_object *f = irm_module_function(typed, "main");
    irm_object *ret = irm_function_ret_type(f);
    ck_assert_int_eq(irm_tensor_type_ndim(ret), 2);
    ck_assert_int_eq(irm_tensor_type_shape(ret)[1], 10);
    ck_assert(irm_dataflow_type_equal(ret, irm_expr_type(irm_function_body(f))));
    /* inputs: the data (a ramp), then the params in parameter order */
    irm_object *params = irm_module_params(m), *inputs = NULL;
    ck_assert_ok(irm_array_new(NULL, 0, &inputs));
    for (size_t p = 0; p < irm_function_param_count(f); p++) {
      irm_object *var = irm_function_param(f, p), *t = NULL;
      if (p == 0) {
        irm_object *type = irm_expr_type(var);
        ck_assert_ok(irm_tensor_new(irm_tensor_type_dtype(type), irm_tensor_type_shape(type),
                                    irm_tensor_type_ndim(type), NULL, &t));
        for (int64_t k = 0; k < irm_tensor_numel(t); k++) irm_tensor_set_f64(t, k, (double)(k % 17) / 8.0 - 1.0);
      } else {
        t = irm_map_find_cstr(params, irm_var_name(var))->v_obj;
        irm_object_retain(t);
      }
      irm_any v = irm_any_object(t);
      ck_assert_ok(irm_array_append_move(&inputs, &v));
      irm_object_release(t);
    }
    irm_any out;
    ck_assert_ok(irm_dataflow_evaluate(m, "main", inputs, &out));
    ck_assert(irm_is_tensor(out.v_obj));
    ck_assert_int_eq(irm_tensor_numel(out.v_obj), 10);
    double sum = 0;
    for (int64_t k = 0; k < 10; k++) {
      double x = irm_tensor_get_f64(out.v_obj, k);
      ck_assert(x > 0 && x < 1);
      sum += x;
    }
    ck_assert_double_eq_tol(sum, 1.0, 1e-5);
    irm_any_release(&out);
    irm_object_release(inputs);
    irm_object_release(typed);
    irm_object_release(m);
  }
}
END_TEST

START_TEST(unknown_names_suggest_the_closest) {
  irm_module *m = NULL;
  ck_assert_error(irm_dataflow_example_model("cnnn", &m), IRM_EKEY,
                  "KeyError: unknown example model 'cnnn' (did you mean 'cnn'?)");
  ck_assert_ptr_null(m);
  ck_assert_error(irm_dataflow_example_model("resnet", &m), IRM_EKEY,
                  "KeyError: unknown example model 'resnet' (the models: cnn, mlp, residual)");
  ck_assert_str_eq(irm_last_error(), "KeyError: unknown example model 'resnet' (the models: cnn, mlp, residual)");
  ck_assert_error(irm_dataflow_example_model("residul", &m), IRM_EKEY,
                  "KeyError: unknown example model 'residul' (did you mean 'residual'?)");
  ck_assert_error(irm_dataflow_example_model("", &m), IRM_EKEY, "KeyError: unknown example model ''");
  ck_assert_ptr_null(m);
  ck_assert_error(irm_dataflow_example_model("cnn", NULL), IRM_EVALUE,
                  "ValueError: irm_dataflow_example_model: out is NULL");
}
END_TEST

START_TEST(the_global) {
  irm_object *none = NULL;
  irm_object *a = call_obj("ir.ExampleModel", NULL, 0, "ir.IRModule");
  irm_any arg = irm_any_object(none);
  irm_object *b = call_obj("ir.ExampleModel", &arg, 1, "ir.IRModule");
  irm_any name = irm_any_str("cnn");
  irm_object *c = call_obj("ir.ExampleModel", &name, 1, "ir.IRModule");
  ck_assert(modules_equal(a, b) && modules_equal(a, c));
  irm_object *s = new_string("mlp");
  irm_any str = irm_any_object(s);
  irm_object *d = call_obj("ir.ExampleModel", &str, 1, "ir.IRModule");
  ck_assert_str_eq(irm_module_mod_name(d), "mlp");
  irm_object_release(s);
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(c);
  irm_object_release(d);

  irm_any bad = irm_any_str("mpl");
  ck_assert_int_eq(call_fails("ir.ExampleModel", &bad, 1), IRM_EKEY);
  ck_assert_str_eq(irm_last_error(), "KeyError: ir.ExampleModel: unknown example model 'mpl' (did you mean 'mlp'?)");
  irm_any num = irm_any_int(3);
  ck_assert_int_eq(call_fails("ir.ExampleModel", &num, 1), IRM_ETYPE);
  ck_assert_last_error("TypeError: ir.ExampleModel: argument 1");
  irm_any two[2] = {irm_any_str("cnn"), irm_any_str("mlp")};
  ck_assert_int_eq(call_fails("ir.ExampleModel", two, 2), IRM_ETYPE);
  ck_assert_last_error("TypeError: ir.ExampleModel takes");
  /* a String with a NUL inside names no model, even if its start does */
  ck_assert_ok(irm_string_new("cnn\0x", 5, &s));
  str = irm_any_object(s);
  ck_assert_int_eq(call_fails("ir.ExampleModel", &str, 1), IRM_EKEY);
  ck_assert_last_error("KeyError: ir.ExampleModel: unknown example model 'cnn");
  irm_object_release(s);
}
END_TEST

/* Out of memory at each sampled allocation: MemoryError (or success when
 * the failure was not met), nothing leaked. */
START_TEST(allocation_failures) {
  irm_module *warm = model("residual");
  irm_object_release(warm);
  settle_error();
  uint64_t salt = sweep_salt("example_model", fail_nth);
  long n = 1, tried = 0;
  for (; n < sweep_cap; n = sweep_next(n, salt), tried++) {
    long blocks = atomic_load(&live_blocks);
    long before = atomic_load(&injected);
    irm_module *m = NULL;
    fail_nth_from_now(n);
    int rc = irm_dataflow_example_model("residual", &m);
    stop_failing();
    int met = atomic_load(&injected) != before;
    if (rc) {
      ck_require(rc == IRM_ENOMEM, "N=%ld: status %d (%s)", n, rc, irm_last_error());
      ck_require(m == NULL, "N=%ld: a result after failing", n);
    } else {
      irm_object_release(m);
    }
    settle_error();
    ck_require(atomic_load(&live_blocks) == blocks, "N=%ld: %ld blocks leaked", n, atomic_load(&live_blocks) - blocks);
    if (!rc && !met) break;
  }
  ck_require(n < sweep_cap, "the sweep did not finish");
  sweep_note("example_model", "nth", n, tried, 0);
}
END_TEST

int main(void) {
  if (install_counting_allocator("check_example_models")) return EXIT_FAILURE;
  Suite *s = suite_create("example_models");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, names_list_the_models);
  tcase_add_test(tc, texts_are_the_files);
  tcase_add_test(tc, texts_print_as_written);
  tcase_add_test(tc, model_has_params_for_its_weights);
  tcase_add_test(tc, params_are_fixed);
  tcase_add_test(tc, models_type_check_and_run);
  tcase_add_test(tc, unknown_names_suggest_the_closest);
  tcase_add_test(tc, the_global);
  tcase_add_test(tc, allocation_failures);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
