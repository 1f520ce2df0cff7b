/* Private to libirm: native signatures and C <-> irm_any conversion, shared
 * by native functions (native.c) and closures (closure.c). */
#ifndef IRM_REGISTRY_NATIVE_INTERNAL_H
#define IRM_REGISTRY_NATIVE_INTERNAL_H

#include <ffi.h>

#include "irm/container.h"
#include "irm/function.h"

typedef enum irm_ntype {
  IRM_NT_VOID,
  IRM_NT_BOOL,
  IRM_NT_I32,
  IRM_NT_I64,
  IRM_NT_U64,
  IRM_NT_F32,
  IRM_NT_F64,
  IRM_NT_PTR,
  IRM_NT_STR,
  IRM_NT_OBJ,
  IRM_NT_OBJ_OPT,
  IRM_NT_ANY
} irm_ntype;

typedef struct irm_native_sig {
  irm_ntype ret;
  int32_t nargs;
  irm_ntype args[IRM_NATIVE_MAX_ARGS];
  char text[8 * (IRM_NATIVE_MAX_ARGS + 1) + 3]; /* normalized, "i64(i64,i64)" */
} irm_native_sig;

/* One C value of any signature type. Every member starts at offset 0, so
 * &value serves as libffi's argument pointer whatever the type. ffi_arg
 * is there because libffi widens small integer results to it. */
typedef union irm_cvalue {
  uint8_t b;
  int32_t i32;
  int64_t i64;
  uint64_t u64;
  float f32;
  double f64;
  void *p;
  const char *s;
  irm_object *o;
  const irm_any *a;
  ffi_arg widened;
} irm_cvalue;

/* Parses "ret(arg,...)". ValueError naming the text and the position. */
int irm_native_sig_parse_(const char *text, irm_native_sig *out);

/* The libffi type and the signature name of t. */
ffi_type *irm_ntype_ffi_(irm_ntype t);
const char *irm_ntype_name_(irm_ntype t);

/* Prepares cif for sig; types must hold sig->nargs entries. */
int irm_native_prep_cif_(const irm_native_sig *sig, ffi_cif *cif, ffi_type **types);

/* The finalizer of every native function object: how irm_func_call tells
 * a native function (whose thunk reports its own errors) from a packed one. */
void irm_native_free_(void *resource);

/* When f is a native function: its C pointer and signature (borrowed from
 * f), and 1. Otherwise 0. */
int irm_native_target_(const irm_object *f, irm_native_fn *fp, const irm_native_sig **sig);

/* Whether sig qualifies for the integer-register fast path (native.c), and
 * a call of fp with such a signature: args holds sig->nargs values. */
int irm_native_sig_is_int_class_(const irm_native_sig *sig);
uint64_t irm_native_call_int_(irm_native_fn fp, int32_t nargs, const uint64_t *args);

/* Out of line: the message for a failed irm_any -> C conversion, and the
 * String copy of a str result. */
int irm_native_conv_error_(irm_ntype t, const irm_any *v);
int irm_native_string_result_(const char *s, irm_any *out);

/* irm_any -> C, for native-call arguments and closure results; inline, as
 * it runs once per argument per call. The string or object stays owned by
 * v. TypeError "expected i64, got str", or ValueError for an int out of
 * range; callers add context. */
static inline int irm_any_to_c_(irm_ntype t, const irm_any *v, irm_cvalue *out) {
  int is_int = v->type_code == IRM_INT || v->type_code == IRM_BOOL;
  switch (t) {
  case IRM_NT_BOOL:
    if (is_int && (v->v_int == 0 || v->v_int == 1)) {
      out->b = (uint8_t)v->v_int;
      return 0;
    }
    break;
  case IRM_NT_I32:
    if (is_int && v->v_int >= INT32_MIN && v->v_int <= INT32_MAX) {
      out->i32 = (int32_t)v->v_int;
      return 0;
    }
    break;
  case IRM_NT_I64:
    if (is_int) {
      out->i64 = v->v_int;
      return 0;
    }
    break;
  case IRM_NT_U64:
    if (is_int && v->v_int >= 0) {
      out->u64 = (uint64_t)v->v_int;
      return 0;
    }
    break;
  case IRM_NT_F32:
  case IRM_NT_F64:
    if (v->type_code == IRM_FLOAT || v->type_code == IRM_INT) {
      double d = v->type_code == IRM_FLOAT ? v->v_float : (double)v->v_int;
      if (t == IRM_NT_F32) out->f32 = (float)d;
      else out->f64 = d;
      return 0;
    }
    break;
  case IRM_NT_PTR:
    if (v->type_code == IRM_PTR || v->type_code == IRM_NONE) {
      out->p = v->type_code == IRM_PTR ? v->v_ptr : NULL;
      return 0;
    }
    break;
  case IRM_NT_STR:
    if (v->type_code == IRM_STR && v->v_str) {
      out->s = v->v_str;
      return 0;
    }
    if (v->type_code == IRM_OBJECT && (out->s = irm_string_data(v->v_obj)) != NULL) return 0;
    break;
  case IRM_NT_OBJ:
  case IRM_NT_OBJ_OPT:
    if (v->type_code == IRM_OBJECT && v->v_obj) {
      out->o = v->v_obj;
      return 0;
    }
    if (v->type_code == IRM_NONE && t == IRM_NT_OBJ_OPT) {
      out->o = NULL;
      return 0;
    }
    break;
  case IRM_NT_ANY: out->a = v; return 0;
  case IRM_NT_VOID: break;
  }
  return irm_native_conv_error_(t, v);
}

/* C -> irm_any. owned: results of native calls (str copied into a String,
 * obj taken as a new reference). Not owned: closure arguments (str and obj
 * borrowed). Only a String copy can fail (MemoryError). */
static inline int irm_c_to_any_(irm_ntype t, const irm_cvalue *v, int owned, irm_any *out) {
  irm_any r = {0};
  switch (t) {
  case IRM_NT_VOID: r.type_code = IRM_NONE; break;
  case IRM_NT_BOOL:
    r.type_code = IRM_BOOL;
    r.v_int = v->b != 0;
    break;
  case IRM_NT_I32:
    r.type_code = IRM_INT;
    r.v_int = v->i32;
    break;
  case IRM_NT_I64:
    r.type_code = IRM_INT;
    r.v_int = v->i64;
    break;
  case IRM_NT_U64:
    r.type_code = IRM_INT;
    r.v_int = (int64_t)v->u64;
    break;
  case IRM_NT_F32:
    r.type_code = IRM_FLOAT;
    r.v_float = v->f32;
    break;
  case IRM_NT_F64:
    r.type_code = IRM_FLOAT;
    r.v_float = v->f64;
    break;
  case IRM_NT_PTR:
    r.type_code = IRM_PTR;
    r.v_ptr = v->p;
    break;
  case IRM_NT_STR:
    if (v->s && owned) return irm_native_string_result_(v->s, out);
    r.type_code = v->s ? IRM_STR : IRM_NONE;
    r.v_str = v->s;
    break;
  case IRM_NT_OBJ:
  case IRM_NT_OBJ_OPT:
    r.type_code = v->o ? IRM_OBJECT : IRM_NONE;
    r.v_obj = v->o;
    break;
  case IRM_NT_ANY:
    if (v->a) r = *v->a;
    break;
  }
  *out = r;
  return 0;
}

#endif
