/* The schedule records of runtime/kernels' blocked convs (docs/kernels.md,
 * "Schedules"; backend/codegen/schedule.c): the default rule's choices for
 * workloads at blocks 4, 8 and 16, and the records a build of blocked
 * convs writes into the library's metadata ("schedules") for both
 * executors, read back from the exported, loaded library: hand-blocked
 * convs, and an NCHW model AlterOpLayout blocks (direct, depthwise and
 * Winograd kernels). */
#include <jansson.h>

#include "check_aot_util.h"
#include "schedule.h"

/* ---- the default rule ----------------------------------------------------------------------------- */

/* A stride-1 (s 1) or stride-2 workload of kind k, its packed sizes as
 * AlterOpLayout makes them (whole blocks, oc_vecs vectors per weight tile). */
static irm_sched_workload_ workload(irm_sched_kind_ k, int64_t block, int64_t ic, int64_t oc, int64_t hw, int64_t kk,
                                    int64_t s, int64_t pad, int oc_vecs) {
  irm_sched_workload_ w;
  memset(&w, 0, sizeof w);
  int64_t ocb = (oc + block - 1) / block, wtile = block * oc_vecs;
  w.kind = k, w.n = 1, w.ic = ic, w.ih = hw, w.iw = hw, w.oc = oc, w.kh = kk, w.kw = kk;
  w.oh = w.ow = (hw + 2 * pad - kk) / s + 1;
  w.strides[0] = w.strides[1] = s, w.dilation[0] = w.dilation[1] = 1, w.padding[0] = w.padding[1] = pad;
  w.groups = k == IRM_SCHED_DEPTHWISE_NCHWC ? oc : 1, w.block = block;
  w.packed_ic = (ic + block - 1) / block * block, w.out_blocks = ocb;
  int64_t wic = k == IRM_SCHED_DEPTHWISE_NCHWC ? 1 : w.packed_ic;
  w.weight_elems = (oc + wtile - 1) / wtile * wtile * wic * kk * kk;
  return w;
}

typedef struct rule_case {
  const char *name;
  irm_sched_kind_ kind;
  int64_t block, ic, oc, hw, kk, s, pad;
  int oc_vecs;
  int ow_tile, want_vecs;
  irm_sched_order_ order;
  int padded;
} rule_case;

static const rule_case rule_cases[] = {
    /* block 16 (32 registers): 14 x 2, a ResNet 3x3 */
    {"b16_3x3", IRM_SCHED_CONV2D_NCHWC, 16, 64, 64, 56, 3, 1, 1, 2, 14, 2, IRM_SCHED_OC_OUTER, 0},
    {"b16_4vecs", IRM_SCHED_CONV2D_NCHWC, 16, 64, 128, 28, 3, 1, 1, 4, 6, 4, IRM_SCHED_OC_OUTER, 1},
    /* 7 columns, one of them in the padding on each side: through a padded copy, all 7 in one tile */
    {"b16_7x7map", IRM_SCHED_CONV2D_NCHWC, 16, 512, 512, 7, 3, 1, 1, 2, 7, 2, IRM_SCHED_OC_OUTER, 1},
    {"b16_dw", IRM_SCHED_DEPTHWISE_NCHWC, 16, 32, 32, 112, 3, 1, 1, 1, 14, 1, IRM_SCHED_OC_OUTER, 0},
    {"b16_wino", IRM_SCHED_WINOGRAD_NCHWC, 16, 64, 64, 56, 3, 1, 1, 2, 14, 2, IRM_SCHED_OC_OUTER, 0},
    /* block 8 (16 registers): 6 x 2 */
    {"b8_3x3", IRM_SCHED_CONV2D_NCHWC, 8, 32, 64, 56, 3, 1, 1, 2, 6, 2, IRM_SCHED_OC_OUTER, 0},
    /* an RGB stem: a small weight, a large input, so the weights stream once per row */
    {"b8_stem", IRM_SCHED_CONV2D_NCHWC, 8, 3, 32, 224, 3, 2, 1, 2, 6, 2, IRM_SCHED_ROW_OUTER, 0},
    {"b8_dw", IRM_SCHED_DEPTHWISE_NCHWC, 8, 32, 32, 56, 3, 1, 1, 1, 8, 1, IRM_SCHED_OC_OUTER, 0},
    /* 8 columns: 4 Winograd tiles */
    {"b8_wino", IRM_SCHED_WINOGRAD_NCHWC, 8, 16, 16, 8, 3, 1, 1, 2, 4, 2, IRM_SCHED_OC_OUTER, 0},
    /* block 4 (16 registers): one vector per tile takes 14 pixels */
    {"b4_3x3", IRM_SCHED_CONV2D_NCHWC, 4, 8, 8, 32, 3, 1, 1, 1, 14, 1, IRM_SCHED_OC_OUTER, 0},
    {"b4_2vecs", IRM_SCHED_CONV2D_NCHWC, 4, 8, 16, 32, 3, 1, 1, 2, 6, 2, IRM_SCHED_OC_OUTER, 0},
    /* a 1x1 conv of few channels on a wide map: the weights are the smaller stream */
    {"b4_1x1_rows", IRM_SCHED_CONV2D_NCHWC, 4, 8, 8, 16, 1, 1, 0, 1, 14, 1, IRM_SCHED_ROW_OUTER, 0},
    {"b4_dw", IRM_SCHED_DEPTHWISE_NCHWC, 4, 8, 8, 16, 3, 1, 1, 1, 8, 1, IRM_SCHED_OC_OUTER, 0},
    /* fewer tiles than registers: 3 Winograd tiles in 6 columns */
    {"b4_wino", IRM_SCHED_WINOGRAD_NCHWC, 4, 8, 8, 6, 3, 1, 1, 1, 3, 1, IRM_SCHED_OC_OUTER, 0},
};

START_TEST(test_default_rule) {
  const rule_case *k = &rule_cases[_i];
  irm_sched_workload_ w = workload(k->kind, k->block, k->ic, k->oc, k->hw, k->kk, k->s, k->pad, k->oc_vecs);
  irm_sched_choice_ c;
  memset(&c, 0xff, sizeof c);
  irm_cg_schedule_default_(&w, k->oc_vecs, &c);
  ck_assert_msg(c.block == k->block && c.ow_tile == k->ow_tile && c.oc_vecs == k->want_vecs && c.unroll == 1 &&
                    c.order == k->order && c.padded == k->padded,
                "%s: block %lld ow_tile %d oc_vecs %d unroll %d order %s padded %d", k->name, (long long)c.block,
                c.ow_tile, c.oc_vecs, c.unroll, irm_sched_order_name_(c.order), c.padded);
  /* the register budget holds: accumulators, weights, one broadcast */
  int regs = k->block >= 16 ? 32 : 16;
  if (k->kind != IRM_SCHED_DEPTHWISE_NCHWC) ck_assert_int_le(c.ow_tile * c.oc_vecs + c.oc_vecs + 1, regs);
}
END_TEST

/* What threads split: rows, unless an OC_OUTER conv's weights outweigh
 * its input and output (then its tiles); a tuned order changes it. */
START_TEST(test_split_rule) {
  static const struct {
    irm_sched_kind_ kind;
    int64_t ic, oc, hw, kk;
    irm_sched_split_ split;
  } cases[] = {
      {IRM_SCHED_CONV2D_NCHWC, 64, 64, 56, 3, IRM_SCHED_SPLIT_ROWS},     /* 37K weights, 200K inputs */
      {IRM_SCHED_CONV2D_NCHWC, 512, 512, 7, 3, IRM_SCHED_SPLIT_TILES},   /* 2.4M weights, 25K inputs */
      {IRM_SCHED_CONV2D_NCHWC, 320, 1280, 7, 1, IRM_SCHED_SPLIT_TILES},  /* MobileNet's last 1x1 */
      {IRM_SCHED_CONV2D_NCHWC, 64, 384, 14, 1, IRM_SCHED_SPLIT_ROWS},    /* its output outweighs the weights */
      {IRM_SCHED_DEPTHWISE_NCHWC, 960, 960, 7, 3, IRM_SCHED_SPLIT_ROWS}, /* depthwise: always rows */
      {IRM_SCHED_WINOGRAD_NCHWC, 512, 512, 7, 3, IRM_SCHED_SPLIT_ROWS},  /* Winograd: rows of tiles */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    irm_sched_workload_ w =
        workload(cases[i].kind, 16, cases[i].ic, cases[i].oc, cases[i].hw, cases[i].kk, 1, cases[i].kk / 2, 2);
    irm_sched_choice_ c;
    irm_cg_schedule_default_(&w, 2, &c);
    ck_assert_msg(c.split == cases[i].split, "case %zu: split %s", i, irm_sched_split_name_(c.split));
  }
  /* a tuned row_outer order splits rows whatever the weights */
  irm_sched_workload_ w = workload(IRM_SCHED_CONV2D_NCHWC, 16, 512, 512, 7, 3, 1, 1, 2);
  irm_sched_choice_ c;
  irm_cg_schedule_default_(&w, 2, &c);
  ck_assert_int_eq(c.split, IRM_SCHED_SPLIT_TILES);
  c.order = IRM_SCHED_ROW_OUTER;
  irm_cg_schedule_split_(&w, &c);
  ck_assert_int_eq(c.split, IRM_SCHED_SPLIT_ROWS);
  ck_assert_str_eq(irm_sched_split_name_(IRM_SCHED_SPLIT_ROWS), "rows");
  ck_assert_str_eq(irm_sched_split_name_(IRM_SCHED_SPLIT_TILES), "tiles");
}
END_TEST

START_TEST(test_names) {
  ck_assert_str_eq(irm_sched_kind_name_(IRM_SCHED_CONV2D_NCHWC), "conv2d_nchwc");
  ck_assert_str_eq(irm_sched_kind_name_(IRM_SCHED_DEPTHWISE_NCHWC), "depthwise_nchwc");
  ck_assert_str_eq(irm_sched_kind_name_(IRM_SCHED_WINOGRAD_NCHWC), "winograd_nchwc");
  ck_assert_str_eq(irm_sched_order_name_(IRM_SCHED_OC_OUTER), "oc_outer");
  ck_assert_str_eq(irm_sched_order_name_(IRM_SCHED_ROW_OUTER), "row_outer");
}
END_TEST

/* ---- the records in the metadata -------------------------------------------------------------------- */

#define TY(shape) "Tensor[" shape ", float32]"
/* a conv of 8 into 12 channels (weight tiles of two blocks of 4), relu, a
 * depthwise conv of the 12: two kernels at block 4 (target "c") */
#define BLOCKED_MODEL                                                                                                                 \
  IP_HEAD "def @main(%d: " TY("(1, 2, 7, 9, 4)") ", %w: " TY("(2, 2, 3, 3, 4, 8)") ", %v: " TY(                                       \
      "(3, 1, 3, 3, 1, 4)") ") {\n"                                                                                                   \
                            "  %0 = nn.contrib_conv2d_NCHWc(%d, %w, padding=[1, 1], channels=12, data_layout=\"NCHW4c\", "            \
                            "kernel_layout=\"OIHW4i8o\");\n"                                                                          \
                            "  %1 = nn.relu(%0);\n"                                                                                   \
                            "  %2 = nn.contrib_conv2d_NCHWc(%1, %v, padding=[1, 1], groups=12, channels=12, data_layout=\"NCHW4c\", " \
                            "kernel_layout=\"OIHW1i4o\");\n"                                                                          \
                            "  %2\n}\n"

static int64_t get_int(json_t *o, const char *key) {
  json_t *v = json_object_get(o, key);
  ck_assert_msg(json_is_integer(v), "no integer '%s'", key);
  return (int64_t)json_integer_value(v);
}

static void get_pair(json_t *o, const char *key, int64_t out[2]) {
  json_t *v = json_object_get(o, key);
  ck_assert_msg(json_is_array(v) && json_array_size(v) == 2, "no pair '%s'", key);
  for (size_t i = 0; i < 2; i++) out[i] = (int64_t)json_integer_value(json_array_get(v, i));
}

/* One metadata record: its workload back into a struct, its choices
 * checked against the default rule's for it. */
static irm_sched_workload_ check_record(json_t *r, const char *mod_name) {
  const char *kernel = json_string_value(json_object_get(r, "kernel"));
  const char *kind = json_string_value(json_object_get(r, "kind"));
  char prefix[64];
  snprintf(prefix, sizeof prefix, "tvmgen_%s_fused_", mod_name);
  ck_assert_msg(kernel && strncmp(kernel, prefix, strlen(prefix)) == 0, "kernel %s", kernel ? kernel : "(none)");
  ck_assert_ptr_nonnull(kind);
  json_t *wj = json_object_get(r, "workload"), *cj = json_object_get(r, "choices");
  ck_assert(json_is_object(wj) && json_is_object(cj));
  irm_sched_workload_ w;
  memset(&w, 0, sizeof w);
  w.kind = strcmp(kind, "depthwise_nchwc") == 0  ? IRM_SCHED_DEPTHWISE_NCHWC
           : strcmp(kind, "winograd_nchwc") == 0 ? IRM_SCHED_WINOGRAD_NCHWC
                                                 : IRM_SCHED_CONV2D_NCHWC;
  ck_assert_str_eq(irm_sched_kind_name_(w.kind), kind);
  w.n = get_int(wj, "n"), w.ic = get_int(wj, "ic"), w.ih = get_int(wj, "ih"), w.iw = get_int(wj, "iw");
  w.oc = get_int(wj, "oc"), w.oh = get_int(wj, "oh"), w.ow = get_int(wj, "ow");
  w.kh = get_int(wj, "kh"), w.kw = get_int(wj, "kw"), w.groups = get_int(wj, "groups"), w.block = get_int(wj, "block");
  get_pair(wj, "strides", w.strides);
  get_pair(wj, "dilation", w.dilation);
  get_pair(wj, "padding", w.padding);
  w.packed_ic = get_int(wj, "packed_ic"), w.out_blocks = get_int(wj, "out_blocks");
  w.weight_elems = get_int(wj, "weight_elems");
  if (w.kind == IRM_SCHED_WINOGRAD_NCHWC) w.tile = get_int(wj, "tile");
  irm_sched_choice_ want;
  irm_cg_schedule_default_(&w, (int)get_int(cj, "oc_vecs"), &want);
  ck_assert_int_eq(get_int(cj, "block"), want.block);
  ck_assert_int_eq(get_int(cj, "ow_tile"), want.ow_tile);
  ck_assert_int_eq(get_int(cj, "oc_vecs"), want.oc_vecs);
  ck_assert_int_eq(get_int(cj, "unroll"), want.unroll);
  ck_assert_str_eq(json_string_value(json_object_get(cj, "order")), irm_sched_order_name_(want.order));
  return w;
}

/* A library built for target "c", exported, loaded, and its metadata. */
typedef struct built {
  irm_object *result, *loaded, *meta;
  json_t *root, *list; /* list: root's "schedules" */
} built;

static built build_load(const irm_module *m, irm_object *executor, const char *runtime, const char *tag) {
  built b;
  b.result = aot_build(m, "c", executor, runtime, NULL, tag);
  b.loaded = aot_export_load(b.result, tag);
  ck_assert_ok(irm_runtime_module_metadata(b.loaded, &b.meta));
  json_error_t err;
  b.root = json_loads(irm_string_data(b.meta), 0, &err);
  ck_assert_msg(b.root != NULL, "metadata does not parse: %s", err.text);
  b.list = json_object_get(b.root, "schedules");
  ck_assert_msg(json_is_array(b.list), "no schedules in %s", irm_string_data(b.meta));
  /* the metadata's other readers still find their fields */
  ck_assert_ptr_nonnull(json_string_value(json_object_get(b.root, "executor")));
  ck_assert_ptr_nonnull(json_string_value(json_object_get(b.root, "target_features")));
  return b;
}

static void built_free(built *b) {
  json_decref(b->root);
  irm_object_release(b->meta);
  irm_object_release(b->loaded);
  irm_object_release(b->result);
}

static irm_object *aot(void) {
  irm_object *e = NULL;
  ck_assert_ok(irm_executor_create("aot", NULL, &e));
  return e;
}

/* Builds BLOCKED_MODEL with executor, checks its metadata's two records
 * and runs it. */
static void check_metadata(irm_object *executor, const char *runtime, const char *tag) {
  irm_module *m = parse_module(BLOCKED_MODEL);
  built b = build_load(m, executor, runtime, tag);
  json_t *list = b.list;
  ck_assert_msg(json_array_size(list) == 2, "schedules in %s", irm_string_data(b.meta));
  irm_sched_workload_ conv = check_record(json_array_get(list, 0), tag);
  irm_sched_workload_ dw = check_record(json_array_get(list, 1), tag);
  /* the conv: 8 input channels in 2 blocks, 12 output ones in 3, weight tiles of 2 vectors */
  ck_assert_int_eq(conv.kind, IRM_SCHED_CONV2D_NCHWC);
  ck_assert(conv.n == 1 && conv.ic == 8 && conv.ih == 7 && conv.iw == 9 && conv.oc == 12 && conv.oh == 7 &&
            conv.ow == 9 && conv.kh == 3 && conv.kw == 3 && conv.groups == 1 && conv.block == 4);
  ck_assert(conv.strides[1] == 1 && conv.dilation[0] == 1 && conv.padding[0] == 1 && conv.padding[1] == 1);
  ck_assert(conv.packed_ic == 8 && conv.out_blocks == 3 && conv.weight_elems == 2 * 2 * 3 * 3 * 4 * 8);
  json_t *cc = json_object_get(json_array_get(list, 0), "choices");
  ck_assert_int_eq(get_int(cc, "oc_vecs"), 2);
  ck_assert_int_eq(get_int(cc, "ow_tile"), 6); /* 16 registers: 6 x 2 accumulators */
  ck_assert_str_eq(json_string_value(json_object_get(cc, "order")), "oc_outer");
  /* the depthwise conv: 12 channels, one group each; 7 interior columns */
  ck_assert_int_eq(dw.kind, IRM_SCHED_DEPTHWISE_NCHWC);
  ck_assert(dw.ic == 12 && dw.oc == 12 && dw.groups == 12 && dw.weight_elems == 3 * 3 * 3 * 4);
  ck_assert_int_eq(get_int(json_object_get(json_array_get(list, 1), "choices"), "ow_tile"), 7);
  aot_compare(m, b.loaded, 3, 5);
  built_free(&b);
  irm_object_release(m);
}

START_TEST(test_aot_metadata) {
  irm_object *e = aot();
  check_metadata(e, "crt", "sched_aot");
  irm_object_release(e);
}
END_TEST

START_TEST(test_graph_metadata) {
  irm_object *e = bu_executor("graph", "link-params", irm_any_bool(true));
  check_metadata(e, "cpp", "sched_graph");
  irm_object_release(e);
}
END_TEST

/* An NCHW model AlterOpLayout blocks at the target's block (4 for "c"): a
 * 3x3 stride-1 conv on a 14x14 map (Winograd), a stride-2 one and a
 * depthwise one; each kernel's record as the rule says. */
#define NCHW_MODEL                                                                                               \
  IP_HEAD                                                                                                        \
  "def @main(%x: " TY("(1, 8, 14, 14)") ", %w1: " TY("(8, 8, 3, 3)") ", %w2: " TY("(16, 8, 3, 3)") ", %w3: " TY( \
      "(16, 1, 3, 3)") ") {\n"                                                                                   \
                       "  %0 = nn.conv2d(%x, %w1, padding=[1, 1]);\n  %1 = nn.relu(%0);\n"                       \
                       "  %2 = nn.conv2d(%1, %w2, strides=[2, 2], padding=[1, 1]);\n  %3 = nn.relu(%2);\n"       \
                       "  %4 = nn.conv2d(%3, %w3, padding=[1, 1], groups=16);\n  %4\n}\n"

START_TEST(test_altered_model) {
  irm_module *m = parse_module(NCHW_MODEL);
  irm_object *e = aot();
  built b = build_load(m, e, "crt", "sched_nchw");
  int seen[3] = {0, 0, 0};
  for (size_t i = 0; i < json_array_size(b.list); i++) {
    irm_sched_workload_ w = check_record(json_array_get(b.list, i), "sched_nchw");
    ck_assert_int_eq(w.block, 4);
    seen[w.kind]++;
  }
  ck_assert_msg(seen[IRM_SCHED_CONV2D_NCHWC] == 1 && seen[IRM_SCHED_DEPTHWISE_NCHWC] == 1 &&
                    seen[IRM_SCHED_WINOGRAD_NCHWC] == 1,
                "records: %s", irm_string_data(b.meta));
  aot_compare(m, b.loaded, 4, 9);
  built_free(&b);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

/* A ShuffleNet unit at block 4: the channel halves are whole blocks, so
 * AlterOpLayout slices blocks and shuffles blocks and lanes (a 7-D
 * transpose of the blocked tensor); compiled, it computes what the
 * evaluator does on the NCHW model. */
#define SHUFFLE_MODEL                                                                                                \
  IP_HEAD "def @main(%x: " TY("(1, 8, 6, 6)") ", %w1: " TY("(16, 8, 3, 3)") ", %w2: " TY(                            \
      "(8, 8, 1, 1)") ") {\n"                                                                                        \
                      "  %0 = nn.conv2d(%x, %w1, padding=[1, 1]);\n"                                                 \
                      "  %1 = strided_slice(%0, begin=[0], end=[8], axes=[1]);\n"                                    \
                      "  %2 = strided_slice(%0, begin=[8], end=[16], axes=[1]);\n"                                   \
                      "  %3 = nn.conv2d(%2, %w2);\n  %4 = nn.relu(%3);\n  %5 = concatenate(%1, %4, axis=1);\n"       \
                      "  %6 = reshape(%5, newshape=[1, 2, 8, 6, 6]);\n  %7 = transpose(%6, axes=[0, 2, 1, 3, 4]);\n" \
                      "  %8 = reshape(%7, newshape=[1, 16, 6, 6]);\n  %9 = nn.relu(%8);\n"                           \
                      "  %9\n}\n"

START_TEST(test_shuffle_unit) {
  irm_module *m = parse_module(SHUFFLE_MODEL);
  irm_object *e = aot();
  built b = build_load(m, e, "crt", "sched_shuffle");
  aot_compare(m, b.loaded, 3, 11);
  built_free(&b);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

/* A model without blocked convs has an empty list. */
START_TEST(test_no_records) {
  irm_module *m = parse_module(IP_HEAD "def @main(%x: " TY("(2, 8)") ") {\n  %0 = nn.relu(%x);\n  %0\n}\n");
  irm_object *e = aot();
  built b = build_load(m, e, "crt", "sched_none");
  ck_assert_uint_eq(json_array_size(b.list), 0);
  built_free(&b);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("schedule");
  TCase *t = tcase_create("rule");
  tcase_add_loop_test(t, test_default_rule, 0, (int)(sizeof rule_cases / sizeof rule_cases[0]));
  tcase_add_test(t, test_names);
  tcase_add_test(t, test_split_rule);
  suite_add_tcase(s, t);
  t = tcase_create("metadata");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_aot_metadata);
  tcase_add_test(t, test_graph_metadata);
  tcase_add_test(t, test_altered_model);
  tcase_add_test(t, test_shuffle_unit);
  tcase_add_test(t, test_no_records);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return run_suite(suite()); }
