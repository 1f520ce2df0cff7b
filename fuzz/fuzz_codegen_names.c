/* Names and attribute strings through aot and graph code generation
 * (issue 39, docs/codegen.md#data-in-generated-c). The input is up to five
 * lines: mod_name, the names of main's two parameters, a params key, and a
 * dtype string (a cast's attribute; empty: no cast). Each build (aot with
 * the C interface and a params file, graph with a params file) fails with
 * a message, or gives C text that is well formed whatever the data: no
 * trigraph, every string and character literal closed on its line, every
 * comment closed, and every field of the C interface an identifier the
 * mangler keeps (codegen.CText). */
#include "fuzz_util.h"

#define LINES 5

/* The C text's lexical shape: no trigraph, literals closed on their line,
 * comments closed. */
static void check_c_text(const char *s) {
  enum { CODE, STRING, CHAR, COMMENT, LINE_COMMENT } st = CODE;
  for (const char *p = s; *p; p++) {
    FUZZ_CHECK(!(p[0] == '?' && p[1] == '?' && p[2] && strchr("=/'()!<>-", p[2])), "no trigraph in generated C");
    switch (st) {
    case CODE:
      if (p[0] == '"') st = STRING;
      else if (p[0] == '\'') st = CHAR;
      else if (p[0] == '/' && p[1] == '*') st = COMMENT, p++;
      else if (p[0] == '/' && p[1] == '/') st = LINE_COMMENT, p++;
      break;
    case STRING:
    case CHAR:
      FUZZ_CHECK(*p != '\n', "a literal closes on its line");
      if (*p == '\\') {
        FUZZ_CHECK(p[1] != '\n' && p[1] != '\0', "no line splice in a literal");
        p++;
      } else if (*p == (st == STRING ? '"' : '\'')) st = CODE;
      break;
    case COMMENT:
      if (p[0] == '*' && p[1] == '/') st = CODE, p++;
      break;
    case LINE_COMMENT:
      if (*p == '\n') st = CODE;
      break;
    }
  }
  FUZZ_CHECK(st == CODE || st == LINE_COMMENT, "every literal and comment closes");
}

/* Every "  void *X;" of a header: X is kept as is by the mangler. */
static void check_fields(const char *h) {
  for (const char *p = strstr(h, "\n  void *"); p; p = strstr(p + 1, "\n  void *")) {
    const char *id = p + 9;
    size_t n = strcspn(id, ";\n");
    char name[256];
    FUZZ_CHECK(n < sizeof name, "a field's name is short");
    memcpy(name, id, n);
    name[n] = '\0';
    irm_any args[] = {irm_any_str("identifier"), irm_any_str(name)}, ret = irm_any_none();
    FUZZ_CHECK(irm_func_call_global("codegen.CText", args, 2, &ret) == 0, "codegen.CText runs");
    FUZZ_CHECK(strcmp(irm_string_data(ret.v_obj), name) == 0, "a field is an identifier the mangler keeps");
    irm_any_release(&ret);
  }
}

static void build(const irm_module *m, const char *executor, const irm_object *params, const char *mod_name) {
  irm_object *opts = NULL, *e = NULL, *r = NULL, *result = NULL;
  const char *keys[] = {"link-params", "interface-api", "unpacked-api"};
  irm_any vals[] = {irm_any_bool(false), irm_any_str("c"), irm_any_bool(true)};
  bool aot = strcmp(executor, "aot") == 0;
  FUZZ_CHECK(irm_map_from_pairs(keys, vals, aot ? 3 : 1, &opts) == 0, "options");
  FUZZ_CHECK(irm_executor_create(executor, opts, &e) == 0, "executor");
  FUZZ_CHECK(irm_runtime_create(aot ? "crt" : "cpp", NULL, &r) == 0, "runtime");
  irm_any t = irm_any_str("c");
  int rc = irm_build(m, &t, NULL, e, r, params, mod_name, &result);
  if (rc) fuzz_check_error(rc);
  else {
    const irm_any *a = irm_map_find_cstr(result, "artifacts");
    irm_map_iter it = irm_map_iter_begin(a->v_obj);
    const irm_object *k;
    const irm_any *v;
    while (irm_map_iter_next(&it, &k, &v)) {
      const char *name = irm_string_data(k);
      size_t len = strlen(name);
      if (len < 2 || name[len - 2] != '.' || (name[len - 1] != 'c' && name[len - 1] != 'h')) continue;
      check_c_text(irm_string_data(v->v_obj));
      if (name[len - 1] == 'h') check_fields(irm_string_data(v->v_obj));
    }
  }
  irm_object_release(result);
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(opts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 400) return 0;
  fuzz_quiet();
  char *text = fuzz_text(data, size), *line[LINES] = {NULL};
  char *at = text;
  for (int i = 0; i < LINES; i++) {
    line[i] = at;
    char *nl = at ? strchr(at, '\n') : NULL;
    if (nl) *nl = '\0';
    at = nl ? nl + 1 : NULL;
    if (!line[i]) line[i] = "";
  }
  char ir[2048];
  snprintf(ir, sizeof ir,
           "#[version = \"irm-0.1\"]\ndef @main(%%%s: Tensor[(2), float32], %%%s: Tensor[(2), float32]) {\n"
           "  %%0 = add(%%%s, %%%s);\n  %%1 = %s%s%s%s;\n  %%1\n}\n",
           line[1], line[2], line[1], line[2], line[4][0] ? "cast(%0, dtype=\"" : "nn.relu(%0", line[4],
           line[4][0] ? "\")" : "", line[4][0] ? "" : ")");
  irm_module *m = NULL;
  int rc = irm_dataflow_parse(ir, strlen(ir), &m);
  if (rc == 0) {
    int64_t shape[] = {2};
    DLDataType f32 = {kDLFloat, 32, 1};
    irm_tensor *w = NULL;
    irm_object *params = NULL;
    FUZZ_CHECK(irm_tensor_new(f32, shape, 1, NULL, &w) == 0, "a tensor");
    irm_any v = irm_any_object((irm_object *)w);
    const char *key = line[3];
    FUZZ_CHECK(irm_map_from_pairs(&key, &v, 1, &params) == 0, "params");
    build(m, "aot", params, line[0][0] ? line[0] : NULL);
    build(m, "graph", params, line[0][0] ? line[0] : NULL);
    irm_object_release(params);
    irm_object_release((irm_object *)w);
    irm_object_release((irm_object *)m);
  } else {
    fuzz_check_error(rc);
  }
  free(text);
  return 0;
}
