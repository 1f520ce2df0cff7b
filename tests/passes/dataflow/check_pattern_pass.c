/* The pattern driver and pattern passes (pattern_pass.h): rules applied to
 * a fixed point, the root-op index, benefit order, the iteration bound and
 * its error, the type guard, verification, the unchanged fast path, passes
 * by name, in pipelines and from other languages, conditions reading
 * module attributes and PassContext configs, and rules files loaded as
 * plugins (with their errors and rollback). */
#include <stdio.h>
#include <unistd.h>

#include "check_ir_pass_util.h"

#define T23 "Tensor[(2, 3), float32]"

static irm_module *typed_main(const char *params, const char *body) {
  char text[4096];
  snprintf(text, sizeof text, IP_HEAD "def @main(%s) {\n%s}\n", params, body);
  return ip_typed(text);
}

static irm_object *parse_rules(const char *text) {
  irm_object *rules = NULL;
  int rc = irm_rewrite_rules_parse(text, strlen(text), &rules);
  ck_require(rc == 0, "rules failed to parse: %s\n%s", irm_last_error(), text);
  return rules;
}

/* Runs rules as a pass on m. Returns the status; *out NEW. */
static int run_rules(const char *rules_text, irm_module *m, irm_module **out) {
  irm_object *rules = parse_rules(rules_text);
  irm_pass *p = NULL;
  ck_assert_ok(irm_pattern_pass("Rules", rules, 0, &p));
  int rc = irm_pass_run(p, m, out);
  irm_object_release((irm_object *)p);
  irm_object_release(rules);
  return rc;
}

static void check_rewrites(const char *rules, const char *params, const char *body, const char *want_body) {
  irm_module *m = typed_main(params, body), *want = typed_main(params, want_body), *out = NULL;
  ck_assert_ok(run_rules(rules, m, &out));
  ip_assert_equal(out, want);
  irm_object_release(m);
  irm_object_release(want);
  irm_object_release(out);
}

START_TEST(test_relu_to_max_on_cnn) {
  irm_module *raw = NULL, *out = NULL;
  ck_assert_ok(irm_dataflow_example_model("cnn", &raw));
  ck_assert_ok(run_rules("rule relu_to_max : nn.relu(%x) => maximum(%x, const(0f))", raw, &out));
  ck_assert_ptr_ne(out, raw);
  char *text = ip_text(out);
  ck_assert_msg(strstr(text, "nn.relu") == NULL, "a relu is left:\n%s", text);
  ck_assert_ptr_nonnull(strstr(text, "maximum("));
  free(text);
  ck_assert_ok(irm_dataflow_verify(out));
  irm_object_release(raw);
  irm_object_release(out);
}
END_TEST

START_TEST(test_fixed_point_and_chains) {
  /* children first, then the rules again at each replacement */
  check_rewrites("rule mul1 : multiply(%x, %c: const) where value(%c) == 1 => %x\n"
                 "rule add0 : add(%x, %c: const) where value(%c) == 0 => %x\n",
                 "%x: " T23,
                 "  %0 = multiply(%x, const(float32, [], [1]));\n  %1 = add(%0, const(float32, [], [0]));\n"
                 "  %2 = multiply(%1, const(float32, [], [1]));\n  %3 = nn.relu(%2);\n  %3\n",
                 "  %0 = nn.relu(%x);\n  %0\n");
  /* a replacement's inner nodes are rewritten in a later round */
  check_rewrites("rule swap : exp(nn.relu(%x)) => sqrt(negative(%x))\nrule neg : negative(%x) => nn.relu(%x)\n",
                 "%x: " T23, "  %0 = nn.relu(%x);\n  %1 = exp(%0);\n  %1\n",
                 "  %0 = nn.relu(%x);\n  %1 = sqrt(%0);\n  %1\n");
}
END_TEST

START_TEST(test_unchanged_is_the_input) {
  irm_module *m = typed_main("%x: " T23, "  %0 = multiply(%x, const(float32, [], [2]));\n  %1 = nn.relu(%0);\n  %1\n"),
             *out = NULL;
  ck_assert_ok(run_rules("rule mul1 : multiply(%x, %c: const) where value(%c) == 1 => %x\n", m, &out));
  ck_assert_ptr_eq(out, m);
  irm_object_release(out);
  irm_object *rules = parse_rules("rule mul1 : multiply(%x, %c: const) where value(%c) == 1 => %x\n"), *e = NULL;
  irm_object *body = irm_function_body(irm_module_function(m, "main"));
  ck_assert_ok(irm_pattern_rewrite(rules, body, NULL, &e));
  ck_assert_ptr_eq(e, body);
  irm_object_release(e);
  irm_object_release(rules);
  irm_object_release(m);
}
END_TEST

START_TEST(test_type_guard) {
  /* the constant broadcasts x to (2, 3): dropping it would change the type */
  irm_module *m = typed_main("%x: Tensor[(3,), float32]",
                             "  %0 = multiply(%x, const(float32, [2, 3], [1, 1, 1, 1, 1, 1]));\n  %0\n"),
             *out = NULL;
  ck_assert_ok(run_rules("rule mul1 : multiply(%x, %c: const) where value(%c) == 1 => %x\n", m, &out));
  ck_assert_ptr_eq(out, m);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

START_TEST(test_benefit_orders_rules) {
  check_rewrites(
      "rule to_exp benefit 1 : nn.relu(%x) => exp(%x)\nrule to_neg benefit 5 : nn.relu(%x) => negative(%x)\n",
      "%x: " T23, "  %0 = nn.relu(%x);\n  %0\n", "  %0 = negative(%x);\n  %0\n");
  check_rewrites(
      "rule to_exp benefit 9 : nn.relu(%x) => exp(%x)\nrule to_neg benefit 5 : nn.relu(%x) => negative(%x)\n",
      "%x: " T23, "  %0 = nn.relu(%x);\n  %0\n", "  %0 = exp(%x);\n  %0\n");
  /* equal benefits: in the order given */
  check_rewrites("rule to_neg : nn.relu(%x) => negative(%x)\nrule to_exp : nn.relu(%x) => exp(%x)\n", "%x: " T23,
                 "  %0 = nn.relu(%x);\n  %0\n", "  %0 = negative(%x);\n  %0\n");
}
END_TEST

static int count_calls(void *ctx, irm_object *matched, const irm_object *captures, irm_object **out) {
  (void)matched;
  (void)captures;
  (*(int *)ctx)++;
  *out = NULL;
  return IRM_OK;
}

static irm_object *counting_rule(const char *name, irm_object *lhs, int *calls) {
  irm_object *rule = NULL;
  ck_assert_ok(irm_rewrite_rule_new_callback(name, lhs, count_calls, calls, NULL, 0, &rule));
  return rule;
}

/* A rule is tried only at nodes of its root op; a rule rooted anywhere at
 * every node. */
START_TEST(test_root_op_index) {
  irm_module *raw = NULL, *m = NULL, *out = NULL;
  ck_assert_ok(irm_dataflow_example_model("cnn", &raw));
  ck_assert_ok(irm_dataflow_infer_type(raw, &m));
  int softmax_calls = 0, any_calls = 0;
  irm_object *op = NULL, *lhs = NULL, *w = NULL;
  ck_assert_ok(irm_pattern_op("nn.softmax", &op));
  ck_assert_ok(irm_pattern_call(op, NULL, 0, &lhs));
  ck_assert_ok(irm_pattern_wildcard(&w));
  irm_any items[2] = {irm_any_object(counting_rule("soft", lhs, &softmax_calls)),
                      irm_any_object(counting_rule("any", w, &any_calls))};
  irm_object *rules = new_array(items, 2);
  irm_any_release(&items[0]);
  irm_any_release(&items[1]);
  ck_assert_ok(irm_pattern_rewrite(rules, irm_module_function(m, "main"), m, &out));
  ck_assert_ptr_eq(out, irm_module_function(m, "main"));
  ck_assert_int_eq(softmax_calls, 1);
  ck_assert_msg(any_calls > 20, "the anywhere rule saw %d nodes", any_calls);
  irm_object_release((irm_object *)out);
  irm_object *objs[] = {op, lhs, w, rules};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
  irm_object_release(raw);
  irm_object_release(m);
}
END_TEST

START_TEST(test_iteration_bound_names_rules) {
  irm_module *m = typed_main("%x: " T23, "  %0 = exp(%x);\n  %0\n"), *out = (irm_module *)&out;
  ck_assert_error(
      run_rules("rule a : exp(%x) => sqrt(%x)\nrule b : sqrt(%x) => exp(%x)\nrule c : nn.relu(%x) => %x\n", m, &out),
      IRM_EVALUE,
      "ValueError: in pass 'Rules': in function 'main': the rules kept firing at one expression after 32 iterations: a, b");
  ck_assert_ptr_null(out);
  ck_assert_error(
      run_rules("rule grow : exp(%x) => sqrt(exp(%x))\n", m, &out), IRM_EVALUE,
      "ValueError: in pass 'Rules': in function 'main': the rules kept firing round after round after 32 iterations: grow");
  /* the bound is a setting */
  irm_any four = irm_any_int(4);
  irm_object *cfg = map1("PatternPass.max_iterations", four);
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(0, NULL, NULL, cfg, NULL, &ctx));
  ck_assert_ok(irm_pass_context_enter(ctx));
  ck_assert_error(
      run_rules("rule grow : exp(%x) => sqrt(exp(%x))\n", m, &out), IRM_EVALUE,
      "ValueError: in pass 'Rules': in function 'main': the rules kept firing round after round after 4 iterations: grow");
  ck_assert_ok(irm_pass_context_exit(ctx));
  irm_object_release((irm_object *)ctx);
  irm_object_release(cfg);
  irm_object_release(m);
}
END_TEST

/* Issue 39, D4: a rule that doubles the program each round stops at the
 * growth bound (or the time bound), naming the rules that fired most. */
static void with_config(const char *key, irm_any value, const char *rules, irm_module *m, const char *want) {
  irm_object *cfg = map1(key, value);
  irm_pass_context *ctx = NULL;
  irm_module *out = (irm_module *)&out;
  ck_assert_ok(irm_pass_context_new(0, NULL, NULL, cfg, NULL, &ctx));
  ck_assert_ok(irm_pass_context_enter(ctx));
  ck_assert_int_eq(run_rules(rules, m, &out), IRM_EVALUE);
  ck_assert_error_mentions(want);
  ck_assert_ptr_null(out);
  ck_assert_ok(irm_pass_context_exit(ctx));
  irm_object_release((irm_object *)ctx);
  irm_object_release(cfg);
}

START_TEST(test_growth_and_time_bounds_name_rules) {
  irm_module *m = typed_main("%x: " T23, "  %0 = nn.relu(%x);\n  %0\n"), *out = (irm_module *)&out;
  const char *doubling = "rule double : nn.relu(%x) => add(nn.relu(%x), nn.relu(%x))\nrule never : exp(%x) => %x\n";
  ck_assert_error(run_rules(doubling, m, &out), IRM_EVALUE,
                  "ValueError: in pass 'Rules': in function 'main': the rules grew the expression from 4 to 515 nodes");
  ck_assert_error_mentions("nodes, more than 4 times (PatternPass.max_growth); the rules that fired most: double (");
  ck_assert_ptr_null(out);
  with_config("PatternPass.max_growth", irm_any_float(1000), doubling, m, "more than 1000 times");
  /* the time bound, looked at every 64 firings: 1 ns has passed by then */
  with_config(
      "PatternPass.max_seconds", irm_any_float(1e-9), doubling, m,
      "the rules ran longer than 1e-09 s (PatternPass.max_seconds); the rules that fired most: double (64 times)");
  with_config("PatternPass.max_growth", irm_any_float(-1), doubling, m, "PatternPass.max_growth must be >= 0");
  irm_object_release(m);
}
END_TEST

static int bad_scope(void *ctx, irm_object *matched, const irm_object *captures, irm_object **out) {
  (void)ctx;
  (void)captures;
  irm_object *v = NULL, *t = irm_expr_type(matched);
  int rc = irm_var_new("stray", t, &v); /* a variable nothing binds */
  *out = v;
  return rc;
}

START_TEST(test_rewritten_functions_are_verified) {
  irm_object *op = NULL, *lhs = NULL, *rule = NULL;
  ck_assert_ok(irm_pattern_op("nn.relu", &op));
  ck_assert_ok(irm_pattern_call(op, NULL, 0, &lhs));
  ck_assert_ok(irm_rewrite_rule_new_callback("stray", lhs, bad_scope, NULL, NULL, 0, &rule));
  irm_any item = irm_any_object(rule);
  irm_object *rules = new_array(&item, 1);
  irm_pass *p = NULL;
  ck_assert_ok(irm_pattern_pass("Stray", rules, 0, &p));
  irm_module *m = typed_main("%x: " T23, "  %0 = nn.relu(%x);\n  %0\n"), *out = (irm_module *)&out;
  ck_assert_error(irm_pass_run(p, m, &out), IRM_EVALUE,
                  "ValueError: in pass 'Stray': in function 'main': the rewritten function does not verify: ");
  ck_assert_ptr_null(out);
  irm_object *objs[] = {op, lhs, rule, rules, (irm_object *)p, (irm_object *)m};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_pass_by_name_pipeline_and_globals) {
  irm_object *rules = parse_rules("rule relu_to_max : nn.relu(%x) => maximum(%x, const(0f))");
  ck_assert_ok(irm_pattern_pass_register("LowerReluRules", rules, 1));
  ck_assert_error(irm_pattern_pass_register("LowerReluRules", rules, 1), IRM_EKEY, "KeyError: "); /* taken */
  irm_module *m = ip_parse(IP_HEAD "def @main(%x: " T23 ") {\n  %0 = nn.relu(%x);\n  %0\n}\n"), *out = NULL,
             *want = typed_main("%x: " T23, "  %0 = maximum(%x, const(float32, [], [0]));\n  %0\n");
  /* untyped input: the Sequential runs InferType, which the pass requires */
  ck_assert_ok(ip_pipeline("Sequential(LowerReluRules)", m, &out));
  ip_assert_equal(out, want);
  irm_object_release(out);
  ck_assert_ok(ip_run_named("LowerReluRules", m, &out)); /* alone on untyped IR: fires without the type guard */
  irm_module *untyped_want =
      ip_parse(IP_HEAD "def @main(%x: " T23 ") {\n  %0 = maximum(%x, const(float32, [], [0]));\n  %0\n}\n");
  ip_assert_equal(out, untyped_want);
  irm_object_release(untyped_want);
  irm_object_release(out);
  /* transform.PatternPass(name, rules) */
  irm_any args[3] = {irm_any_str("FromGlobal"), irm_any_object(rules), irm_any_int(2)};
  irm_object *p = call_obj("transform.PatternPass", args, 3, "transform.Pass");
  ck_assert_str_eq(irm_pass_name((irm_pass *)p), "FromGlobal");
  ck_assert_int_eq(irm_pass_opt_level((irm_pass *)p), 2);
  irm_object_release(p);
  irm_any reg[2] = {irm_any_str("FromGlobalRegistered"), irm_any_object(rules)};
  irm_any none = call_ok("transform.RegisterPatternPass", reg, 2);
  irm_any_release(&none);
  ck_assert_ok(ip_pipeline("Sequential(FromGlobalRegistered)", m, &out));
  ip_assert_equal(out, want);
  irm_object_release(out);
  /* errors */
  irm_any bad[2] = {irm_any_str("Bad"), irm_any_object(m)};
  ck_assert(call_fails("transform.PatternPass", bad, 2));
  ck_assert_error_mentions("transform.PatternPass");
  irm_object *not_rules = NULL;
  irm_any one = irm_any_int(1);
  not_rules = new_array(&one, 1);
  irm_pass *q = (irm_pass *)&q;
  ck_assert_error(irm_pattern_pass("X", not_rules, 0, &q), IRM_ETYPE,
                  "TypeError: irm_pattern_pass: rules item 0: expected a dataflow.RewriteRule, got int 1");
  ck_assert_ptr_null(q);
  ck_assert_error(irm_pattern_pass_register("SimplifyExpr", rules, 0), IRM_EKEY, "KeyError: ");
  ck_assert_error(irm_pattern_pass_register("", rules, 0), IRM_EVALUE, "ValueError: irm_pattern_pass_register");
  irm_object_release(not_rules);
  irm_object_release(rules);
  irm_object_release(m);
  irm_object_release(want);
}
END_TEST

/* where attr(...) reads module attributes, then PassContext configs. */
START_TEST(test_conditions_read_attrs_and_configs) {
  const char *rules = "rule unplanned : nn.relu(%x) where attr(usmp.enable) == false => exp(%x)\n";
  irm_module *m = typed_main("%x: " T23, "  %0 = nn.relu(%x);\n  %0\n"), *out = NULL, *with = NULL;
  ck_assert_ok(run_rules(rules, m, &out));
  ck_assert_ptr_eq(out, m); /* unset: the config's default, true */
  irm_object_release(out);
  irm_any no = irm_any_bool(false);
  ck_assert_ok(irm_module_with_attr(m, "usmp.enable", &no, &with));
  ck_assert_ok(run_rules(rules, with, &out));
  ck_assert_ptr_ne(out, with);
  irm_object_release(out);
  irm_object *cfg = map1("usmp.enable", no);
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(0, NULL, NULL, cfg, NULL, &ctx));
  ck_assert_ok(irm_pass_context_enter(ctx));
  ck_assert_ok(run_rules(rules, m, &out));
  ck_assert_ptr_ne(out, m);
  irm_object_release(out);
  ck_assert_ok(irm_pass_context_exit(ctx));
  irm_object_release((irm_object *)ctx);
  irm_object_release(cfg);
  irm_object_release(with);
  irm_object_release(m);
}
END_TEST

/* A rules file in a fresh temporary folder. Returns the path (static). */
static const char *write_rules(const char *dir, const char *name, const char *text) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  return path;
}

static int pass_registered(const char *name) {
  irm_object *names = NULL;
  ck_assert_ok(irm_pass_list(&names));
  int found = array_has_string(names, name);
  irm_object_release(names);
  return found;
}

/* How many loaded plugins plugin.List names name. */
static size_t listed(const char *name) {
  irm_object *list = NULL;
  ck_assert_ok(irm_plugin_list(&list));
  size_t n = 0;
  for (size_t i = 0; i < irm_array_size(list); i++)
    n += strcmp(irm_string_data(irm_map_find_cstr(irm_array_at(list, i)->v_obj, "name")->v_obj), name) == 0;
  irm_object_release(list);
  return n;
}

START_TEST(test_rules_file_as_plugin) {
  char dir[] = "/tmp/irm_rules_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  const char *path =
      write_rules(dir, "lower.rules",
                  "// lowers relu\npass FileLowerRelu opt_level 1 {\n"
                  "  rule relu_to_max : nn.relu(%x) => maximum(%x, const(0f))\n}\n"
                  "pass FileFoldScale {\n"
                  "  rule fold_scale : multiply(%x, %s: const) where shape(%s) == () && value(%s) == 1 => %x\n}\n");
  ck_assert_ok(irm_plugin_load(path));
  ck_assert(pass_registered("FileLowerRelu"));
  ck_assert(pass_registered("FileFoldScale"));
  irm_object *info = NULL;
  ck_assert_ok(irm_plugin_load_info(path, &info)); /* loaded already: nothing to do but the info */
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(info, "name")->v_obj), "lower.rules");
  irm_object_release(info);
  ck_assert_uint_eq(listed("lower.rules"), 1);
  irm_module *m = ip_parse(IP_HEAD "def @main(%x: " T23 ") {\n  %0 = multiply(%x, const(float32, [], [1]));\n"
                                   "  %1 = nn.relu(%0);\n  %1\n}\n"),
             *out = NULL, *want = typed_main("%x: " T23, "  %0 = maximum(%x, const(float32, [], [0]));\n  %0\n");
  ck_assert_ok(ip_pipeline("Sequential(FileFoldScale,FileLowerRelu)", m, &out));
  ip_assert_equal(out, want);
  irm_object_release(out);
  irm_object_release(m);
  irm_object_release(want);
  remove(path);
  rmdir(dir);
}
END_TEST

START_TEST(test_bad_rules_file_rolls_back) {
  char dir[] = "/tmp/irm_rules_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  /* the first pass is fine, the second fails to register: neither stays */
  const char *path = write_rules(dir, "clash.rules",
                                 "pass RollbackFirst {\n  rule r : nn.relu(%x) => %x\n}\n"
                                 "pass SimplifyExpr {\n  rule r : nn.relu(%x) => %x\n}\n");
  char err_prefix[600];
  ck_assert_int_eq(irm_plugin_load(path), IRM_EPLUGIN);
  snprintf(err_prefix, sizeof err_prefix, "PluginError: cannot load plugin '%s': ", path);
  ck_assert_last_error(err_prefix);
  ck_assert_error_mentions("pass 'SimplifyExpr'");
  ck_assert(!pass_registered("RollbackFirst"));
  ck_assert_uint_eq(listed("clash.rules"), 0);
  remove(path);
  /* a syntax error: file, line and column */
  path = write_rules(dir, "syntax.rules",
                     "pass Ok {\n  rule r : nn.relu(%x) => %x\n}\npass Broken {\n  rule r : nn.relu(%x) %x\n}\n");
  ck_assert_int_eq(irm_plugin_load(path), IRM_EPLUGIN);
  snprintf(err_prefix, sizeof err_prefix, "rules file '%s': line 5, column 24: expected '=>'", path);
  ck_assert_error_mentions(err_prefix);
  ck_assert(!pass_registered("Ok"));
  remove(path);
  /* a type error in a rule */
  path = write_rules(dir, "types.rules", "pass Typed {\n  rule r : nn.relu(%x) => sum(%x)\n}\n");
  ck_assert_int_eq(irm_plugin_load(path), IRM_EPLUGIN);
  ck_assert_error_mentions(
      "line 2, column 24: rule 'r': the left-hand side has type Tensor[(2, 3), float32] but the right-hand side has type Tensor[(), float32]");
  remove(path);
  ck_assert_int_eq(irm_plugin_load("/no/such/file.rules"), IRM_EPLUGIN);
  ck_assert_last_error("PluginError: cannot load plugin '/no/such/file.rules': the file does not exist");
  /* inside an enclosing journal: its rollback takes the passes back, and the file can load again */
  path = write_rules(dir, "journaled.rules", "pass Journaled {\n  rule r : nn.relu(%x) => %x\n}\n");
  irm_journal *j = open_journal();
  ck_assert_ok(irm_plugin_load(path));
  ck_assert(pass_registered("Journaled"));
  ck_assert_uint_eq(listed("journaled.rules"), 1);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert(!pass_registered("Journaled"));
  ck_assert_uint_eq(listed("journaled.rules"), 0);
  ck_assert_ok(irm_plugin_load(path));
  ck_assert(pass_registered("Journaled"));
  ck_assert_uint_eq(listed("journaled.rules"), 1);
  remove(path);
  rmdir(dir);
}
END_TEST

START_TEST(test_rules_files_on_plugin_path) {
  char dir[] = "/tmp/irm_rules_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char a[512], b[512];
  snprintf(a, sizeof a, "%s", write_rules(dir, "a.rules", "pass EnvA {\n  rule r : nn.relu(%x) => %x\n}\n"));
  snprintf(b, sizeof b, "%s", write_rules(dir, "b.txt", "not rules"));
  ck_assert_int_eq(setenv("IRM_PLUGIN_PATH", dir, 1), 0);
  ck_assert_ok(irm_plugin_load_from_env());
  ck_assert(pass_registered("EnvA"));
  remove(a);
  remove(b);
  rmdir(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pattern_pass");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_relu_to_max_on_cnn);
  tcase_add_test(tc, test_fixed_point_and_chains);
  tcase_add_test(tc, test_unchanged_is_the_input);
  tcase_add_test(tc, test_type_guard);
  tcase_add_test(tc, test_benefit_orders_rules);
  tcase_add_test(tc, test_root_op_index);
  tcase_add_test(tc, test_iteration_bound_names_rules);
  tcase_add_test(tc, test_growth_and_time_bounds_name_rules);
  tcase_add_test(tc, test_rewritten_functions_are_verified);
  tcase_add_test(tc, test_pass_by_name_pipeline_and_globals);
  tcase_add_test(tc, test_conditions_read_attrs_and_configs);
  tcase_add_test(tc, test_rules_file_as_plugin);
  tcase_add_test(tc, test_bad_rules_file_rolls_back);
  tcase_add_test(tc, test_rules_files_on_plugin_path);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
