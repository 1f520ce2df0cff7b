/* Native functions: a C function pointer plus a signature, called through a
 * packed thunk chosen once, when the function object is made. */
#include <string.h>

#include "error_internal.h"
#include "global_internal.h"
#include "irm/error.h"
#include "native_internal.h"
#include "object_internal.h"
#include "plugin_defer.h"

typedef struct native_fn {
  irm_native_fn fp;
  const irm_object *self; /* the function object, for messages; not owned */
  irm_native_sig sig;
  /* Per argument, the irm_any type code whose payload already is the C
   * value libffi wants (an i64 in v_int, a C string in v_str...), so the
   * call can point libffi at the argument itself; -1 when a conversion is
   * always needed. */
  int32_t in_place[IRM_NATIVE_MAX_ARGS];
  uint8_t in_place_check[IRM_NATIVE_MAX_ARGS]; /* CHECK_* below */
  ffi_cif cif;
  ffi_type *types[IRM_NATIVE_MAX_ARGS];
} native_fn;

void irm_native_free_(void *resource) { irm_free(resource); }

/* ---- errors ------------------------------------------------------------ */

static int count_error(const native_fn *nf, int32_t nargs) {
  return irm_error(IRM_ETYPE, "function '%s' (%s) takes %d argument%s, got %d", irm_func_name(nf->self), nf->sig.text,
                   (int)nf->sig.nargs, nf->sig.nargs == 1 ? "" : "s", (int)nargs);
}

/* The conversion of argument i failed: redo it for the exact message and
 * add which function and argument. */
static int arg_error(const native_fn *nf, const irm_any *args, int32_t i) {
  irm_cvalue scratch;
  int rc = irm_any_to_c_(nf->sig.args[i], &args[i], &scratch);
  if (rc == IRM_OK) rc = irm_error(IRM_ETYPE, "expected %s", irm_ntype_name_(nf->sig.args[i]));
  return irm_error_context(rc, "function '%s' (%s): argument %d", irm_func_name(nf->self), nf->sig.text, (int)i + 1);
}

/* ---- the libffi path --------------------------------------------------- */

/* What an argument read in place must still pass. */
enum { CHECK_NONE, CHECK_NOT_NULL, CHECK_I32_RANGE };

static inline int in_place_ok(uint8_t check, const irm_any *a) {
  if (check == CHECK_NONE) return 1;
  if (check == CHECK_NOT_NULL) return a->v_ptr != NULL;
  return a->v_int >= INT32_MIN && a->v_int <= INT32_MAX;
}

static int call_ffi(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  native_fn *nf = resource;
  if (nargs != nf->sig.nargs) return count_error(nf, nargs);
  irm_cvalue values[IRM_NATIVE_MAX_ARGS];
  void *pointers[IRM_NATIVE_MAX_ARGS];
  for (int32_t i = 0; i < nargs; i++) {
    const irm_any *a = &args[i];
    if (a->type_code == nf->in_place[i] && in_place_ok(nf->in_place_check[i], a)) {
      pointers[i] = (void *)&a->v_int; /* every payload member starts here */
      continue;
    }
    if (irm_any_to_c_(nf->sig.args[i], a, &values[i]) != IRM_OK) return arg_error(nf, args, i);
    pointers[i] = &values[i];
  }
  irm_cvalue result;
  result.widened = 0;
  ffi_call(&nf->cif, nf->fp, &result, pointers);
  /* libffi returns small integers widened to ffi_arg. */
  if (nf->sig.ret == IRM_NT_BOOL) result.b = (uint8_t)result.widened;
  if (nf->sig.ret == IRM_NT_I32) result.i32 = (int32_t)result.widened;
  return irm_c_to_any_(nf->sig.ret, &result, 1, ret);
}

/* ---- fast paths ----------------------------------------------------------
 * On x86-64 (System V) and AArch64, 64-bit integers and pointers travel in
 * the same integer registers whatever their C type, and a void function's
 * garbage return register is simply ignored. So a function of 0-4 such
 * arguments can be called through one pointer type per arity taking and
 * returning uint64_t, with no libffi. Elsewhere every call takes libffi. */
#if defined(__x86_64__) || defined(__aarch64__)
#define IRM_NATIVE_FAST_PATHS 1
#else
#define IRM_NATIVE_FAST_PATHS 0
#endif

typedef uint64_t (*fn_u0)(void);
typedef uint64_t (*fn_u1)(uint64_t);
typedef uint64_t (*fn_u2)(uint64_t, uint64_t);
typedef uint64_t (*fn_u3)(uint64_t, uint64_t, uint64_t);
typedef uint64_t (*fn_u4)(uint64_t, uint64_t, uint64_t, uint64_t);
typedef double (*fn_d1)(double);
typedef double (*fn_d2)(double, double);

/* Argument i as a 64-bit integer register value. */
static inline int int_arg(const native_fn *nf, const irm_any *args, int32_t i, uint64_t *out) {
  const irm_any *v = &args[i];
  switch (nf->sig.args[i]) {
  case IRM_NT_I64:
    if (v->type_code == IRM_INT || v->type_code == IRM_BOOL) {
      *out = (uint64_t)v->v_int;
      return IRM_OK;
    }
    break;
  case IRM_NT_U64:
    if ((v->type_code == IRM_INT || v->type_code == IRM_BOOL) && v->v_int >= 0) {
      *out = (uint64_t)v->v_int;
      return IRM_OK;
    }
    break;
  case IRM_NT_PTR:
    if (v->type_code == IRM_PTR || v->type_code == IRM_NONE) {
      *out = v->type_code == IRM_PTR ? (uint64_t)(uintptr_t)v->v_ptr : 0;
      return IRM_OK;
    }
    break;
  case IRM_NT_OBJ:
    if (v->type_code == IRM_OBJECT && v->v_obj) {
      *out = (uint64_t)(uintptr_t)v->v_obj;
      return IRM_OK;
    }
    break;
  default: break;
  }
  return arg_error(nf, args, i);
}

static inline int int_result(const native_fn *nf, uint64_t r, irm_any *ret) {
  switch (nf->sig.ret) {
  case IRM_NT_I64:
  case IRM_NT_U64: *ret = irm_any_int((int64_t)r); break;
  case IRM_NT_PTR: *ret = irm_any_ptr((void *)(uintptr_t)r); break;
  case IRM_NT_OBJ: *ret = irm_any_object((irm_object *)(uintptr_t)r); break;
  default: break; /* void: *ret is already NONE */
  }
  return IRM_OK;
}

#define INT_ARGS(n)                                                     \
  native_fn *nf = resource;                                             \
  uint64_t a[4] = {0, 0, 0, 0};                                         \
  if (__builtin_expect(nargs != (n), 0)) return count_error(nf, nargs); \
  for (int32_t i = 0; i < (n); i++) {                                   \
    int rc_ = int_arg(nf, args, i, &a[i]);                              \
    if (__builtin_expect(rc_ != IRM_OK, 0)) return rc_;                 \
  }                                                                     \
  (void)0

static int call_int0(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  INT_ARGS(0);
  (void)a;
  return int_result(nf, ((fn_u0)nf->fp)(), ret);
}
static int call_int1(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  INT_ARGS(1);
  return int_result(nf, ((fn_u1)nf->fp)(a[0]), ret);
}
static int call_int2(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  INT_ARGS(2);
  return int_result(nf, ((fn_u2)nf->fp)(a[0], a[1]), ret);
}
static int call_int3(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  INT_ARGS(3);
  return int_result(nf, ((fn_u3)nf->fp)(a[0], a[1], a[2]), ret);
}
static int call_int4(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  INT_ARGS(4);
  return int_result(nf, ((fn_u4)nf->fp)(a[0], a[1], a[2], a[3]), ret);
}

/* i64(i64,...) signatures, the common case, skip int_arg's per-type
 * switch and int_result's: one test covers every argument, and anything
 * unusual (a wrong count or type) takes the general thunk of the same
 * arity, which reports it. int_bits is 0 or 1 exactly for int and bool,
 * so an OR of them is <= 1 exactly when every argument is one. */
static inline uint32_t int_bits(const irm_any *v) { return (uint32_t)(v->type_code - IRM_INT); }

typedef int64_t (*fn_i0)(void);
typedef int64_t (*fn_i1)(int64_t);
typedef int64_t (*fn_i2)(int64_t, int64_t);
typedef int64_t (*fn_i3)(int64_t, int64_t, int64_t);
typedef int64_t (*fn_i4)(int64_t, int64_t, int64_t, int64_t);

static int call_i64_0(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  const native_fn *nf = resource;
  if (__builtin_expect(nargs != 0, 0)) return call_int0(args, nargs, ret, resource);
  *ret = irm_any_int(((fn_i0)nf->fp)());
  return IRM_OK;
}
static int call_i64_1(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  const native_fn *nf = resource;
  if (__builtin_expect(nargs != 1 || int_bits(&args[0]) > 1, 0)) return call_int1(args, nargs, ret, resource);
  *ret = irm_any_int(((fn_i1)nf->fp)(args[0].v_int));
  return IRM_OK;
}
static int call_i64_2(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  const native_fn *nf = resource;
  if (__builtin_expect(nargs != 2 || (int_bits(&args[0]) | int_bits(&args[1])) > 1, 0))
    return call_int2(args, nargs, ret, resource);
  *ret = irm_any_int(((fn_i2)nf->fp)(args[0].v_int, args[1].v_int));
  return IRM_OK;
}
static int call_i64_3(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  const native_fn *nf = resource;
  if (__builtin_expect(nargs != 3 || (int_bits(&args[0]) | int_bits(&args[1]) | int_bits(&args[2])) > 1, 0))
    return call_int3(args, nargs, ret, resource);
  *ret = irm_any_int(((fn_i3)nf->fp)(args[0].v_int, args[1].v_int, args[2].v_int));
  return IRM_OK;
}
static int call_i64_4(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  const native_fn *nf = resource;
  if (__builtin_expect(
          nargs != 4 || (int_bits(&args[0]) | int_bits(&args[1]) | int_bits(&args[2]) | int_bits(&args[3])) > 1, 0))
    return call_int4(args, nargs, ret, resource);
  *ret = irm_any_int(((fn_i4)nf->fp)(args[0].v_int, args[1].v_int, args[2].v_int, args[3].v_int));
  return IRM_OK;
}

static inline int f64_arg(const native_fn *nf, const irm_any *args, int32_t i, double *out) {
  if (args[i].type_code == IRM_FLOAT) *out = args[i].v_float;
  else if (args[i].type_code == IRM_INT) *out = (double)args[i].v_int;
  else return arg_error(nf, args, i);
  return IRM_OK;
}

static int call_f64_1(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  native_fn *nf = resource;
  double x = 0;
  if (nargs != 1) return count_error(nf, nargs);
  int rc = f64_arg(nf, args, 0, &x);
  if (rc) return rc;
  *ret = irm_any_float(((fn_d1)nf->fp)(x));
  return IRM_OK;
}

static int call_f64_2(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  native_fn *nf = resource;
  double x = 0, y = 0;
  if (nargs != 2) return count_error(nf, nargs);
  int rc = f64_arg(nf, args, 0, &x);
  if (!rc) rc = f64_arg(nf, args, 1, &y);
  if (rc) return rc;
  *ret = irm_any_float(((fn_d2)nf->fp)(x, y));
  return IRM_OK;
}

static int is_int_class(irm_ntype t) {
  return t == IRM_NT_I64 || t == IRM_NT_U64 || t == IRM_NT_PTR || t == IRM_NT_OBJ;
}

int irm_native_sig_is_int_class_(const irm_native_sig *sig) {
  int all_int = IRM_NATIVE_FAST_PATHS && sig->nargs <= 4 && (sig->ret == IRM_NT_VOID || is_int_class(sig->ret));
  for (int32_t i = 0; all_int && i < sig->nargs; i++) all_int = is_int_class(sig->args[i]);
  return all_int;
}

uint64_t irm_native_call_int_(irm_native_fn fp, int32_t nargs, const uint64_t *a) {
  switch (nargs) {
  case 0: return ((fn_u0)fp)();
  case 1: return ((fn_u1)fp)(a[0]);
  case 2: return ((fn_u2)fp)(a[0], a[1]);
  case 3: return ((fn_u3)fp)(a[0], a[1], a[2]);
  default: return ((fn_u4)fp)(a[0], a[1], a[2], a[3]);
  }
}

/* The thunk for a signature: a fast path where one applies, else libffi. */
static irm_packed_cfunc choose_thunk(const irm_native_sig *sig) {
  if (!IRM_NATIVE_FAST_PATHS) return call_ffi;
  if (irm_native_sig_is_int_class_(sig)) {
    static const irm_packed_cfunc by_arity[] = {call_int0, call_int1, call_int2, call_int3, call_int4};
    static const irm_packed_cfunc i64_by_arity[] = {call_i64_0, call_i64_1, call_i64_2, call_i64_3, call_i64_4};
    int all_i64 = sig->ret == IRM_NT_I64;
    for (int32_t i = 0; i < sig->nargs; i++) all_i64 &= sig->args[i] == IRM_NT_I64;
    return (all_i64 ? i64_by_arity : by_arity)[sig->nargs];
  }
  int all_f64 = sig->ret == IRM_NT_F64 && (sig->nargs == 1 || sig->nargs == 2);
  for (int32_t i = 0; all_f64 && i < sig->nargs; i++) all_f64 = sig->args[i] == IRM_NT_F64;
  if (all_f64) return sig->nargs == 1 ? call_f64_1 : call_f64_2;
  return call_ffi;
}

/* The type code a C argument of type t can be read from in place, and
 * what it must still pass. An i32 is the low half of v_int only on
 * little-endian machines. */
static int32_t in_place_code(irm_ntype t, uint8_t *check) {
  *check = CHECK_NONE;
  switch (t) {
  case IRM_NT_I64: return IRM_INT;
  case IRM_NT_F64: return IRM_FLOAT;
  case IRM_NT_PTR: return IRM_PTR;
  case IRM_NT_STR: *check = CHECK_NOT_NULL; return IRM_STR;
  case IRM_NT_OBJ:
  case IRM_NT_OBJ_OPT: *check = CHECK_NOT_NULL; return IRM_OBJECT;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  case IRM_NT_I32: *check = CHECK_I32_RANGE; return IRM_INT;
#endif
  default: return -1; /* other types convert */
  }
}

/* ---- public API -------------------------------------------------------- */

int irm_func_new_native(irm_native_fn fn, const char *signature, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_func_new_native: out must not be NULL");
  *out = NULL;
  if (!fn) return irm_error(IRM_EVALUE, "irm_func_new_native: fn must not be NULL");
  native_fn *nf = irm_calloc(1, sizeof *nf);
  if (!nf) return irm_error_nomem_("creating a native function");
  int rc = irm_native_sig_parse_(signature, &nf->sig);
  if (rc == IRM_OK) rc = irm_native_prep_cif_(&nf->sig, &nf->cif, nf->types);
  if (rc == IRM_OK) rc = irm_func_new_packed(choose_thunk(&nf->sig), nf, irm_native_free_, out);
  if (rc) {
    irm_free(nf);
    return rc;
  }
  nf->fp = fn;
  nf->self = *out;
  for (int32_t i = 0; i < nf->sig.nargs; i++) nf->in_place[i] = in_place_code(nf->sig.args[i], &nf->in_place_check[i]);
  return IRM_OK;
}

int irm_native_target_(const irm_object *f, irm_native_fn *fp, const irm_native_sig **sig) {
  if (!irm_is_type_(f, IRM_TYPE_FUNCTION)) return 0;
  const irm_function *fn = (const irm_function *)f;
  if (fn->finalizer != irm_native_free_) return 0;
  const native_fn *nf = fn->resource;
  *fp = nf->fp;
  *sig = &nf->sig;
  return 1;
}

const char *irm_func_signature(const irm_object *f) {
  if (!irm_is_type_(f, IRM_TYPE_FUNCTION)) return NULL;
  const irm_function *fn = (const irm_function *)f;
  return fn->finalizer == irm_native_free_ ? ((const native_fn *)fn->resource)->sig.text : NULL;
}

irm_native_fn irm_func_native_pointer(const irm_object *f) {
  irm_native_fn fp = NULL;
  const irm_native_sig *sig = NULL;
  return irm_native_target_(f, &fp, &sig) ? fp : NULL;
}

int irm_register_static_native(const char *name, irm_native_fn fn, const char *signature) {
  int deferred_rc;
  if (irm_plugin_defer_native_(name, fn, signature, &deferred_rc)) return deferred_rc; /* a plugin's */
  irm_object *f = NULL;
  int made = irm_func_new_native(fn, signature, &f); /* before f is read */
  return irm_register_static_(name, made, f);
}
