/* bench/registry: the global function registry against baselines run in
 * the same process. One line per figure: `name ns_per_op ratio baseline`;
 * lines starting with '#' give the baselines' own figures. */
#include <malloc.h>
#include <string.h>

#include "bench_util.h"
#include "calls.h"
#include "uthash.h"

/* ---- packed call vs direct call ---------------------------------------- */

static int add_packed(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)nargs;
  (void)resource;
  ret->type_code = IRM_INT;
  ret->v_int = args[0].v_int + args[1].v_int;
  return 0;
}

static irm_packed_cfunc volatile direct_target = add_packed;

/* The measured loops are functions of their own, each at a 64-byte
 * boundary: inlined into one another's callers, their timing moved by 20%
 * whenever code elsewhere in this file changed their alignment. */
#define BENCH_LOOP_ __attribute__((noinline, aligned(64)))

typedef struct call_ctx {
  irm_object *func;
  irm_any args[2];
} call_ctx;

BENCH_LOOP_ static int64_t direct_loop(void *p, long n) {
  call_ctx *c = p;
  int64_t sum = 0;
  for (long i = 0; i < n; i++) {
    irm_any ret;
    ret.type_code = IRM_NONE;
    direct_target(c->args, 2, &ret, NULL);
    sum += ret.v_int;
  }
  return sum;
}

BENCH_LOOP_ static int64_t packed_loop(void *p, long n) {
  call_ctx *c = p;
  int64_t sum = 0;
  for (long i = 0; i < n; i++) {
    irm_any ret;
    irm_func_call(c->func, c->args, 2, &ret);
    sum += ret.v_int;
  }
  return sum;
}

static void bench_packed_call(void) {
  enum { CHUNK = 1000 * 1000 };
  call_ctx c = {NULL, {irm_any_int(1), irm_any_int(2)}};
  if (irm_func_new_packed(add_packed, NULL, NULL, &c.func)) bench_die("irm_func_new_packed");
  double base, subject;
  int64_t sink = 0;
  bench_pair(direct_loop, packed_loop, &c, CHUNK, &base, &subject, &sink);
  if (sink != (int64_t)ROUNDS * CHUNKS * CHUNK * 2 * 3) bench_die("wrong sums");
  bench_report("packed_call", subject, base, "direct_call");
  irm_object_release(c.func);
}

/* ---- the exported irm_func_call vs direct call ------------------------
 * Other languages (ctypes) reach libirm through the exported symbol, never
 * the inline path of function.h: the loops call it through a pointer, so
 * no call can be inlined. The main rows call from a shared library, as
 * ctypes does from libffi (see calls.h); the _from_exe rows call from this
 * executable, where on some CPUs each branch into and out of libirm costs
 * more because of the distance alone. */

typedef int (*call_fn)(irm_object *, const irm_any *, int32_t, irm_any *);
static call_fn volatile exported_call = (irm_func_call); /* the entry exported_loop calls */

BENCH_LOOP_ static int64_t exported_loop(void *p, long n) {
  call_ctx *c = p;
  int64_t sum = 0;
  call_fn call = exported_call;
  for (long i = 0; i < n; i++) {
    irm_any ret;
    call(c->func, c->args, 2, &ret);
    sum += ret.v_int;
  }
  return sum;
}

/* Rows name and name_from_exe for func, a function object computing 1 + 2. */
static void bench_exported_call(const char *name, irm_object *func) {
  enum { CHUNK = 100 * 1000 }; /* short chunks: fewer land on a busy neighbour's time slice */
  bench_calls_ctx lib = {(irm_func_call), func, {irm_any_int(1), irm_any_int(2)}};
  call_ctx exe = {func, {irm_any_int(1), irm_any_int(2)}};
  double base, subject;
  int64_t sink = 0;
  bench_pair(bench_calls_direct, bench_calls_exported, &lib, CHUNK, &base, &subject, &sink);
  bench_report(name, subject, base, "direct_call");
  char exe_name[64];
  snprintf(exe_name, sizeof exe_name, "%s_from_exe", name);
  bench_pair(direct_loop, exported_loop, &exe, CHUNK, &base, &subject, &sink);
  bench_report(exe_name, subject, base, "direct_call");
  if (sink != (int64_t)2 * ROUNDS * CHUNKS * CHUNK * 2 * 3) bench_die("wrong sums");
  irm_object_release(func);
}

static void bench_exported_calls(void) {
  irm_object *f = NULL;
  if (irm_func_new_packed(bench_calls_add_packed, NULL, NULL, &f)) bench_die("irm_func_new_packed");
  bench_exported_call("exported_packed_call", f);
  if (irm_func_new_native((irm_native_fn)bench_calls_add_i64, "i64(i64,i64)", &f)) bench_die("irm_func_new_native");
  bench_exported_call("exported_native_call", f);
}

/* ---- a type-checking callee, direct vs exported (PLT, pointer) --------
 * Real packed functions check their argument count and type codes. The
 * callee below does, as a function registered from C would; the rows call
 * it from this executable directly (through a volatile pointer, so it is a
 * real call) and through the exported irm_func_call, once as a plain call
 * of the symbol (through the PLT) and once through a function pointer (as
 * libffi calls). */

BENCH_LOOP_ static int checked_add(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)resource;
  if (__builtin_expect(nargs != 2, 0)) return irm_error(IRM_EVALUE, "checked_add: expected 2 arguments, got %d", nargs);
  if (__builtin_expect(args[0].type_code != IRM_INT || args[1].type_code != IRM_INT, 0))
    return irm_error(IRM_ETYPE, "checked_add: expected two ints");
  ret->type_code = IRM_INT;
  ret->v_int = args[0].v_int + args[1].v_int;
  return 0;
}

static irm_packed_cfunc volatile checked_target = checked_add;

BENCH_LOOP_ static int64_t checked_direct_loop(void *p, long n) {
  call_ctx *c = p;
  int64_t sum = 0;
  for (long i = 0; i < n; i++) {
    irm_any ret;
    ret.type_code = IRM_NONE;
    checked_target(c->args, 2, &ret, NULL);
    sum += ret.v_int;
  }
  return sum;
}

BENCH_LOOP_ static int64_t checked_plt_loop(void *p, long n) {
  call_ctx *c = p;
  int64_t sum = 0;
  for (long i = 0; i < n; i++) {
    irm_any ret;
    (irm_func_call)(c->func, c->args, 2, &ret); /* the symbol, not the inline path */
    sum += ret.v_int;
  }
  return sum;
}

static void bench_checked_calls(void) {
  printf("# aim: exported_checked_call_* <= 1.25, exported_packed_call_from_exe <= 1.4\n");
  enum { CHUNK = 100 * 1000 };
  call_ctx c = {NULL, {irm_any_int(1), irm_any_int(2)}};
  if (irm_func_new_packed(checked_add, NULL, NULL, &c.func)) bench_die("irm_func_new_packed");
  double base, subject;
  int64_t sink = 0;
  bench_pair(checked_direct_loop, checked_plt_loop, &c, CHUNK, &base, &subject, &sink);
  bench_report("exported_checked_call_plt_from_exe", subject, base, "direct_checked_call");
  bench_pair(checked_direct_loop, exported_loop, &c, CHUNK, &base, &subject, &sink);
  bench_report("exported_checked_call_pointer_from_exe", subject, base, "direct_checked_call");
  if (sink != (int64_t)2 * ROUNDS * CHUNKS * CHUNK * 2 * 3) bench_die("wrong sums");
  irm_object_release(c.func);
}

/* ---- what an entry's shape costs, for reference -----------------------
 * Two entries of this executable, called through a volatile pointer like
 * the pointer row above, that check nothing and call the type-checking
 * callee: one tail-calls it (an entry with nothing to do after the callee,
 * as tvm-ffi's is), one keeps a frame to look at the status afterwards, as
 * irm_func_call must for a packed function (a failing callee's partial
 * result is dropped, a silent failure named). The gap between the two rows
 * is the nested call alone. A third runs irm_func_call's own code (the
 * inline path of function.h) from here: its gap to entry_with_frame is
 * what the checks and the error-generation read cost, and its gap to
 * exported_checked_call_* what calling into libirm, mapped far from this
 * executable, and back out to a callee here costs. */

typedef struct entry_target {
  irm_packed_cfunc fn;
  void *resource;
} entry_target;

BENCH_LOOP_ static int tail_entry(irm_object *f, const irm_any *args, int32_t nargs, irm_any *ret) {
  const entry_target *t = (const entry_target *)(const void *)f;
  ret->type_code = IRM_NONE;
  ret->v_int = 0;
  return t->fn(args, nargs, ret, t->resource);
}

__attribute__((noinline, cold)) static int entry_failed(irm_any *ret) {
  irm_any_release(ret);
  return IRM_ERUNTIME;
}

BENCH_LOOP_ static int frame_entry(irm_object *f, const irm_any *args, int32_t nargs, irm_any *ret) {
  const entry_target *t = (const entry_target *)(const void *)f;
  ret->type_code = IRM_NONE;
  ret->v_int = 0;
  if (__builtin_expect(t->fn(args, nargs, ret, t->resource) == 0, 1)) return IRM_OK;
  return entry_failed(ret);
}

/* irm_func_call's own code (function.h's inline path: the same checks and
 * frame, less the native test) compiled into this executable. */
BENCH_LOOP_ static int inline_path_entry(irm_object *f, const irm_any *args, int32_t nargs, irm_any *ret) {
  return irm_func_call_inline_(f, args, nargs, ret);
}

static void bench_entry_shapes(void) {
  enum { CHUNK = 100 * 1000 };
  entry_target target = {checked_add, NULL};
  call_ctx c = {(irm_object *)(void *)&target, {irm_any_int(1), irm_any_int(2)}};
  double base, subject;
  int64_t sink = 0;
  exported_call = tail_entry; /* exported_loop calls through it */
  bench_pair(checked_direct_loop, exported_loop, &c, CHUNK, &base, &subject, &sink);
  bench_report("entry_tail_call_from_exe", subject, base, "direct_checked_call");
  exported_call = frame_entry;
  bench_pair(checked_direct_loop, exported_loop, &c, CHUNK, &base, &subject, &sink);
  bench_report("entry_with_frame_from_exe", subject, base, "direct_checked_call");
  exported_call = inline_path_entry;
  call_ctx checked = {NULL, {irm_any_int(1), irm_any_int(2)}};
  if (irm_func_new_packed(checked_add, NULL, NULL, &checked.func)) bench_die("irm_func_new_packed");
  bench_pair(checked_direct_loop, exported_loop, &checked, CHUNK, &base, &subject, &sink);
  bench_report("entry_inline_path_from_exe", subject, base, "direct_checked_call");
  irm_object_release(checked.func);
  exported_call = (irm_func_call);
  if (sink != (int64_t)3 * ROUNDS * CHUNKS * CHUNK * 2 * 3) bench_die("wrong sums");
}

/* ---- lookup vs raw uthash ---------------------------------------------- */

typedef struct raw_entry {
  UT_hash_handle hh;
  void *value;
  char name[40];
} raw_entry;

static void shuffle(char (*names)[40], size_t n) {
  srand(12345);
  for (size_t i = n - 1; i > 0; i--) {
    size_t j = (size_t)rand() % (i + 1);
    char tmp[40];
    memcpy(tmp, names[i], 40);
    memcpy(names[i], names[j], 40);
    memcpy(names[j], tmp, 40);
  }
}

enum { NAMES = 10000 };

typedef struct lookup_ctx {
  raw_entry *raw;
  char (*names)[40];
} lookup_ctx;

/* One pass over all names in shuffled order per call (n == NAMES). */
static int64_t raw_lookup_loop(void *p, long n) {
  lookup_ctx *c = p;
  int64_t found = 0;
  for (long i = 0; i < n; i++) {
    raw_entry *e = NULL;
    HASH_FIND_STR(c->raw, c->names[i], e);
    found += e != NULL;
  }
  return found;
}

static int64_t irm_lookup_loop(void *p, long n) {
  lookup_ctx *c = p;
  int64_t found = 0;
  for (long i = 0; i < n; i++) {
    irm_object *g = NULL;
    irm_func_get_global(c->names[i], &g);
    found += g != NULL;
    irm_object_release(g);
  }
  return found;
}

static void bench_lookup(void) {
  static char names[NAMES][40];
  irm_object *f = NULL;
  if (irm_func_new_packed(add_packed, NULL, NULL, &f)) bench_die("irm_func_new_packed");
  raw_entry *raw = NULL;
  raw_entry *entries = calloc(NAMES, sizeof *entries);
  for (size_t i = 0; i < NAMES; i++) {
    snprintf(names[i], sizeof names[i], "bench.lookup.function_%05zu", i);
    if (irm_func_register_global(names[i], f, 0)) bench_die("register");
    strcpy(entries[i].name, names[i]);
    entries[i].value = f;
    HASH_ADD_STR(raw, name, &entries[i]);
  }
  shuffle(names, NAMES);
  lookup_ctx c = {raw, names};
  double base, subject;
  int64_t found = 0;
  bench_pair(raw_lookup_loop, irm_lookup_loop, &c, NAMES, &base, &subject, &found);
  if (found != (int64_t)ROUNDS * CHUNKS * NAMES * 2) bench_die("lookups missed");
  bench_report("get_global_10k", subject, base, "uthash_find");
  for (size_t i = 0; i < NAMES; i++) irm_func_remove_global(names[i]);
  HASH_CLEAR(hh, raw);
  free(entries);
  irm_object_release(f);
}

/* ---- memory per name --------------------------------------------------- */

static void bench_memory(void) {
  enum { MEMORY_NAMES = 1000 * 1000 };
  const double budget = 120.0;
  irm_object *f = NULL;
  if (irm_func_new_packed(add_packed, NULL, NULL, &f)) bench_die("irm_func_new_packed");
  char name[48];
  /* Start the registry (built-ins) before measuring. */
  irm_object *probe = NULL;
  irm_func_get_global("ffi.Array", &probe);
  irm_object_release(probe);
  malloc_trim(0);
  size_t before = mallinfo2().uordblks;
  for (size_t i = 0; i < MEMORY_NAMES; i++) {
    snprintf(name, sizeof name, "bench.memory.fn_%07zu", i);
    if (irm_func_register_global(name, f, 0)) bench_die("register");
  }
  size_t after = mallinfo2().uordblks;
  double per_name = (double)(after - before) / MEMORY_NAMES;
  printf("# bytes per name measured with mallinfo2 over %d names of %zu chars\n", MEMORY_NAMES, strlen(name));
  bench_report("global_bytes_per_name", per_name, budget, "budget_120_bytes");
  for (size_t i = 0; i < MEMORY_NAMES; i++) {
    snprintf(name, sizeof name, "bench.memory.fn_%07zu", i);
    irm_func_remove_global(name);
  }
  irm_object_release(f);
}

int main(void) {
  bench_packed_call();
  bench_exported_calls();
  bench_checked_calls();
  bench_entry_shapes();
  bench_lookup();
  bench_memory();
  return 0;
}
