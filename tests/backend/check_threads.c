/* Libraries built for the cpp runtime split their kernels over a thread
 * pool (docs/threads.md): loaded with 1 to 8 threads they give the very
 * bytes a serial crt build gives (direct, padded, depthwise and Winograd
 * convs, a pool, a dense layer and a chain of layers, aot and graph);
 * the thread count's precedence (argument, IRM_NUM_THREADS, the
 * num-threads option) and its errors; the metadata's thread fields and
 * splits (small kernels run whole, a transpose's outer axes joined into
 * enough items); an application's pool sees every parallel_for; one module runs
 * from 8 threads at once, and an aot and a graph module side by side (the
 * case CI also runs under ThreadSanitizer).
 *
 * The libraries are built once per process (cc is slow), in the parent
 * before Check forks each case, and reused by every case. */
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>

/* MODEL's 48x48 3x3 convs run Winograd F(4x4, 3x3): measured 1.1e-4 off
 * ir.Evaluate's double (docs/kernels.md, its error) */
#define AOT_COMPARE_REL 3e-4
#include "check_aot_util.h"
#include "irm_parallel.h"
#include "irm_threadpool.h"

#define TY(shape) "Tensor[" shape ", float32]"
/* Each layer kind the kernels split, on its own input, plus a chain, a
 * channel shuffle (its transpose reading the concatenation in parts) and
 * a concatenation of two images of 32 channels with themselves (copied by
 * bands of rows of 96 floats across threads, a band crossing from one
 * image to the next), a strided slice (every other row of 48 channels,
 * a memcpy a row, split over channels x rows) and ShuffleNet's unit on
 * halves of 6 channels, not whole blocks of the plain target's 4 (its
 * moves channel maps between blocked tensors, split over rows): work above the 2^16 multiply-add threshold for every conv
 * (irm_cg_chunk_). */
#define MODEL                                                                                                                                                                                                                                                                                                                                                                                         \
  IP_HEAD                                                                                                                                                                                                                                                                                                                                                                                             \
  "def @main(%x: " TY("(1, 16, 48, 48)") ", %y: " TY("(1, 16, 14, 14)") ", %z: " TY("(1, 64, 48, 48)") ", %a: " TY("(1, 512)") ", %w1: " TY(                                                                                                                                                                                                                                                          \
      "(32, 16, 3, 3)") ", %w2: " TY("(16, 16, 5, 5)") ", %w3: " TY("(64, 1, 3, 3)") ", %w4: " TY("(16, 16, 3, 3)") ", %wd: " TY("(256, 512)") ", %s: " TY("(1, 16, 32, 32)") ", %t: " TY("(1, 16, 32, 32)") ", %w6: " TY("(12, 16, 1, 1)") ", %w7: " TY("(6, 6, 1, 1)") ", %w8: " TY("(12, 12, 1, 1)") ") {\n"                                                                                       \
                                                                                                                                                                                                                                                                                                        "  %0 = nn.conv2d(%x, %w1, strides=[2, 2], padding=[1, 1]);\n"                                \
                                                                                                                                                                                                                                                                                                        "  %1 = nn.conv2d(%y, %w2, padding=[2, 2]);\n"                                                \
                                                                                                                                                                                                                                                                                                        "  %2 = nn.conv2d(%z, %w3, padding=[1, 1], groups=64);\n"                                     \
                                                                                                                                                                                                                                                                                                        "  %3 = nn.conv2d(%x, %w4, padding=[1, 1]);\n"                                                \
                                                                                                                                                                                                                                                                                                        "  %4 = nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1]);\n"               \
                                                                                                                                                                                                                                                                                                        "  %5 = nn.dense(%a, %wd);\n"                                                                 \
                                                                                                                                                                                                                                                                                                        "  %6 = nn.relu(%3);\n"                                                                       \
                                                                                                                                                                                                                                                                                                        "  %7 = nn.conv2d(%6, %w4, padding=[1, 1]);\n"                                                \
                                                                                                                                                                                                                                                                                                        "  %8 = nn.relu(%7);\n"                                                                       \
                                                                                                                                                                                                                                                                                                        "  %9 = nn.conv2d(%8, %w1, strides=[2, 2], padding=[1, 1]);\n"                                \
                                                                                                                                                                                                                                                                                                        "  %10 = nn.max_pool2d(%9, pool_size=[2, 2], strides=[2, 2]);\n"                              \
                                                                                                                                                                                                                                                                                                        "  %11 = concatenate(%s, %t, axis=1);\n"                                                      \
                                                                                                                                                                                                                                                                                                        "  %12 = reshape(%11, newshape=[1, 2, 16, 32, 32]);\n"                                        \
                                                                                                                                                                                                                                                                                                        "  %13 = transpose(%12, axes=[0, 2, 1, 3, 4]);\n"                                             \
                                                                                                                                                                                                                                                                                                        "  %14 = reshape(%13, newshape=[1, 32, 32, 32]);\n"                                           \
                                                                                                                                                                                                                                                                                                        "  %15 = reshape(%z, newshape=[2, 32, 24, 96]);\n"                                            \
                                                                                                                                                                                                                                                                                                        "  %16 = concatenate(%15, %15, axis=1);\n"                                                    \
                                                                                                                                                                                                                                                                                                        "  %17 = strided_slice(%z, begin=[0, 8, 0, 0], end=[1, 56, 48, 48], strides=[1, 1, 2, 1]);\n" \
                                                                                                                                                                                                                                                                                                        "  %18 = nn.conv2d(%x, %w6);\n"                                                               \
                                                                                                                                                                                                                                                                                                        "  %19 = strided_slice(%18, begin=[0], end=[6], axes=[1]);\n"                                 \
                                                                                                                                                                                                                                                                                                        "  %20 = strided_slice(%18, begin=[6], end=[12], axes=[1]);\n"                                \
                                                                                                                                                                                                                                                                                                        "  %21 = nn.conv2d(%20, %w7);\n  %22 = nn.relu(%21);\n"                                       \
                                                                                                                                                                                                                                                                                                        "  %23 = concatenate(%19, %22, axis=1);\n"                                                    \
                                                                                                                                                                                                                                                                                                        "  %24 = reshape(%23, newshape=[1, 2, 6, 48, 48]);\n"                                         \
                                                                                                                                                                                                                                                                                                        "  %25 = transpose(%24, axes=[0, 2, 1, 3, 4]);\n"                                             \
                                                                                                                                                                                                                                                                                                        "  %26 = reshape(%25, newshape=[1, 12, 48, 48]);\n"                                           \
                                                                                                                                                                                                                                                                                                        "  %27 = nn.conv2d(%26, %w8);\n"                                                              \
                                                                                                                                                                                                                                                                                                        "  %28 = (%0, %1, %2, %3, %4, %5, %10, %14, %16, %17, %27);\n  %28\n}\n"
#define N_INPUTS 14
#define N_OUTPUTS 11

/* A small model for the precedence cases: one conv (below the threshold: the count still applies). */
#define SMALL                                                 \
  IP_HEAD "def @main(%x: " TY("(1, 16, 16, 16)") ", %w: " TY( \
      "(16, 16, 3, 3)") ") {\n"                               \
                        "  %0 = nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1]);\n  %1 = nn.relu(%0);\n  %1\n}\n"

enum { LIB_AOT_CRT, LIB_AOT_CPP, LIB_GRAPH_CPP, LIB_SMALL_CPP2, N_LIBS };
static const char *const lib_tags[N_LIBS] = {"thr_aot_crt", "thr_aot_cpp", "thr_graph_cpp", "thr_small"};
static char lib_paths[N_LIBS][1024];
static const char *const executors[] = {"aot", "graph"};

/* Builds and exports library `which` unless this process already did. */
static void ensure_lib(int which) {
  if (lib_paths[which][0]) return;
  const char *tag = lib_tags[which];
  irm_module *m = parse_module(which == LIB_SMALL_CPP2 ? SMALL : MODEL);
  irm_object *e = NULL;
  if (which == LIB_GRAPH_CPP) e = bu_executor("graph", "link-params", irm_any_bool(true));
  else ck_assert_ok(irm_executor_create("aot", NULL, &e));
  /* the main cpp builds split for 8 threads (32 chunks); the small one is num-threads 2 */
  irm_object *opts = which == LIB_AOT_CRT ? NULL : map1("num-threads", irm_any_int(which == LIB_SMALL_CPP2 ? 2 : 8));
  irm_object *rt = NULL, *result = NULL;
  ck_assert_ok(irm_runtime_create(which == LIB_AOT_CRT ? "crt" : "cpp", opts, &rt));
  irm_any target = irm_any_str("c");
  int rc = irm_build(m, &target, NULL, e, rt, NULL, tag, &result);
  ck_require(rc == 0, "%s: build failed: %s", tag, irm_last_error());
  char path[1024];
  aot_path(tag, "lib.so", path, sizeof path);
  ck_assert_ok(irm_build_export_library(result, path));
  snprintf(lib_paths[which], sizeof lib_paths[which], "%s", path);
  irm_object_release(result);
  irm_object_release(rt);
  if (opts) irm_object_release(opts);
  irm_object_release(e);
  irm_object_release(m);
}

static void build_all(void) {
  for (int i = 0; i < N_LIBS; i++) ensure_lib(i);
}

static void build_concurrent(void) {
  ensure_lib(LIB_AOT_CPP);
  ensure_lib(LIB_GRAPH_CPP);
}

static irm_object *load(int which, int32_t threads) {
  irm_object *m = NULL;
  int rc = irm_runtime_load_threads(lib_paths[which], NULL, threads, &m);
  ck_require(rc == 0, "loading %s with %d threads: %s", lib_tags[which], threads, irm_last_error());
  return m;
}

static int32_t threads_of(const irm_object *m) {
  int32_t n = -7;
  ck_assert_ok(irm_runtime_module_num_threads(m, &n));
  return n;
}

/* Seeded inputs of MODEL (every param, weights included); NEW. */
static irm_object *model_inputs(uint64_t seed) {
  irm_module *m = parse_module(MODEL);
  irm_object *in = bu_main_inputs(m, NULL, N_INPUTS, seed);
  irm_object_release(m);
  return in;
}

/* The outputs of a run (NEW); NULL when the run fails (no Check call, so
 * worker threads may use it). */
static irm_object *try_run(const irm_object *mod, const irm_object *inputs) {
  irm_object *outs = NULL;
  return irm_runtime_module_run(mod, inputs, &outs) ? NULL : outs;
}

static irm_object *run(const irm_object *mod, const irm_object *inputs) {
  irm_object *outs = try_run(mod, inputs);
  ck_require(outs != NULL, "run failed: %s", irm_last_error());
  return outs;
}

/* Whether two runs' outputs hold the same bytes. */
static int same_bytes(const irm_object *a, const irm_object *b) {
  if (!a || !b || irm_array_size(a) != irm_array_size(b)) return 0;
  for (size_t i = 0; i < irm_array_size(a); i++) {
    const irm_tensor *x = irm_array_at(a, i)->v_obj, *y = irm_array_at(b, i)->v_obj;
    size_t n = irm_tensor_nbytes(x);
    if (n == 0 || n != irm_tensor_nbytes(y) || memcmp(irm_tensor_data_const(x), irm_tensor_data_const(y), n) != 0)
      return 0;
  }
  return 1;
}

/* Runs mod on in and compares with want (a failed run differs). */
static int run_matches(const irm_object *mod, const irm_object *in, const irm_object *want) {
  irm_object *got = try_run(mod, in);
  int same = same_bytes(want, got);
  if (got) irm_object_release(got);
  return same;
}

/* Seeded inputs and the serial crt build's outputs for them. */
typedef struct serial {
  irm_object *in, *ref, *want;
} serial;

static serial serial_run(uint64_t seed) {
  serial s;
  s.in = model_inputs(seed);
  s.ref = load(LIB_AOT_CRT, -1);
  s.want = run(s.ref, s.in);
  return s;
}

static void serial_free(serial *s) {
  irm_object_release(s->want);
  irm_object_release(s->ref);
  irm_object_release(s->in);
}

static int lib_of(int executor) { return executor == 0 ? LIB_AOT_CPP : LIB_GRAPH_CPP; }

/* ---- bitwise results for 1..8 threads ------------------------------------------------------------- */

START_TEST(test_threads_give_the_serial_bytes) {
  serial s = serial_run(11);
  ck_assert_uint_eq(irm_array_size(s.want), N_OUTPUTS);
  for (int32_t n = 1; n <= 8; n++) {
    irm_object *m = load(lib_of(_i), n);
    ck_assert_int_eq(threads_of(m), n);
    ck_assert_msg(run_matches(m, s.in, s.want), "%s with %d threads differs from the serial build", executors[_i], n);
    /* a second run on the same workspace too */
    ck_assert_msg(run_matches(m, s.in, s.want), "%s with %d threads, second run", executors[_i], n);
    irm_object_release(m);
  }
  serial_free(&s);
}
END_TEST

/* The serial reference itself against ir.Evaluate, once. */
START_TEST(test_serial_build_matches_evaluate) {
  irm_module *m = parse_module(MODEL);
  irm_object *ref = load(LIB_AOT_CRT, -1);
  aot_compare(m, ref, N_INPUTS, 11);
  irm_object_release(ref);
  irm_object_release(m);
}
END_TEST

/* ---- metadata ------------------------------------------------------------------------------------- */

static json_t *metadata_of(const irm_object *m) {
  irm_object *meta = NULL;
  ck_assert_ok(irm_runtime_module_metadata(m, &meta));
  json_error_t err;
  json_t *root = json_loads(irm_string_data(meta), 0, &err);
  ck_assert_msg(root != NULL, "metadata does not parse: %s", err.text);
  irm_object_release(meta);
  return root;
}

/* Checks the thread fields, the kernels and each schedule's split (in its
 * choices); returns how many records split into more than one chunk. */
static int check_metadata(int which, int64_t num_threads, int parallel) {
  irm_object *m = load(which, -1);
  json_t *root = metadata_of(m);
  json_t *nt = json_object_get(root, "num_threads"), *par = json_object_get(root, "parallel"),
         *aff = json_object_get(root, "thread_affinity");
  ck_assert_msg(json_is_integer(nt) && json_integer_value(nt) == num_threads, "%s: num_threads", lib_tags[which]);
  ck_assert_msg(json_is_boolean(par) && json_is_true(par) == parallel, "%s: parallel", lib_tags[which]);
  ck_assert_msg(json_is_false(aff), "%s: thread_affinity", lib_tags[which]);
  json_t *list = json_object_get(root, "schedules");
  ck_assert_msg(json_is_array(list) && json_array_size(list) >= 5, "%s: schedules", lib_tags[which]);
  int split = 0, kinds[4] = {0, 0, 0, 0};
  static const char *const kind_names[] = {"conv2d_nchwc", "depthwise_nchwc", "winograd_nchwc"};
  for (size_t i = 0; i < json_array_size(list); i++) {
    json_t *rec = json_array_get(list, i), *choices = json_object_get(rec, "choices");
    json_t *s = json_object_get(choices, "split");
    const char *kind = json_string_value(json_object_get(rec, "kind"));
    for (int k = 0; k < 3; k++) kinds[k] += kind && strcmp(kind, kind_names[k]) == 0;
    kinds[3] += json_is_true(json_object_get(choices, "padded"));
    json_t *items = json_object_get(s, "items"), *chunk = json_object_get(s, "chunk");
    ck_assert_msg(json_is_integer(items) && json_is_integer(chunk), "%s: record %zu has no split", lib_tags[which], i);
    ck_assert_int_ge(json_integer_value(items), 1);
    ck_assert_int_ge(json_integer_value(chunk), 1);
    ck_assert_int_le(json_integer_value(chunk), json_integer_value(items));
    split += json_integer_value(chunk) < json_integer_value(items);
    const char *across = json_string_value(json_object_get(s, "across"));
    ck_assert_msg(across && (!strcmp(across, "rows") || !strcmp(across, "tiles")), "%s: record %zu splits %s",
                  lib_tags[which], i, across ? across : "(nothing)");
  }
  /* MODEL has each kernel: direct (one through a padded copy), depthwise, Winograd */
  ck_assert_msg(kinds[0] >= 2 && kinds[1] == 1 && kinds[2] >= 1 && kinds[3] >= 1,
                "%s: %d direct, %d depthwise, %d Winograd, %d padded", lib_tags[which], kinds[0], kinds[1], kinds[2],
                kinds[3]);
  json_decref(root);
  irm_object_release(m);
  return split;
}

START_TEST(test_metadata) {
  /* serial code: one chunk per kernel */
  ck_assert_int_eq(check_metadata(LIB_AOT_CRT, 1, 0), 0);
  /* every conv of MODEL is above the threshold */
  int aot = check_metadata(LIB_AOT_CPP, 8, 1), graph = check_metadata(LIB_GRAPH_CPP, 8, 1);
  ck_assert_int_ge(aot, 5);
  ck_assert_int_eq(aot, graph);
}
END_TEST

/* ---- precedence ------------------------------------------------------------------------------------ */

/* IRM_NUM_THREADS as the case found it, put back at the end. */
static char *saved_env;
static int had_env;

static void save_env(void) {
  const char *v = getenv("IRM_NUM_THREADS");
  had_env = v != NULL;
  saved_env = v ? strdup(v) : NULL;
}

static void restore_env(void) {
  if (had_env) setenv("IRM_NUM_THREADS", saved_env, 1);
  else unsetenv("IRM_NUM_THREADS");
  free(saved_env);
  saved_env = NULL;
}

/* The thread count a load of which with argument arg gives. */
static int32_t count_for(int which, int32_t arg) {
  irm_object *m = load(which, arg);
  int32_t n = threads_of(m);
  irm_object_release(m);
  return n;
}

START_TEST(test_precedence) {
  save_env();
  unsetenv("IRM_NUM_THREADS");
  ck_assert_int_eq(count_for(LIB_SMALL_CPP2, -1), 2); /* the option */
  ck_assert_int_eq(count_for(LIB_SMALL_CPP2, 5), 5);  /* the argument */
  ck_assert_int_eq(count_for(LIB_SMALL_CPP2, 0), irm_threadpool_cpu_count());
  setenv("IRM_NUM_THREADS", "3", 1);
  ck_assert_int_eq(count_for(LIB_SMALL_CPP2, -1), 3); /* the environment over the option */
  ck_assert_int_eq(count_for(LIB_SMALL_CPP2, 5), 5);  /* the argument over both */
  ck_assert_int_eq(count_for(LIB_SMALL_CPP2, 1), 1);
  setenv("IRM_NUM_THREADS", "0", 1);
  ck_assert_int_eq(count_for(LIB_SMALL_CPP2, -1), irm_threadpool_cpu_count());
  setenv("IRM_NUM_THREADS", "", 1); /* empty: not set */
  ck_assert_int_eq(count_for(LIB_SMALL_CPP2, -1), 2);
  /* a crt library runs serially whatever is asked */
  setenv("IRM_NUM_THREADS", "3", 1);
  ck_assert_int_eq(count_for(LIB_AOT_CRT, -1), 1);
  ck_assert_int_eq(count_for(LIB_AOT_CRT, 4), 1);
  unsetenv("IRM_NUM_THREADS");
  ck_assert_int_eq(count_for(LIB_AOT_CRT, 0), 1);
  restore_env();
}
END_TEST

START_TEST(test_bad_thread_counts) {
  save_env();
  static const char *const bad[] = {"x", "-1", "999", "3x", "257"};
  irm_object *m = NULL;
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    setenv("IRM_NUM_THREADS", bad[i], 1);
    m = NULL;
    ck_assert_int_eq(irm_runtime_load_threads(lib_paths[LIB_SMALL_CPP2], NULL, -1, &m), IRM_EVALUE);
    ck_assert_ptr_null(m);
    ck_assert_error_mentions("IRM_NUM_THREADS");
    char quoted[32];
    snprintf(quoted, sizeof quoted, "'%s'", bad[i]);
    ck_assert_error_mentions(quoted);
    /* an argument does not read the variable */
    ck_assert_int_eq(count_for(LIB_SMALL_CPP2, 4), 4);
    /* a serial library does not read it */
    ck_assert_int_eq(count_for(LIB_AOT_CRT, -1), 1);
  }
  unsetenv("IRM_NUM_THREADS");
  ck_assert_int_eq(irm_runtime_load_threads(lib_paths[LIB_SMALL_CPP2], NULL, 257, &m), IRM_EVALUE);
  ck_assert_error_mentions("257");
  ck_assert_int_eq(irm_runtime_module_num_threads(NULL, &(int32_t){0}), IRM_ETYPE);
  /* the global: runtime.Load(path, mod_name, num_threads) and ModuleNumThreads */
  irm_any args[] = {irm_any_str(lib_paths[LIB_SMALL_CPP2]), irm_any_str(lib_tags[LIB_SMALL_CPP2]), irm_any_int(3)};
  irm_any loaded = call_ok("runtime.Load", args, 3);
  irm_any n = call_ok("runtime.ModuleNumThreads", &loaded, 1);
  ck_assert_int_eq(n.v_int, 3);
  irm_any_release(&loaded);
  args[2] = irm_any_int(-2);
  ck_assert(call_fails("runtime.Load", args, 3));
  ck_assert_error_mentions("num_threads");
  args[2] = irm_any_str("2");
  ck_assert(call_fails("runtime.Load", args, 3));
  restore_env();
}
END_TEST

/* ---- an application's pool ---------------------------------------------------------------------- */

static _Atomic long pool_calls; /* counting_parallel_for's calls */

static void counting_parallel_for(void *self, int64_t n, int64_t chunk, irm_parallel_task task, void *ctx) {
  (void)self;
  atomic_fetch_add(&pool_calls, 1);
  for (int64_t b = 0; b < n; b += chunk) task(ctx, b, n - b < chunk ? n : b + chunk);
}

START_TEST(test_application_pool_sees_every_parallel_for) {
  static const irm_parallel_pool counting = {counting_parallel_for, NULL, 4};
  serial s = serial_run(23);
  irm_object *m = load(lib_of(_i), 4);
  ck_assert_ok(irm_runtime_set_thread_pool(&counting));
  atomic_store(&pool_calls, 0);
  ck_assert(run_matches(m, s.in, s.want));
  long first = atomic_load(&pool_calls);
  ck_assert_msg(first > 0, "%s: the application's pool saw no parallel_for", executors[_i]);
  ck_assert(run_matches(m, s.in, s.want));
  ck_assert_int_eq(atomic_load(&pool_calls), 2 * first); /* the same calls each run */
  /* back to irm's pool: the count stops */
  ck_assert_ok(irm_runtime_set_thread_pool(NULL));
  ck_assert(run_matches(m, s.in, s.want));
  ck_assert_int_eq(atomic_load(&pool_calls), 2 * first);
  irm_object_release(m);
  serial_free(&s);
}
END_TEST

/* Two modules of one library file, loaded with 4 and then 1 thread: the
 * library holds one pool pointer, yet each runs with its own count (the
 * 4-thread one still splits, the 1-thread one runs inline). */
START_TEST(test_two_loads_of_one_library_keep_their_counts) {
  static const irm_parallel_pool counting = {counting_parallel_for, NULL, 4};
  serial s = serial_run(29);
  irm_object *m4 = load(lib_of(_i), 4), *m1 = load(lib_of(_i), 1);
  ck_assert_ok(irm_runtime_set_thread_pool(&counting));
  atomic_store(&pool_calls, 0);
  ck_assert(run_matches(m4, s.in, s.want));
  long four = atomic_load(&pool_calls);
  ck_assert_msg(four > 0, "%s: the 4-thread module ran serially after a 1-thread load", executors[_i]);
  ck_assert(run_matches(m1, s.in, s.want));
  ck_assert_int_eq(atomic_load(&pool_calls), four); /* the 1-thread module dispatches nothing */
  ck_assert(run_matches(m4, s.in, s.want));
  ck_assert_int_eq(atomic_load(&pool_calls), 2 * four);
  ck_assert_ok(irm_runtime_set_thread_pool(NULL));
  irm_object_release(m1);
  irm_object_release(m4);
  serial_free(&s);
}
END_TEST

/* ---- one module from 8 threads ------------------------------------------------------------------ */

#define RUNNERS 8
#define RUNS 20

typedef struct runner {
  const irm_object *module;
  irm_object *inputs, *want;
  int failures;
} runner;

static void *run_many(void *arg) {
  runner *r = arg;
  for (int i = 0; i < RUNS; i++) r->failures += !run_matches(r->module, r->inputs, r->want);
  return NULL;
}

/* A parallel kernel's statements are a range function with its buffers as
 * restrict parameters. Below 2^24 multiply-adds the kernel also calls it
 * over all its items, bounds constant, when it runs on one thread; a
 * larger one (a 1x1 conv of 128 channels at 64x64: 2^26) only splits. */
#define SPLIT_MODEL                                                                                                     \
  IP_HEAD "def @main(%x: " TY("(1, 16, 16, 16)") ", %w: " TY("(16, 16, 3, 3)") ", %y: " TY(                             \
      "(1, 128, 64, 64)") ", %v: " TY("(128, 128, 1, 1)") ") {\n"                                                       \
                                                          "  %0 = nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1]);\n" \
                                                          "  %1 = nn.conv2d(%y, %v);\n  %2 = (%0, %1);\n  %2\n}\n"

/* Whether needle occurs in from before end. */
static int found_before(const char *from, const char *needle, const char *end) {
  const char *at = strstr(from, needle);
  return at && end && at < end;
}

/* The line of src where the range function name is defined, or NULL. */
static const char *range_line(const char *src, const char *name) {
  char def[320];
  snprintf(def, sizeof def, "\nIRM_PARALLEL_INLINE void %.200s(void *restrict scratch", name);
  const char *at = strstr(src, def);
  if (!at) {
    snprintf(def, sizeof def, "\nstatic void %.200s(void *restrict scratch", name);
    at = strstr(src, def);
  }
  return at ? at + 1 : NULL;
}

/* The generated C of model built aot for the cpp runtime with num-threads
 * 2 as module name; *result holds it (the caller releases it). */
static const char *two_thread_source(const char *model, const char *name, irm_object **result) {
  irm_module *m = parse_module(model);
  irm_object *e = NULL, *rt = NULL, *opts = map1("num-threads", irm_any_int(2));
  ck_assert_ok(irm_executor_create("aot", NULL, &e));
  ck_assert_ok(irm_runtime_create("cpp", opts, &rt));
  irm_any target = irm_any_str("c");
  ck_require(irm_build(m, &target, NULL, e, rt, NULL, name, result) == 0, "%s", irm_last_error());
  char file[128];
  snprintf(file, sizeof file, "tvmgen_%s.c", name);
  const char *src = irm_string_data(aot_artifact(*result, file));
  irm_object_release(rt);
  irm_object_release(opts);
  irm_object_release(e);
  irm_object_release(m);
  return src;
}

START_TEST(test_small_kernels_run_whole_with_constant_bounds) {
  irm_object *result = NULL;
  const char *src = two_thread_source(SPLIT_MODEL, "thr_split", &result);
  /* each range function: its buffers restrict; the convs' inlined (the small one) or static (the large one) */
  int inlined_convs = 0, static_convs = 0;
  for (const char *at = strstr(src, "_range(void *restrict scratch"); at;
       at = strstr(at + 1, "_range(void *restrict scratch")) {
    const char *line = at;
    while (line > src && line[-1] != '\n') line--;
    const char *line_end = strchr(at, '\n'), *body_end = strstr(at, "\n}\n");
    ck_assert_msg(found_before(at, "*restrict out0", line_end), "%.120s: an output not restrict", line);
    if (!found_before(at, "irm_kernel_conv2d_nchwc_range(", body_end)) continue;
    if (strncmp(line, "IRM_PARALLEL_INLINE void ", 25) == 0) inlined_convs++;
    else if (strncmp(line, "static void ", 12) == 0) static_convs++;
  }
  ck_assert_int_eq(inlined_convs, 1);
  ck_assert_int_eq(static_convs, 1);
  /* every serial call names an inlined range function, over [0, items) */
  int serial_calls = 0;
  for (const char *at = strstr(src, "irm_parallel_serial(IRM_CG_POOL, "); at;
       at = strstr(at + 1, "irm_parallel_serial(IRM_CG_POOL, ")) {
    long long items = 0, chunk = 0;
    char name[256] = {0}, bounds[64];
    ck_assert_int_eq(
        sscanf(at, "irm_parallel_serial(IRM_CG_POOL, %lld, %lld)) { %255[a-zA-Z0-9_](", &items, &chunk, name), 3);
    snprintf(bounds, sizeof bounds, ", 0, %lld", items);
    ck_assert_msg(found_before(at, bounds, strchr(at, ';')), "%s is not called over [0, %lld)", name, items);
    const char *line = range_line(src, name);
    ck_assert_msg(line && strncmp(line, "IRM_PARALLEL_INLINE", 19) == 0, "%s is not IRM_PARALLEL_INLINE", name);
    serial_calls++;
  }
  ck_assert_int_gt(serial_calls, 0);
  irm_object_release(result);
}
END_TEST

/* A transpose whose outer output axis has 3 entries, its last axis
 * permuted (no contiguous run): its items are the outer axes joined until
 * 8 a thread, 3 x 64 (3 alone split 2/1 on two threads). The main model's
 * channel shuffle, checked bitwise at 1-8 threads, joins 16 x 2 for 8. */
#define SHUFFLE_MODEL                                      \
  IP_HEAD "def @main(%x: " TY("(1, 2, 3, 64, 64)") ") {\n" \
                                                   "  %0 = transpose(%x, axes=[0, 2, 3, 4, 1]);\n  %0\n}\n"

START_TEST(test_transpose_joins_outer_axes) {
  irm_object *result = NULL;
  const char *src = two_thread_source(SHUFFLE_MODEL, "thr_shuffle", &result);
  const char *call = strstr(src, "irm_parallel_for(IRM_CG_POOL, ");
  long long items = 0, chunk = 0;
  ck_assert_ptr_nonnull(call);
  ck_assert_int_eq(sscanf(call, "irm_parallel_for(IRM_CG_POOL, %lld, %lld,", &items, &chunk), 2);
  ck_assert_int_eq(items, 3 * 64);
  ck_assert_int_le(chunk, 3 * 64 / 4); /* at least 2 chunks a thread */
  irm_object_release(result);
}
END_TEST

/* The main model's ShuffleNet unit: the slice its branch reads, and the
 * other half concatenated with the branch and shuffled, are two channel
 * maps of blocked tensors (2 blocks of 4 for a half of 6 channels, 3 for
 * the 12 shuffled): no NCHW tensor between its convs. */
START_TEST(test_channel_maps_of_the_unit) {
  irm_object *result = NULL;
  const char *src = two_thread_source(MODEL, "thr_cmap", &result);
  int maps = 0;
  for (const char *at = strstr(src, "irm_kernel_channel_map_range(irm_in, "); at;
       at = strstr(at + 1, "irm_kernel_channel_map_range(irm_in, ")) {
    long long n = 0, blocks = 0, h = 0, w = 0;
    const char *args = strchr(strchr(at, ',') + 1, ',') + 1; /* after the inputs and the block counts */
    ck_assert_int_eq(sscanf(args, " out0, %lld, %lld, %lld, %lld,", &n, &blocks, &h, &w), 4);
    ck_assert_int_eq(n * h * w, 48 * 48);
    ck_assert(blocks == 2 || blocks == 3);
    maps++;
  }
  ck_assert_int_eq(maps, 2);
  irm_object_release(result);
}
END_TEST

/* _i 0: the aot module from 8 threads, 1: the graph one, 2: both at once
 * (4 threads each; two modules share irm's pool). */
START_TEST(test_one_module_from_eight_threads) {
  /* what one thread alone gets for each input, on each module's own code
   * (loaded first: the last load of a library sets its pool) */
  irm_object *alone[2] = {load(LIB_AOT_CPP, 1), load(LIB_GRAPH_CPP, 1)};
  runner r[RUNNERS];
  for (int t = 0; t < RUNNERS; t++) {
    r[t].inputs = model_inputs(100 + (uint64_t)t * 16);
    r[t].want = run(alone[_i < 2 ? _i : t % 2], r[t].inputs);
    r[t].failures = 0;
  }
  irm_object *m[2] = {load(LIB_AOT_CPP, 4), load(LIB_GRAPH_CPP, 4)};
  for (int t = 0; t < RUNNERS; t++) r[t].module = m[_i < 2 ? _i : t % 2];
  irm_object_release(alone[0]);
  irm_object_release(alone[1]);
  pthread_t th[RUNNERS];
  for (int t = 0; t < RUNNERS; t++) ck_assert_int_eq(pthread_create(&th[t], NULL, run_many, &r[t]), 0);
  for (int t = 0; t < RUNNERS; t++) pthread_join(th[t], NULL);
  for (int t = 0; t < RUNNERS; t++) {
    ck_assert_msg(r[t].failures == 0, "case %d: thread %d: %d of %d runs differ", _i, t, r[t].failures, RUNS);
    irm_object_release(r[t].inputs);
    irm_object_release(r[t].want);
  }
  irm_object_release(m[0]);
  irm_object_release(m[1]);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("threads");
  TCase *t = tcase_create("results");
  tcase_add_unchecked_fixture(t, build_all, NULL);
  tcase_set_timeout(t, 60);
  tcase_add_test(t, test_serial_build_matches_evaluate);
  tcase_add_loop_test(t, test_threads_give_the_serial_bytes, 0, 2);
  tcase_add_test(t, test_metadata);
  tcase_add_test(t, test_precedence);
  tcase_add_test(t, test_bad_thread_counts);
  tcase_add_test(t, test_small_kernels_run_whole_with_constant_bounds);
  tcase_add_test(t, test_transpose_joins_outer_axes);
  tcase_add_test(t, test_channel_maps_of_the_unit);
  tcase_add_loop_test(t, test_application_pool_sees_every_parallel_for, 0, 2);
  tcase_add_loop_test(t, test_two_loads_of_one_library_keep_their_counts, 0, 2);
  suite_add_tcase(s, t);
  /* CI's ThreadSanitizer build runs this case alone (CK_RUN_CASE=concurrency) */
  t = tcase_create("concurrency");
  tcase_add_unchecked_fixture(t, build_concurrent, NULL);
  tcase_set_timeout(t, 120);
  tcase_add_loop_test(t, test_one_module_from_eight_threads, 0, 3);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return run_suite(suite()); }
