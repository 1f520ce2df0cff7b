/* The aot executor's code generator (docs/build.md#the-aot-executor): the
 * artifacts of each interface, every option visible in the generated code
 * (interface-api, unpacked-api, link-params, both alignments, usmp.*),
 * the params file, the metadata, and the errors. Elementwise models; the
 * example models run end to end in check_aot_e2e. */
#include <pthread.h>

#include "check_aot_util.h"

/* A tuple of two outputs. */
#define AOT_TUPLE                                                                                 \
  IP_HEAD "def @main(%x: Tensor[(2, 8), float32], %y: Tensor[(2, 8), float32]) {\n"               \
          "  %0 = add(%x, %y);\n  %1 = nn.relu(%0);\n  %2 = multiply(%1, %y);\n  %3 = exp(%2);\n" \
          "  %4 = (%3, %1);\n  %4\n}\n"

static irm_object *c_unpacked(void) {
  const char *rt;
  return aot_config(0, &rt);
}

static const char *source(const irm_object *result, const char *name) {
  char file[128];
  snprintf(file, sizeof file, "tvmgen_%s.c", name);
  return irm_string_data(aot_artifact(result, file));
}

START_TEST(test_c_interface_header_and_entry) {
  irm_module *m = parse_module(AOT_MAIN);
  irm_object *e = c_unpacked(), *p = aot_weight_params();
  irm_object *r = aot_build(m, "c", e, "crt", p, "net");
  const char *h = irm_string_data(aot_artifact(r, "tvmgen_net.h"));
  ck_assert_ptr_nonnull(strstr(h, "struct tvmgen_net_inputs {\n  void *x;\n};"));
  ck_assert_ptr_nonnull(strstr(h, "struct tvmgen_net_outputs {\n  void *output;\n};"));
  ck_assert_ptr_nonnull(strstr(h, "int32_t tvmgen_net_run(struct tvmgen_net_inputs *inputs, struct "
                                  "tvmgen_net_outputs *outputs);"));
  const char *c = source(r, "net");
  ck_assert_ptr_nonnull(strstr(c, "#include \"tvmgen_net.h\""));
  ck_assert_ptr_nonnull(strstr(c, "IRM_KERNEL_LINKAGE int32_t tvmgen_net_fused_")); /* the glue unit calls it */
  ck_assert_ptr_nonnull(strstr(c, "const char *tvmgen_net_metadata(void)"));
  ck_assert_ptr_null(strstr(c, "_packed(")); /* unpacked-api: plain pointers */
  ck_assert_ptr_null(strstr(c, "__tvm_main__"));
  ck_assert(!aot_has_artifact(r, "net.params")); /* link-params defaults to true */
  irm_object *loaded = aot_export_load(r, "c_interface");
  aot_compare_with(m, p, loaded, 1, 11);
  irm_object_release(loaded);
  irm_object_release(r);
  irm_object_release(p);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

START_TEST(test_packed_interface_and_wrappers) {
  irm_module *m = parse_module(AOT_MAIN);
  const char *rt;
  irm_object *e = aot_config(1, &rt), *p = aot_weight_params();
  irm_object *r = aot_build(m, "c", e, rt, p, "pk");
  ck_assert(!aot_has_artifact(r, "tvmgen_pk.h"));
  const char *c = source(r, "pk");
  ck_assert_ptr_nonnull(strstr(c, "int32_t tvmgen_pk___tvm_main__(void *args, int32_t *type_codes, int32_t num_args"));
  ck_assert_ptr_nonnull(strstr(c, "_packed(void *args")); /* unpacked-api = false: a wrapper per kernel */
  ck_assert_ptr_nonnull(strstr(c, "irm_crt_tensor_view("));
  irm_object *loaded = aot_export_load(r, "packed");
  aot_compare_with(m, p, loaded, 1, 12);
  irm_object *meta = NULL;
  ck_assert_ok(irm_runtime_module_metadata(loaded, &meta));
  ck_assert_ptr_nonnull(strstr(irm_string_data(meta), "\"entry\": \"tvmgen_pk___tvm_main__\""));
  ck_assert_ptr_nonnull(strstr(irm_string_data(meta), "\"interface_api\": \"packed\""));
  irm_object_release(meta);
  irm_object_release(loaded);
  irm_object_release(r);
  /* packed + unpacked-api with crt: the entry is packed, the kernels take pointers */
  const char *keys[] = {"interface-api", "unpacked-api"};
  irm_any vals[] = {irm_any_str("packed"), irm_any_bool(true)};
  irm_object *e2 = aot_executor(keys, vals, 2);
  r = aot_build(m, "c", e2, "crt", p, "pk");
  ck_assert_ptr_nonnull(strstr(source(r, "pk"), "__tvm_main__"));
  ck_assert_ptr_null(strstr(source(r, "pk"), "_packed(void *args"));
  irm_object_release(r);
  irm_object_release(e2);
  irm_object_release(p);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

START_TEST(test_tuple_outputs) {
  irm_module *m = parse_module(AOT_TUPLE);
  for (int which = 0; which < 3; which++) {
    const char *rt;
    irm_object *e = aot_config(which, &rt);
    irm_object *r = aot_build(m, "c", e, rt, NULL, "tup");
    if (which == 0) {
      const char *h = irm_string_data(aot_artifact(r, "tvmgen_tup.h"));
      ck_assert_ptr_nonnull(strstr(h, "  void *output0;\n  void *output1;\n"));
    }
    char tag[32];
    snprintf(tag, sizeof tag, "tuple%d", which);
    irm_object *loaded = aot_export_load(r, tag);
    aot_compare(m, loaded, 2, 20 + (uint64_t)which);
    irm_object_release(loaded);
    irm_object_release(r);
    irm_object_release(e);
  }
  irm_object_release(m);
}
END_TEST

START_TEST(test_link_params_off_writes_a_params_file) {
  irm_module *m = parse_module(AOT_MAIN);
  const char *keys[] = {"interface-api", "unpacked-api", "link-params"};
  irm_any vals[] = {irm_any_str("c"), irm_any_bool(true), irm_any_bool(false)};
  irm_object *e = aot_executor(keys, vals, 3), *p = aot_weight_params();
  irm_object *r = aot_build(m, "c", e, "crt", p, "lp");
  irm_object *blob = aot_artifact(r, "lp.params");
  uint64_t magic = 0;
  ck_assert_uint_ge(irm_string_size(blob), 8 + 8 + 8 + 8 + 1 + 8);
  memcpy(&magic, irm_string_data(blob), 8);
  ck_assert(magic == 0xF7E58D4F05049CB7ULL);
  ck_assert_ptr_nonnull(memmem(irm_string_data(blob), irm_string_size(blob), "w", 1));
  const char *c = source(r, "lp");
  ck_assert_ptr_nonnull(strstr(c, "int32_t tvmgen_lp_set_params(const void *blob, size_t size)"));
  ck_assert_ptr_nonnull(strstr(c, "if (!tvmgen_lp_params_ready) return IRM_CRT_ENOPARAMS;"));
  ck_assert_ptr_null(strstr(c, "const float tvmgen_lp_const_0")); /* not embedded */
  ck_assert_ptr_nonnull(strstr(irm_string_data(aot_artifact(r, "tvmgen_lp.h")), "tvmgen_lp_set_params"));
  irm_object *loaded = aot_export_load(r, "link_params_off"); /* the loader reads lp.params beside it */
  aot_compare_with(m, p, loaded, 1, 13);
  irm_object_release(loaded);
  /* a params file that does not fit is refused, naming the reason */
  char path[1024];
  aot_path("link_params_off", "lp.params", path, sizeof path);
  FILE *f = fopen(path, "wb");
  fwrite(irm_string_data(blob), 1, irm_string_size(blob) - 4, f);
  fclose(f);
  aot_path("link_params_off", "lib.so", path, sizeof path);
  irm_object *bad = NULL;
  ck_assert_error(irm_runtime_load(path, &bad), IRM_EVALUE, "ValueError: runtime.Load: library");
  ck_assert_error_mentions("does not match");
  /* and a missing one names its path */
  aot_path("link_params_off", "lp.params", path, sizeof path);
  remove(path);
  aot_path("link_params_off", "lib.so", path, sizeof path);
  ck_assert_error(irm_runtime_load(path, &bad), IRM_ERUNTIME, "RuntimeError: runtime.Load: cannot read the params");
  ck_assert_error_mentions("lp.params");
  irm_object_release(r);
  irm_object_release(p);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

START_TEST(test_alignments_visible_in_the_code) {
  irm_module *m = parse_module(AOT_MAIN);
  const char *keys[] = {"interface-api", "unpacked-api", "workspace-byte-alignment", "constant-byte-alignment"};
  irm_any vals[] = {irm_any_str("c"), irm_any_bool(true), irm_any_int(256), irm_any_int(128)};
  irm_object *e = aot_executor(keys, vals, 4), *p = aot_weight_params();
  irm_object *r = aot_build(m, "c", e, "crt", p, "al");
  const char *c = source(r, "al");
  ck_assert_ptr_nonnull(strstr(c, "static _Alignas(256) uint8_t tvmgen_al_workspace["));
  /* link-params: the constants are the params file linked as data, at a 128-byte boundary */
  ck_assert_ptr_nonnull(
      strstr(c, "static const float *const tvmgen_al_const_0 = (const float *)(tvmgen_al_linked_params_data + "));
  ck_assert_ptr_nonnull(strstr(irm_string_data(aot_artifact(r, "tvmgen_al_params.s")), "\t.balign 128\n"));
  irm_object *loaded = aot_export_load(r, "aligned");
  aot_compare_with(m, p, loaded, 1, 14);
  irm_object_release(loaded);
  irm_object_release(r);
  irm_object_release(e);
  /* defaults: 16 */
  e = c_unpacked();
  r = aot_build(m, "c", e, "crt", p, "al");
  ck_assert_ptr_nonnull(strstr(irm_string_data(aot_artifact(r, "tvmgen_al_params.s")), "\t.balign 16\n"));
  irm_object_release(r);
  irm_object_release(e);
  /* not a power of two */
  irm_any bad[] = {irm_any_str("c"), irm_any_bool(true), irm_any_int(24), irm_any_int(16)};
  irm_object *opts = new_map(keys, bad, 4);
  ck_assert_int_eq(irm_executor_create("aot", opts, &e), IRM_EVALUE);
  ck_assert_error_mentions("'workspace-byte-alignment' must be a power of two");
  irm_object_release(opts);
  irm_object_release(p);
  irm_object_release(m);
}
END_TEST

/* A module whose usmp.* attributes are set. */
static irm_module *with_usmp(irm_module *m, bool enable, const char *algo) {
  irm_any en = irm_any_bool(enable), al = irm_any_str(algo);
  irm_module *a = NULL, *b = NULL;
  ck_assert_ok(irm_module_with_attr(m, "usmp.enable", &en, &a));
  ck_assert_ok(irm_module_with_attr(a, "usmp.algorithm", &al, &b));
  irm_object_release(a);
  return b;
}

static size_t workspace_of(const irm_object *result, const char *name) {
  const char *c = source(result, name), *at = strstr(c, "-byte workspace");
  ck_assert_ptr_nonnull(at);
  while (at > c && at[-1] >= '0' && at[-1] <= '9') at--;
  return (size_t)strtoull(at, NULL, 10);
}

START_TEST(test_usmp_attributes_choose_the_planner) {
  irm_module *m = parse_module(AOT_TUPLE);
  irm_object *e = c_unpacked();
  size_t bytes[3];
  const char *algos[] = {"none", "greedy_by_size", "greedy_by_conflicts"};
  for (int i = 0; i < 3; i++) {
    irm_module *u = with_usmp(m, i > 0, i ? algos[i] : "greedy_by_size");
    irm_object *r = aot_build(u, "c", e, "crt", NULL, "us");
    bytes[i] = workspace_of(r, "us");
    char want[64];
    snprintf(want, sizeof want, "workspace (%s)", algos[i]);
    ck_assert_msg(strstr(source(r, "us"), want) != NULL, "%s", want);
    char tag[32];
    snprintf(tag, sizeof tag, "usmp%d", i);
    irm_object *loaded = aot_export_load(r, tag);
    aot_compare(u, loaded, 2, 30 + (uint64_t)i);
    irm_object_release(loaded);
    irm_object_release(r);
    irm_object_release(u);
  }
  ck_assert_uint_le(bytes[1], bytes[0]);
  ck_assert_uint_le(bytes[2], bytes[0]);
  /* an unknown algorithm names the closest */
  irm_module *u = with_usmp(m, true, "greedy_by_sise");
  irm_object *r = NULL;
  ck_assert_int_eq(aot_try_build(u, "c", e, "crt", NULL, "us", &r), IRM_EVALUE);
  ck_assert_error_mentions("unknown memory planning algorithm 'greedy_by_sise'");
  ck_assert_error_mentions("did you mean 'greedy_by_size'?");
  irm_object_release(u);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

START_TEST(test_loader_checks_inputs) {
  irm_module *m = parse_module(AOT_TUPLE);
  irm_object *e = c_unpacked();
  irm_object *r = aot_build(m, "c", e, "crt", NULL, "chk");
  irm_object *loaded = aot_export_load(r, "checks"), *out = NULL;
  int64_t good[] = {2, 8}, wrong[] = {8, 2};
  irm_any ins[] = {irm_any_object(seeded_tensor(good, 2, 1)), irm_any_object(seeded_tensor(wrong, 2, 2))};
  irm_object *one = new_array(ins, 1), *two = new_array(ins, 2);
  ck_assert_error(irm_runtime_module_run(loaded, one, &out), IRM_EVALUE,
                  "ValueError: module 'chk' takes 2 inputs, got 1");
  ck_assert_error(irm_runtime_module_run(loaded, two, &out), IRM_EVALUE,
                  "ValueError: input 'y' of module 'chk': expected shape (2, 8), got (8, 2)");
  irm_any notensor[] = {ins[0], irm_any_int(3)};
  irm_object *three = new_array(notensor, 2);
  ck_assert_error(irm_runtime_module_run(loaded, three, &out), IRM_ETYPE, "TypeError: input 1 ('y')");
  ck_assert_ptr_null(out);
  /* not an AOT library, a missing file */
  irm_object *bad = NULL;
  ck_assert_error(irm_runtime_load(IRM_AOT_TEST_DIR "/nothing-here.so", &bad), IRM_ERUNTIME,
                  "RuntimeError: runtime.Load: cannot load the library");
  irm_object_release(one);
  irm_object_release(two);
  irm_object_release(three);
  irm_any_release(&ins[0]);
  irm_any_release(&ins[1]);
  irm_object_release(loaded);
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

/* Issue 39, D9: an index out of range at run time is reported as one, not
 * as a division by zero (aot unpacked and packed, graph). */
START_TEST(test_an_index_out_of_range_is_named) {
  irm_module *m = parse_module(IP_HEAD "def @main(%x: Tensor[(4), float32], %i: Tensor[(2), int32]) {\n"
                                       "  %0 = take(%x, %i, axis=0);\n  %0\n}\n");
  int64_t four[] = {4}, two[] = {2};
  DLDataType i32 = {kDLInt, 32, 1};
  int32_t bad_index[] = {1, 9};
  irm_tensor *idx = NULL;
  ck_assert_ok(irm_tensor_new(i32, two, 1, bad_index, &idx));
  irm_any ins[] = {irm_any_object(seeded_tensor(four, 1, 1)), irm_any_object((irm_object *)idx)};
  irm_object *in = new_array(ins, 2);
  for (int which = 0; which < 3; which++) {
    irm_object *e = which == 0 ? c_unpacked() : NULL, *r = NULL, *loaded = NULL, *out = NULL;
    if (which == 1) {
      const char *keys[] = {"interface-api", "unpacked-api"};
      irm_any vals[] = {irm_any_str("packed"), irm_any_bool(false)};
      e = aot_executor(keys, vals, 2);
    } else if (which == 2) {
      ck_assert_ok(irm_executor_create("graph", NULL, &e));
    }
    ck_assert_ok(aot_try_build(m, "c", e, which == 2 ? "cpp" : "crt", NULL, "d9", &r));
    char tag[16];
    snprintf(tag, sizeof tag, "d9_%d", which);
    loaded = aot_export_load(r, tag);
    ck_assert_int_ne(irm_runtime_module_run(loaded, in, &out), IRM_OK);
    /* D9: the op, the index, the range, the axis and the kernel, from every loader */
    ck_assert_error_mentions("take: index 9 is out of range [-4, 4) on axis 0 (kernel tvmgen_d9_fused_take");
    if (which == 2) ck_assert_error_mentions("run: node "); /* the graph runner names the node too */
    ck_assert_ptr_null(out);
    if (which == 0) { /* the C interface's header declares the text's getter */
      const char *h = irm_string_data(aot_artifact(r, "tvmgen_d9.h"));
      ck_assert_ptr_nonnull(strstr(h, "const char *tvmgen_d9_last_error(void);"));
    }
    irm_object_release(loaded);
    irm_object_release(r);
    irm_object_release(e);
  }
  irm_object_release(in);
  irm_any_release(&ins[0]);
  irm_any_release(&ins[1]);
  irm_object_release(m);
}
END_TEST

/* Runs of one module on two threads at once, each with its own bad index:
 * each run's message names its own (the record is per thread). */
typedef struct d9_run {
  irm_object *loaded, *in;
  int32_t index;
  int wrong; /* runs whose message named another index */
} d9_run;

static void *d9_runs(void *arg) {
  d9_run *d = arg;
  char want[64];
  snprintf(want, sizeof want, "index %d is out of range", (int)d->index);
  for (int i = 0; i < 40; i++) {
    irm_object *out = NULL;
    if (irm_runtime_module_run(d->loaded, d->in, &out) == IRM_OK || !strstr(irm_last_error(), want)) d->wrong++;
    irm_object_release(out);
  }
  return NULL;
}

START_TEST(test_concurrent_index_errors_keep_their_own_record) {
  irm_module *m = parse_module(IP_HEAD "def @main(%x: Tensor[(4), float32], %i: Tensor[(2), int32]) {\n"
                                       "  %0 = take(%x, %i, axis=0);\n  %0\n}\n");
  irm_object *e = c_unpacked(), *r = NULL;
  ck_assert_ok(aot_try_build(m, "c", e, "crt", NULL, "d9t", &r));
  irm_object *loaded = aot_export_load(r, "d9_threads");
  int64_t four[] = {4}, two[] = {2};
  DLDataType i32 = {kDLInt, 32, 1};
  int32_t bad[2][2] = {{0, 7}, {-6, 1}};
  d9_run runs[2];
  pthread_t t[2];
  irm_any ins[2][2];
  for (int k = 0; k < 2; k++) {
    irm_tensor *idx = NULL;
    ck_assert_ok(irm_tensor_new(i32, two, 1, bad[k], &idx));
    ins[k][0] = irm_any_object(seeded_tensor(four, 1, 1));
    ins[k][1] = irm_any_object((irm_object *)idx);
    runs[k] = (d9_run){loaded, new_array(ins[k], 2), k ? -6 : 7, 0};
  }
  for (int k = 0; k < 2; k++) ck_assert_int_eq(pthread_create(&t[k], NULL, d9_runs, &runs[k]), 0);
  for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
  for (int k = 0; k < 2; k++) {
    ck_assert_int_eq(runs[k].wrong, 0);
    irm_object_release(runs[k].in);
    irm_any_release(&ins[k][0]);
    irm_any_release(&ins[k][1]);
  }
  irm_object_release(loaded);
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

START_TEST(test_export_errors_show_the_command) {
  irm_module *m = parse_module(AOT_MAIN);
  irm_object *e = c_unpacked(), *p = aot_weight_params();
  /* -mattr becomes -m<feature>: an unknown feature makes cc fail, showing the command and its output */
  irm_object *r = aot_build(m, "llvm -mattr=+nosuchfeature", e, "crt", p, "ex");
  char path[1024];
  aot_path("export_errors", "lib.so", path, sizeof path);
  ck_assert_int_eq(irm_build_export_library(r, path), IRM_ERUNTIME);
  ck_assert_error_mentions("the compiler failed");
  ck_assert_error_mentions("-mnosuchfeature");
  ck_assert_error_mentions("the compiler failed on 'tvmgen_ex__"); /* a unit: the first of those that ran */
  ck_assert_error_mentions("command: cd '");
  irm_object_release(r);
  /* -mcpu becomes -march on x86 (-mcpu elsewhere) */
  r = aot_build(m, "llvm -mcpu=nosuchcpu", e, "crt", p, "ex");
  ck_assert_int_eq(irm_build_export_library(r, path), IRM_ERUNTIME);
#if defined(__x86_64__) || defined(__i386__)
  ck_assert_error_mentions("-march='nosuchcpu'");
#else
  ck_assert_error_mentions("-mcpu='nosuchcpu'");
#endif
  irm_object_release(r);
  /* a target of another architecture without its cross compiler: the error names it and its package
     (tests/tools/check_cli_cross.py runs the cross-compiled result under qemu) */
#if defined(__x86_64__)
  r = aot_build(m, "llvm -mtriple=aarch64-linux-gnu", e, "crt", p, "ex");
  char *saved_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
  setenv("PATH", "/nonexistent", 1);
  ck_assert_int_eq(irm_build_export_library(r, path), IRM_EVALUE);
  ck_assert_error_mentions("'aarch64-linux-gnu-gcc' is not installed");
  ck_assert_error_mentions("apt-get install gcc-aarch64-linux-gnu");
  if (saved_path) setenv("PATH", saved_path, 1);
  free(saved_path);
  irm_object_release(r);
#endif
  /* a build without C sources (a build result whose artifacts are empty) */
  irm_object *built = bu_build_text(m, "c"), *none = NULL;
  ck_assert_ok(irm_map_new(&none));
  const char *keys[] = {"module", "artifacts"};
  irm_any vals[] = {irm_any_object(bu_part(built, "module")), irm_any_object(none)};
  ck_assert_ok(irm_map_from_pairs(keys, vals, 2, &r));
  irm_object_release(none);
  irm_object_release(built);
  ck_assert_int_eq(irm_build_export_library(r, path), IRM_EVALUE);
  ck_assert_error_mentions("no C source");
  irm_object_release(r);
  /* IRM_RUNTIME_INCLUDE overrides the runtime headers' folder */
  r = aot_build(m, "c", e, "crt", p, "ex");
  setenv("IRM_RUNTIME_INCLUDE", "/nonexistent-irm-runtime", 1);
  ck_assert_int_eq(irm_build_export_library(r, path), IRM_ERUNTIME);
  ck_assert_error_mentions("-I'/nonexistent-irm-runtime'");
  unsetenv("IRM_RUNTIME_INCLUDE");
  ck_assert_ok(irm_build_export_library(r, path));
  irm_object_release(r);
  irm_object_release(p);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

START_TEST(test_codegen_errors_leave_the_input_intact) {
  irm_module *m = parse_module(AOT_MAIN);
  irm_object *e = c_unpacked(), *r = NULL;
  size_t globals = bu_global_count();
  ck_assert_int_eq(aot_try_build(m, "c", e, "crt", NULL, "bad-name", &r), IRM_EVALUE);
  ck_assert_error_mentions("mod_name 'bad-name' must be a C identifier");
  ck_assert_ptr_null(r);
  ck_assert_uint_eq(bu_global_count(), globals);
  ck_assert_ptr_null(irm_module_target(m));
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

START_TEST(test_names_are_sanitized) {
  /* names that are C keywords or standard macros get a prefix, and the header compiles (issue 39, D11) */
  irm_module *m =
      parse_module(IP_HEAD "def @main(%int: Tensor[(4,), float32], %NULL: Tensor[(4,), float32], %NAN: Tensor[(4,), "
                           "float32], %float: Tensor[(4,), float32], %a.b: Tensor[(4,), float32]) {\n"
                           "  %0 = add(%int, %NULL);\n  %1 = add(%0, %NAN);\n  %2 = add(%1, %float);\n"
                           "  %3 = add(%2, %a.b);\n  %3\n}\n");
  irm_object *e = c_unpacked();
  irm_object *r = aot_build(m, "c", e, "crt", NULL, "san");
  const char *h = irm_string_data(aot_artifact(r, "tvmgen_san.h"));
  ck_assert_msg(strstr(h, "void *v_int;\n  void *v_NULL;\n  void *v_NAN;\n  void *v_float;\n  void *a_b;") != NULL,
                "%s", h);
  irm_object *loaded = aot_export_load(r, "sanitized");
  aot_compare(m, loaded, 5, 40);
  irm_object_release(loaded);
  irm_object_release(r);
  irm_object_release(m);
  /* two names that become one C name are an error naming both */
  m = parse_module(IP_HEAD "def @main(%a.b: Tensor[(4,), float32], %a_b: Tensor[(4,), float32]) {\n"
                           "  %0 = add(%a.b, %a_b);\n  %0\n}\n");
  ck_assert_int_eq(aot_try_build(m, "c", e, "crt", NULL, "san", &r), IRM_EVALUE);
  ck_assert_error_mentions("the inputs %a.b and %a_b both become the C field 'a_b'");
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

/* A reshape runs nothing (TVM's __nop): of main's input it reads the
 * caller's data, of a temporary that dies there it takes its buffer; the
 * kernel hooks number only the calls that run. */
START_TEST(test_reshapes_run_nothing) {
  irm_module *m = parse_module(IP_HEAD "def @main(%x: Tensor[(2, 3, 4), float32], %w: Tensor[(5, 12), float32], "
                                       "%v: Tensor[(3, 2), float32]) {\n"
                                       "  %0 = reshape(%x, newshape=[2, 12]);\n  %1 = nn.dense(%0, %w);\n"
                                       "  %2 = reshape(%1, newshape=[5, 2]);\n  %3 = nn.dense(%2, %v);\n  %3\n}\n");
  for (int which = 0; which < 3; which++) {
    const char *rt;
    irm_object *e = aot_config(which, &rt);
    irm_object *r = aot_build(m, "c", e, rt, NULL, "views");
    const char *body = strstr(source(r, "views"), "tvmgen_views_body(");
    ck_assert_ptr_nonnull(body);
    size_t calls = 0;
    for (const char *c = body; (c = strstr(c, "IRM_CRT_KERNEL_ENTER(")) != NULL; c++) calls++;
    ck_assert_uint_eq(calls, 2); /* the two dense kernels */
    ck_assert_ptr_nonnull(strstr(body, "IRM_CRT_KERNEL_ENTER(1, "));
    char tag[32];
    snprintf(tag, sizeof tag, "views%d", which);
    irm_object *loaded = aot_export_load(r, tag);
    aot_compare(m, loaded, 3, 50 + (uint64_t)which);
    irm_object_release(loaded);
    irm_object_release(r);
    irm_object_release(e);
  }
  irm_object_release(m);
}
END_TEST

START_TEST(test_defaults) {
  /* aot without options, the default runtime (cpp): packed interface, packed wrappers, linked params */
  irm_module *m = parse_module(AOT_MAIN);
  irm_object *e = NULL, *p = aot_weight_params(), *result = NULL;
  ck_assert_ok(irm_executor_create("aot", NULL, &e));
  irm_any t = irm_any_str("c");
  ck_assert_ok(irm_build(m, &t, NULL, e, NULL, p, NULL, &result));
  irm_module *out = bu_part(result, "module");
  ck_assert_str_eq(irm_config_kind_name(irm_module_runtime(out)), "cpp");
  ck_assert_str_eq(irm_module_mod_name(out), "default");
  ck_assert_uint_eq(irm_map_size(bu_part(result, "params")), 1);
  ck_assert_uint_eq(irm_map_size(bu_part(result, "artifacts")), 3); /* the source, the params file, its .S */
  const char *c = source(result, "default");
  ck_assert_ptr_nonnull(strstr(c, "tvmgen_default___tvm_main__"));
  ck_assert_ptr_nonnull(strstr(c, "_packed(void *args"));
  ck_assert_ptr_nonnull(strstr(c, "static const float *const tvmgen_default_const_0 = "));
  ck_assert_ptr_nonnull(strstr(c, "\\\"memory_plan\\\": \\\"greedy_by_conflicts\\\"")); /* planned by default */
  irm_object_release(result);
  irm_object_release(p);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("aot");
  TCase *tc = tcase_create("aot");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_c_interface_header_and_entry);
  tcase_add_test(tc, test_packed_interface_and_wrappers);
  tcase_add_test(tc, test_tuple_outputs);
  tcase_add_test(tc, test_link_params_off_writes_a_params_file);
  tcase_add_test(tc, test_alignments_visible_in_the_code);
  tcase_add_test(tc, test_usmp_attributes_choose_the_planner);
  tcase_add_test(tc, test_loader_checks_inputs);
  tcase_add_test(tc, test_export_errors_show_the_command);
  tcase_add_test(tc, test_codegen_errors_leave_the_input_intact);
  tcase_add_test(tc, test_names_are_sanitized);
  tcase_add_test(tc, test_an_index_out_of_range_is_named);
  tcase_add_test(tc, test_reshapes_run_nothing);
  tcase_add_test(tc, test_concurrent_index_errors_keep_their_own_record);
  tcase_add_test(tc, test_defaults);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
