/* Native signatures ("i64(i64,i64)") and the conversions between C values
 * and irm_any that native functions and closures share. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "error_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "native_internal.h"

static const struct {
  const char *name;
  irm_ntype type;
} type_names[] = {
    {"void", IRM_NT_VOID}, {"bool", IRM_NT_BOOL},    {"i32", IRM_NT_I32}, {"i64", IRM_NT_I64},
    {"u64", IRM_NT_U64},   {"f32", IRM_NT_F32},      {"f64", IRM_NT_F64}, {"ptr", IRM_NT_PTR},
    {"str", IRM_NT_STR},   {"obj?", IRM_NT_OBJ_OPT}, {"obj", IRM_NT_OBJ}, {"any", IRM_NT_ANY},
};
enum { type_count = sizeof type_names / sizeof type_names[0] };

const char *irm_ntype_name_(irm_ntype t) {
  for (int i = 0; i < type_count; i++)
    if (type_names[i].type == t) return type_names[i].name;
  return "?";
}

ffi_type *irm_ntype_ffi_(irm_ntype t) {
  switch (t) {
  case IRM_NT_VOID: return &ffi_type_void;
  case IRM_NT_BOOL: return &ffi_type_uint8;
  case IRM_NT_I32: return &ffi_type_sint32;
  case IRM_NT_I64: return &ffi_type_sint64;
  case IRM_NT_U64: return &ffi_type_uint64;
  case IRM_NT_F32: return &ffi_type_float;
  case IRM_NT_F64: return &ffi_type_double;
  default: return &ffi_type_pointer;
  }
}

/* ---- parsing ----------------------------------------------------------- */

typedef struct cursor {
  const char *text;
  size_t pos;
} cursor;

static void skip_space(cursor *c) {
  while (isspace((unsigned char)c->text[c->pos])) c->pos++;
}

static int parse_error(const cursor *c, const char *what) {
  return irm_error(IRM_EVALUE, "invalid signature '%s': %s at position %zu", irm_error_quote(c->text), what, c->pos);
}

/* Reads one type name; the longest match wins ("obj?" before "obj"). */
static int parse_type(cursor *c, irm_ntype *out) {
  skip_space(c);
  const char *p = c->text + c->pos;
  size_t len = 0;
  while (isalnum((unsigned char)p[len]) || p[len] == '?') len++;
  for (int i = 0; i < type_count; i++) {
    if (strlen(type_names[i].name) == len && strncmp(p, type_names[i].name, len) == 0) {
      *out = type_names[i].type;
      c->pos += len;
      return IRM_OK;
    }
  }
  if (len == 0) return parse_error(c, "expected a type");
  char word[32];
  snprintf(word, sizeof word, "%.*s", (int)(len < 31 ? len : 31), p);
  const char *names[type_count];
  for (int i = 0; i < type_count; i++) names[i] = type_names[i].name;
  const char *best = irm_closest_name(word, names, type_count);
  if (best)
    return irm_error(IRM_EVALUE, "invalid signature '%s': unknown type '%s' at position %zu (did you mean '%s'?)",
                     irm_error_quote(c->text), word, c->pos, best);
  return irm_error(IRM_EVALUE,
                   "invalid signature '%s': unknown type '%s' at position %zu (types: void, bool, "
                   "i32, i64, u64, f32, f64, ptr, str, obj, obj?, any)",
                   irm_error_quote(c->text), word, c->pos);
}

static int expect_char(cursor *c, char ch, const char *what) {
  skip_space(c);
  if (c->text[c->pos] != ch) return parse_error(c, what);
  c->pos++;
  return IRM_OK;
}

static void format_sig(irm_native_sig *sig) {
  char *p = sig->text;
  p += sprintf(p, "%s(", irm_ntype_name_(sig->ret));
  for (int32_t i = 0; i < sig->nargs; i++) p += sprintf(p, "%s%s", i ? "," : "", irm_ntype_name_(sig->args[i]));
  sprintf(p, ")");
}

int irm_native_sig_parse_(const char *text, irm_native_sig *out) {
  if (!text) return irm_error(IRM_EVALUE, "invalid signature: NULL");
  cursor c = {text, 0};
  memset(out, 0, sizeof *out);
  int rc = parse_type(&c, &out->ret);
  if (rc) return rc;
  if (out->ret == IRM_NT_ANY)
    return irm_error(IRM_EVALUE, "invalid signature '%s': 'any' is an argument type, not a return type, at position 0",
                     irm_error_quote(text));
  if ((rc = expect_char(&c, '(', "expected '(' after the return type"))) return rc;
  skip_space(&c);
  if (text[c.pos] != ')') {
    for (;;) {
      irm_ntype t;
      size_t at = c.pos;
      if ((rc = parse_type(&c, &t))) return rc;
      if (t == IRM_NT_VOID) {
        c.pos = at;
        return parse_error(&c, "'void' is not an argument type (write '()' for no arguments)");
      }
      if (out->nargs == IRM_NATIVE_MAX_ARGS) {
        c.pos = at;
        return irm_error(IRM_EVALUE, "invalid signature '%s': more than %d arguments at position %zu",
                         irm_error_quote(text), IRM_NATIVE_MAX_ARGS, at);
      }
      out->args[out->nargs++] = t;
      skip_space(&c);
      if (text[c.pos] != ',') break;
      c.pos++;
    }
  }
  if ((rc = expect_char(&c, ')', "expected ',' or ')'"))) return rc;
  skip_space(&c);
  if (text[c.pos]) return parse_error(&c, "unexpected text after ')'");
  format_sig(out);
  return IRM_OK;
}

int irm_native_prep_cif_(const irm_native_sig *sig, ffi_cif *cif, ffi_type **types) {
  for (int32_t i = 0; i < sig->nargs; i++) types[i] = irm_ntype_ffi_(sig->args[i]);
  ffi_status st = ffi_prep_cif(cif, FFI_DEFAULT_ABI, (unsigned)sig->nargs, irm_ntype_ffi_(sig->ret), types);
  if (st != FFI_OK)
    return irm_error(IRM_ERUNTIME, "libffi cannot prepare a call of signature '%s' (status %d)", sig->text, (int)st);
  return IRM_OK;
}

/* ---- conversion errors ------------------------------------------------- */

int irm_native_conv_error_(irm_ntype t, const irm_any *v) {
  if (t == IRM_NT_BOOL && v->type_code == IRM_INT)
    return irm_error(IRM_ETYPE, "expected bool, got int %lld (only 0 and 1 convert to bool)", (long long)v->v_int);
  if (t == IRM_NT_I32 && (v->type_code == IRM_INT || v->type_code == IRM_BOOL))
    return irm_error(IRM_EVALUE, "int %lld is out of range for i32", (long long)v->v_int);
  if (t == IRM_NT_U64 && (v->type_code == IRM_INT || v->type_code == IRM_BOOL))
    return irm_error(IRM_EVALUE, "int %lld is out of range for u64", (long long)v->v_int);
  return irm_error(IRM_ETYPE, "expected %s, got %s", irm_ntype_name_(t), irm_any_describe_(v));
}

int irm_native_string_result_(const char *s, irm_any *out) {
  irm_object *str = NULL;
  int rc = irm_string_from_cstr(s, &str);
  *out = irm_any_object(str);
  return rc;
}
