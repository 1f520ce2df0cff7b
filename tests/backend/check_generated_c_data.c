/* Data in generated C (issue 39, docs/codegen.md#data-in-generated-c):
 * string literals, comments and identifiers made by codegen.CText compile
 * and mean exactly the data, whatever the bytes (a property over random and
 * hostile strings, the library's external symbols checked with nm); params
 * keys that name no parameter of main (D1) and hostile keys reaching
 * lowering; two parameters sharing one tensor (D10); pad values -inf and NaN
 * (D12); the index-error record thread-local unless IRM_CRT_THREAD_LOCAL
 * says otherwise (a bare-metal toolchain without TLS). */
#include <dlfcn.h>
#include <unistd.h>

#include "check_aot_util.h"
#include "check_graph_util.h"
#include "irm/build.h"
#include "irm/kind.h"

/* ---- codegen.CText: the property ---------------------------------------------- */

static char *c_text(const char *kind, const char *text) {
  irm_any args[] = {irm_any_str(kind), irm_any_str(text)};
  irm_object *s = call_obj("codegen.CText", args, 2, "ffi.String");
  char *out = strdup(irm_string_data(s));
  irm_object_release(s);
  return out;
}

static const char *const hostile[] = {"?\?/\"",
                                      "x */ __attribute__((constructor)) static void evil(void) {} /*",
                                      "?\?=define x",
                                      "\\",
                                      "\"",
                                      "a\nb\n",
                                      "*/",
                                      "/*",
                                      "*//*",
                                      "?\?",
                                      "?\?\?/",
                                      "\x01\x7f\xff\xc3\xa9"
                                      "0123",
                                      "\\\n",
                                      "\?\?(",
                                      "int",
                                      "float",
                                      "NULL",
                                      "NAN",
                                      "INFINITY",
                                      "linux",
                                      "unix",
                                      "__x",
                                      "_Bool",
                                      "_X",
                                      "irm_x",
                                      "TVMGEN_x",
                                      "tvmgen_default_run",
                                      "1abc",
                                      "",
                                      "a.b",
                                      "EDOM",
                                      "INT32_MAX",
                                      "class",
                                      "errno",
                                      "offsetof",
                                      "v_int",
                                      "é"};

#define N_RANDOM 200
#define N_HOSTILE (sizeof hostile / sizeof *hostile)

/* A random string: bytes 1..255, biased towards the ones C treats specially. */
static void random_text(uint64_t *state, char *out, size_t cap) {
  static const char special[] = "?*/\"\\\n'=()!<>-%#0123456789 ";
  size_t n = 0, len = 0;
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  len = (size_t)(*state >> 59); /* 0..31 */
  for (; n < len && n + 1 < cap; n++) {
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    unsigned r = (unsigned)(*state >> 33);
    out[n] = r % 3 ? special[r / 3 % (sizeof special - 1)] : (char)(1 + r / 3 % 255);
  }
  out[n] = '\0';
}

/* Writes the C file: per string i a comment, the literal irm_t_<i> and a
 * struct with the mangled identifier as a field; compiles it with flags. */
static void compile_texts(char **texts, size_t n, const char *flags, const char *so) {
  char src[1024];
  aot_path("c_text", "texts.c", src, sizeof src);
  FILE *f = fopen(src, "w");
  ck_assert_ptr_nonnull(f);
  fputs("#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n", f);
  for (size_t i = 0; i < n; i++) {
    char *comment = c_text("comment", texts[i]), *literal = c_text("string", texts[i]),
         *id = c_text("identifier", texts[i]);
    fprintf(f, "/* %s */\nconst char irm_t_%zu[] = %s;\nstruct irm_s_%zu { void *%s; int other_; };\n", comment, i,
            literal, i, id);
    free(comment);
    free(literal);
    free(id);
  }
  fprintf(f, "const size_t irm_t_count = %zu;\n", n);
  fclose(f);
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "cc %s -Wall -Wextra -Werror -shared -fPIC -o '%s' '%s' 2>&1", flags, so, src);
  FILE *p = popen(cmd, "r");
  char out[2048] = "";
  size_t got = fread(out, 1, sizeof out - 1, p);
  out[got] = '\0';
  ck_assert_msg(pclose(p) == 0, "%s failed:\n%s", cmd, out);
}

/* The library's defined external symbols are exactly irm_t_0.. and irm_t_count. */
static void check_symbols(const char *so, size_t n) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "nm -D --defined-only '%s' | awk '$2 ~ /^[A-Z]$/ && $2 != \"A\" {print $3}' | sort", so);
  FILE *p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  char line[256];
  size_t seen = 0, count = 0;
  while (fgets(line, sizeof line, p)) {
    line[strcspn(line, "\n")] = '\0';
    size_t i = 0;
    int end = 0;
    if (strcmp(line, "irm_t_count") == 0) count++;
    else if (sscanf(line, "irm_t_%zu%n", &i, &end) == 1 && line[end] == '\0' && i < n) seen++;
    else ck_abort_msg("unexpected symbol '%s' in the library", line);
  }
  ck_assert_int_eq(pclose(p), 0);
  ck_assert_uint_eq(seen, n);
  ck_assert_uint_eq(count, 1);
}

START_TEST(test_c_text_compiles_to_the_data) {
  /* -std=c11 -trigraphs: trigraphs on (as gcc's -std=c11); gnu11: linux and unix are macros */
  const char *flags = _i == 0 ? "-std=c11 -trigraphs" : "-std=gnu11";
  size_t n = N_HOSTILE + N_RANDOM;
  char **texts = calloc(n, sizeof *texts);
  uint64_t state = 39 + (uint64_t)_i;
  for (size_t i = 0; i < n; i++) {
    char buf[64];
    if (i < N_HOSTILE) snprintf(buf, sizeof buf, "%s", hostile[i]);
    else random_text(&state, buf, sizeof buf);
    texts[i] = strdup(buf);
  }
  char so[1024];
  aot_path("c_text", _i == 0 ? "texts_c11.so" : "texts_gnu11.so", so, sizeof so);
  compile_texts(texts, n, flags, so);
  check_symbols(so, n);
  void *lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  ck_assert_msg(lib != NULL, "%s", dlerror());
  for (size_t i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof name, "irm_t_%zu", i);
    const char *got = dlsym(lib, name);
    ck_assert_ptr_nonnull(got);
    ck_assert_msg(strcmp(got, texts[i]) == 0, "string %zu changed in C", i);
    free(texts[i]);
  }
  dlclose(lib);
  free(texts);
}
END_TEST

START_TEST(test_c_text_identifiers_and_errors) {
  const char *cases[][2] = {{"int", "v_int"},
                            {"NULL", "v_NULL"},
                            {"a.b", "a_b"},
                            {"1x", "_1x"},
                            {"", "_"},
                            {"irm_w", "v_irm_w"},
                            {"Tvmgen_x", "v_Tvmgen_x"},
                            {"__y", "v___y"},
                            {"weight", "weight"},
                            {"conv1/weight", "conv1_weight"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *id = c_text("identifier", cases[i][0]);
    ck_assert_str_eq(id, cases[i][1]);
    free(id);
  }
  char *s = c_text("string", "?\?/\"\n\x01");
  ck_assert_str_eq(s, "\"\\?\\?/\\\"\\n\"\n  \"\\001\""); /* a line of the text per line of C */
  free(s);
  s = c_text("comment", "*/?\?/\\");
  ck_assert_str_eq(s, "* /? ?/.");
  free(s);
  irm_any args[] = {irm_any_str("strng"), irm_any_str("x")}, ret = irm_any_none();
  ck_assert_error(irm_func_call_global("codegen.CText", args, 2, &ret), IRM_EVALUE,
                  "ValueError: codegen.CText: unknown kind 'strng' (did you mean 'string'?)");
}
END_TEST

/* ---- random names through aot: the header compiles, the symbols are exact -------- */

/* Variable names (the text form's: letters, digits, '_', '.') that are
 * keywords, macros, reserved or own-prefixed in C, and random ones. */
static const char *const var_pool[] = {"int",  "float", "NULL",   "NAN",      "INFINITY", "linux", "unix",
                                       "__x",  "_X",    "irm_x",  "TVMGEN_x", "EDOM",     "class", "errno",
                                       "a.b",  "a_b",   "v_int",  "x.y1",     "_1",       "I",     "offsetof",
                                       "bool", "true",  "int8_t", "SIZE_MAX", "this",     "new",   "tvmgen_m_run"};

static void random_var(uint64_t *state, char *out, size_t cap) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  unsigned r = (unsigned)(*state >> 33);
  if (r % 2) {
    snprintf(out, cap, "%s", var_pool[r / 2 % (sizeof var_pool / sizeof *var_pool)]);
    return;
  }
  static const char first[] = "abcxyzABCXYZ_", rest[] = "abcxyz019_.AZ";
  size_t n = 1 + r / 2 % 6;
  out[0] = first[r % (sizeof first - 1)];
  for (size_t i = 1; i < n && i + 1 < cap; i++) {
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    out[i] = rest[(*state >> 40) % (sizeof rest - 1)];
  }
  n = n < cap ? n : cap - 1;
  out[n] = '\0';
  for (size_t i = 1; i < n; i++) /* the text form takes a '.' only before a letter or '_' */
    if (out[i] == '.' && (i + 1 == n || !((out[i + 1] >= 'a' && out[i + 1] <= 'z') ||
                                          (out[i + 1] >= 'A' && out[i + 1] <= 'Z') || out[i + 1] == '_')))
      out[i] = 'q';
}

START_TEST(test_random_names_build_with_exact_symbols) {
  uint64_t state = 3900 + (uint64_t)_i;
  char names[3][32], mod_name[16], text[1024];
  random_var(&state, names[0], sizeof names[0]);
  do random_var(&state, names[1], sizeof names[1]);
  while (strcmp(names[1], names[0]) == 0);
  do random_var(&state, names[2], sizeof names[2]);
  while (strcmp(names[2], names[0]) == 0 || strcmp(names[2], names[1]) == 0);
  snprintf(mod_name, sizeof mod_name, "m%d", _i);
  snprintf(text, sizeof text,
           IP_HEAD "def @main(%%%s: Tensor[(4), float32], %%%s: Tensor[(4), float32], %%%s: Tensor[(4), float32]) "
                   "{\n  %%0 = add(%%%s, %%%s);\n  %%1 = multiply(%%0, %%%s);\n  %%1\n}\n",
           names[0], names[1], names[2], names[0], names[1], names[2]);
  irm_module *m = parse_module(text);
  char *ids[3];
  for (int i = 0; i < 3; i++) ids[i] = c_text("identifier", names[i]);
  bool collide = !strcmp(ids[0], ids[1]) || !strcmp(ids[0], ids[2]) || !strcmp(ids[1], ids[2]);
  const char *keys[] = {"interface-api", "unpacked-api"};
  irm_any vals[] = {irm_any_str("c"), irm_any_bool(true)};
  irm_object *e = aot_executor(keys, vals, 2), *r = NULL;
  int rc = aot_try_build(m, "c", e, "crt", NULL, mod_name, &r);
  if (collide) {
    ck_assert_int_eq(rc, IRM_EVALUE);
    ck_assert_error_mentions("both become the C field");
  } else {
    ck_assert_msg(rc == 0, "%s: %s", text, irm_last_error());
    char tag[32], so[1024];
    snprintf(tag, sizeof tag, "names_%d", _i);
    aot_path(tag, "lib.so", so, sizeof so);
    ck_assert_msg(irm_build_export_library(r, so) == 0, "%s: %s", text, irm_last_error());
    /* the entry points (the loader's workspace one too), the metadata, the
     * linked weights' (link-params) and the index errors' text (sorted) */
    static const char *const suffixes[] = {"check_params", "last_error", "linked_params",
                                           "metadata",     "run",        "run_workspace"};
    enum { N_SYMS = sizeof suffixes / sizeof *suffixes };
    char cmd[2048], line[256], want[N_SYMS][64];
    for (size_t k = 0; k < N_SYMS; k++) snprintf(want[k], sizeof want[k], "tvmgen_%s_%s", mod_name, suffixes[k]);
    snprintf(cmd, sizeof cmd, "nm -D --defined-only '%s' | awk '$2 ~ /^[A-Z]$/ && $2 != \"A\" {print $3}' | sort", so);
    FILE *p = popen(cmd, "r");
    size_t n = 0;
    while (fgets(line, sizeof line, p)) {
      line[strcspn(line, "\n")] = '\0';
      ck_assert_msg(n < N_SYMS && strcmp(line, want[n]) == 0, "%s: unexpected symbol '%s'", text, line);
      n++;
    }
    ck_assert_int_eq(pclose(p), 0);
    ck_assert_uint_eq(n, N_SYMS);
    irm_object *loaded = NULL;
    ck_assert_ok(irm_runtime_load(so, &loaded));
    aot_compare(m, loaded, 3, 11);
    irm_object_release(loaded);
  }
  for (int i = 0; i < 3; i++) free(ids[i]);
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

/* ---- params keys (D1) ---------------------------------------------------------- */

#define ADD_W \
  IP_HEAD "def @main(%x: Tensor[(2, 8), float32], %w: Tensor[(2, 8), float32]) {\n  %0 = add(%x, %w);\n  %0\n}\n"

/* aot, packed, with a params file (link-params = false). */
static irm_object *aot_params_file(void) {
  const char *keys[] = {"interface-api", "unpacked-api", "link-params"};
  irm_any vals[] = {irm_any_str("packed"), irm_any_bool(false), irm_any_bool(false)};
  return aot_executor(keys, vals, 3);
}

static irm_object *weight(uint64_t seed) {
  int64_t shape[] = {2, 8};
  return seeded_tensor(shape, 2, seed);
}

START_TEST(test_a_params_key_must_name_a_parameter_of_main) {
  irm_module *m = parse_module(ADD_W);
  irm_any t = irm_any_object(weight(1));
  const char *evil = "x */ __attribute__((constructor)) static void evil(void) {} /*";
  irm_object *params = map1(evil, t), *e = aot_params_file(), *r = (irm_object *)&r;
  ck_assert_int_eq(aot_try_build(m, "c", e, "crt", params, "d1", &r), IRM_EVALUE);
  ck_assert_error_mentions("names no parameter of main");
  ck_assert_error_mentions("main's parameters: %x, %w");
  ck_assert_ptr_null(r);
  irm_object_release(params);
  /* the graph executor, and a near miss named */
  params = map1("W", t);
  ck_assert_int_eq(graph_try_build(m, false, params, "d1", &r), IRM_EVALUE);
  ck_assert_error_mentions("params entry 'W' names no parameter of main (closest: %w)");
  irm_object_release(params);
  /* a key whose tensor main holds already (BindParams ran before the build) binds it: no error */
  params = map1("w", t);
  irm_module *with = NULL, *bound = NULL;
  irm_any pv = irm_any_object(params);
  ck_assert_ok(irm_module_with_attr(m, "params", &pv, &with));
  ck_assert_ok(irm_dataflow_bind_params(with, &bound));
  ck_assert_uint_eq(irm_function_param_count(irm_module_function(bound, "main")), 1);
  r = graph_build(bound, false, params, "d1b");
  irm_object_release(r);
  irm_object_release((irm_object *)bound);
  irm_object_release((irm_object *)with);
  irm_object_release(params);
  irm_any_release(&t);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

/* Runs aot's code generator on mod (its params replaced by params); the source. */
static char *aot_source_with_params(const irm_module *mod, const irm_object *params) {
  irm_module *m = NULL;
  irm_any p = irm_any_object((irm_object *)params);
  ck_assert_ok(irm_module_with_attr(mod, "params", &p, &m));
  irm_compilation_config *cfg = NULL;
  ck_assert_ok(irm_module_compilation_config(m, &cfg));
  irm_kind *aot = NULL;
  irm_any f = irm_any_none(), got = irm_any_none(), args[2] = {irm_any_object(m), irm_any_object(cfg)};
  ck_assert_ok(irm_kind_find("executor", "aot", &aot));
  ck_assert_ok(irm_kind_get_attr(aot, IRM_EXECUTOR_CODEGEN_ATTR, &f));
  ck_assert_ok(irm_func_call(f.v_obj, args, 2, &got));
  const irm_any *src = irm_map_find_cstr(got.v_obj, "tvmgen_d1.c");
  ck_assert_ptr_nonnull(src);
  char *out = strdup(irm_string_data(src->v_obj));
  irm_any_release(&got);
  irm_any_release(&f);
  irm_object_release(cfg);
  irm_object_release(m);
  return out;
}

START_TEST(test_lowering_names_no_constant_after_a_hostile_key) {
  irm_module *m = parse_module(ADD_W);
  irm_any t = irm_any_object(weight(2));
  irm_object *params = map1("w", t), *e = aot_params_file();
  irm_object *r = aot_build(m, "c", e, "crt", params, "d1");
  irm_module *final = bu_part(r, "module");
  char *src = aot_source_with_params(final, params);
  ck_assert_msg(strstr(src, "/* params 'w' */") != NULL, "%s", src);
  free(src);
  /* the same tensor under hostile keys: the constant is p0 and nothing of the keys reaches the C */
  const char *keys[] = {"w */ int evil; /*", "?\?/\" int evil2;"};
  irm_any vals[] = {t, t};
  irm_object *bad = new_map(keys, vals, 2);
  src = aot_source_with_params(final, bad);
  ck_assert_msg(strstr(src, "/* params 'p0' */") != NULL && !strstr(src, "evil") && !strstr(src, "?\?"), "%s", src);
  free(src);
  irm_object_release(bad);
  irm_object_release(r);
  irm_object_release(params);
  irm_any_release(&t);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

/* ---- two parameters, one tensor (D10) -------------------------------------------- */

START_TEST(test_two_parameters_sharing_one_tensor_stay_two) {
  irm_module *m = parse_module(IP_HEAD "def @main(%x: Tensor[(2, 8), float32], %a: Tensor[(2, 8), float32], "
                                       "%b: Tensor[(2, 8), float32]) {\n"
                                       "  %0 = add(%x, %a);\n  %1 = multiply(%0, %b);\n  %1\n}\n");
  irm_any t = irm_any_object(weight(3));
  const char *keys[] = {"a", "b"};
  irm_any vals[] = {t, t};
  irm_object *params = new_map(keys, vals, 2);
  /* graph, params in a file: the JSON names each once, and the module takes x alone */
  irm_object *r = graph_build(m, false, params, "d10");
  char path[1024];
  graph_export(r, "d10", path, sizeof path);
  irm_object *loaded = NULL;
  ck_assert_ok(irm_runtime_load(path, &loaded));
  aot_compare_with(m, params, loaded, 1, 5);
  irm_object_release(loaded);
  irm_object_release(r);
  /* aot with a params file */
  irm_object *e = aot_params_file();
  r = aot_build(m, "c", e, "crt", params, "d10");
  loaded = aot_export_load(r, "d10");
  aot_compare_with(m, params, loaded, 1, 6);
  irm_object_release(loaded);
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(params);
  irm_any_release(&t);
  irm_object_release(m);
}
END_TEST

/* ---- infinite and NaN attribute values (D12) ------------------------------------- */

START_TEST(test_pad_value_infinity_exports) {
  /* -inf before a max pool (ONNX Pad + MaxPool; relu then makes it 0), inf before a min (negated max) pool, NaN
   * exported only */
  static const char *const values[] = {"-inf", "inf", "nan"};
  char text[1024];
  snprintf(text, sizeof text,
           IP_HEAD "def @main(%%x: Tensor[(1, 1, 4, 4), float32]) {\n"
                   "  %%0 = nn.pad(%%x, pad_width=[0, 0, 0, 0, 1, 1, 1, 1], pad_value=%s);\n"
                   "  %%1 = %s(%%0);\n  %%2 = nn.max_pool2d(%%1, pool_size=[3, 3]);\n  %%2\n}\n",
           values[_i], _i == 1 ? "negative" : "nn.relu");
  irm_module *m = parse_module(text);
  irm_object *e = aot_params_file();
  irm_object *r = aot_build(m, "c", e, "crt", NULL, "d12");
  char tag[32];
  snprintf(tag, sizeof tag, "d12_%d", _i);
  irm_object *loaded = aot_export_load(r, tag);
  if (_i < 2) aot_compare(m, loaded, 1, 7);
  irm_object_release(loaded);
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

/* ---- the index-error record's storage ---------------------------------------------- */

/* The ELF symbol type (TLS, OBJECT) of tvmgen_tls_index_error in the library exported with $CC = cc. */
static void record_type(const irm_object *r, const char *cc, const char *tag, char *type, size_t size) {
  char path[1024], cmd[1400];
  aot_path(tag, "lib.so", path, sizeof path);
  const char *old = getenv("CC");
  char *saved = old ? strdup(old) : NULL;
  setenv("CC", cc, 1);
  int rc = irm_build_export_library(r, path);
  if (saved) setenv("CC", saved, 1);
  else unsetenv("CC");
  free(saved);
  ck_assert_ok(rc);
  snprintf(cmd, sizeof cmd, "readelf -sW '%s' | awk '$8 == \"tvmgen_tls_index_error\" {print $4; exit}'", path);
  FILE *p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  type[0] = '\0';
  if (fgets(type, (int)size, p)) type[strcspn(type, "\n")] = '\0';
  ck_assert_int_eq(pclose(p), 0);
}

START_TEST(test_index_error_record_storage) {
  irm_module *m = aot_example("cnn");
  irm_object *e = aot_params_file(), *r = aot_build(m, "c", e, "crt", NULL, "tls");
  char type[32];
  record_type(r, "cc", "tls_default", type, sizeof type);
  ck_assert_str_eq(type, "TLS");
  record_type(r, "cc -DIRM_CRT_THREAD_LOCAL=", "tls_none", type, sizeof type);
  ck_assert_str_eq(type, "OBJECT");
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("generated_c_data");
  TCase *tc = tcase_create("generated_c_data");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_c_text_compiles_to_the_data, 0, 2);
  tcase_add_test(tc, test_c_text_identifiers_and_errors);
  tcase_add_loop_test(tc, test_random_names_build_with_exact_symbols, 0, 12);
  tcase_add_test(tc, test_a_params_key_must_name_a_parameter_of_main);
  tcase_add_test(tc, test_lowering_names_no_constant_after_a_hostile_key);
  tcase_add_test(tc, test_two_parameters_sharing_one_tensor_stay_two);
  tcase_add_loop_test(tc, test_pad_value_infinity_exports, 0, 3);
  tcase_add_test(tc, test_index_error_record_storage);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
