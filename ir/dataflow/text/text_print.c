/* The printer of the IR text form (dataflow/text.h, docs/ir-text.md): modules,
 * functions, expressions in SSA form, and the repr hook of every IR node.
 *
 * Each function is walked with an explicit stack of frames, so neither a
 * long chain of calls nor a deep Let chain recurses:
 *   F_NODE   makes a node printable as an atom: first its operands, then
 *            its own `%n = ...;` line (leaves print inline instead);
 *   F_BLOCK  prints a block: the `let` lines of a Let chain, each after
 *            the lines of its value, then the result atom;
 *   F_CLOSE  closes the braces of a nested function or a Let block.
 * A node prints once (its temporary is remembered); Vars get names unique
 * within the top-level function. Use counts (from count_uses) decide
 * which Lets continue a chain: a Let with one user that is the body of a
 * Let; any other Let gets a `%n = { ... };` block of its own.
 *
 * With elision on (irm_dataflow_print_ex, the reprs) tensors above the limit
 * print as `const(dtype, [shape], <elided N elements>)` and a module's
 * text gets a comment line after its header counting them.
 *
 * irm_dataflow_print_to streams: the printer hands its buffer to the sink
 * whenever it holds SINK_CHUNK bytes and starts over, so the text of a
 * million-node module never sits in memory whole. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "expr_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/structural.h"
#include "text_internal.h"

/* Indentation stops growing here, so deep nesting stays linear in size. */
#define MAX_INDENT 32

/* Where streamed text goes (irm_dataflow_print_to); rc: the first failure. */
typedef struct sink {
  irm_dataflow_print_sink write;
  void *ctx;
  int rc;
} sink;

enum { SINK_CHUNK = 1 << 16 };

/* Hands b's text to s when it holds at least min bytes (0: whatever it
 * holds) and empties b. Errors: MemoryError (b failed), RuntimeError (the
 * sink refused). */
static int flush(irm_text_buf *b, sink *s, size_t min) {
  if (!s || s->rc) return s ? s->rc : IRM_OK;
  if (b->failed) return s->rc = irm_error_nomem_("printing IR");
  if (!b->len || b->len < min) return IRM_OK;
  int refused = s->write(s->ctx, b->data, b->len);
  irm_text_buf_truncate_(b, 0);
  if (refused)
    s->rc = irm_error(IRM_ERUNTIME, "irm_dataflow_print_to: the sink refused the text (returned %d)", refused);
  return s->rc;
}

/* 32 bytes: on a million-node function these are most of the printer's
 * memory. */
typedef struct node_info {
  irm_ptr_entry_ base; /* key: the node */
  uint32_t uses;       /* parent edges within the function */
  int32_t temp;        /* %temp once its line is printed; -1 before */
  char *name;          /* a Var's unique name (owned) */
} node_info;

typedef struct name_entry {
  char *name; /* key (owned) */
  uint64_t next_suffix;
  UT_hash_handle hh;
} name_entry;

typedef enum { F_NODE, F_BLOCK, F_CLOSE } frame_kind;

typedef struct frame {
  frame_kind kind;
  irm_object *node; /* F_BLOCK: where the chain is */
  size_t next;      /* F_NODE: the next operand to look at */
  int phase;        /* F_BLOCK */
  int chain;        /* F_BLOCK: node may continue the Let chain */
  int top;          /* F_CLOSE: a top-level def (no type, no ';') */
} frame;

typedef struct printer {
  irm_text_buf *b;
  irm_ptr_table_ nodes;
  name_entry *names;
  int32_t next_temp;
  frame *stack;
  size_t depth, cap;
  int indent;
  irm_dataflow_elide_ *elide; /* NULL: every tensor in full */
  sink *out;                  /* NULL: the text stays in b */
} printer;

static void printer_free(printer *p) {
  for (node_info *n = irm_ptr_table_first_(&p->nodes); n; n = irm_ptr_table_next_(n)) irm_free(n->name);
  irm_ptr_table_free_(&p->nodes);
  name_entry *e, *etmp;
  HASH_ITER(hh, p->names, e, etmp) {
    HASH_DEL(p->names, e);
    irm_free(e->name);
    irm_free(e);
  }
  irm_walk_stack_give_(p->stack, sizeof *p->stack, p->cap);
  p->stack = NULL;
  p->depth = p->cap = 0;
}

static node_info *find_info(printer *p, const irm_object *node) { return irm_ptr_table_find_(&p->nodes, node); }

static node_info *get_info(printer *p, const irm_object *node) {
  node_info *n = find_info(p, node);
  if (n) return n;
  n = irm_ptr_table_add_(&p->nodes, node, sizeof *n);
  if (n) n->temp = -1;
  return n;
}

/* Gives every node under root an entry with its count of parent edges:
 * one walk, remembering nodes in the table it fills anyway (no walk of its
 * own, which would keep a second table). */
static int count_uses(printer *p, irm_object *root) {
  size_t depth = 0, cap;
  irm_object **stack = irm_walk_stack_take_(sizeof *stack, 64, &cap);
  int rc = stack && get_info(p, root) ? IRM_OK : irm_error_nomem_("printing IR");
  if (!rc) stack[depth++] = root;
  while (!rc && depth) {
    irm_object *node = stack[--depth];
    size_t n = irm_expr_child_count(node);
    for (size_t i = 0; i < n && !rc; i++) {
      irm_object *child = irm_expr_child(node, i);
      node_info *c = find_info(p, child);
      if (!c) {
        if (depth == cap) {
          irm_object **grown = irm_realloc(stack, 2 * cap * sizeof *stack);
          if (!grown) {
            rc = irm_error_nomem_("printing IR");
            break;
          }
          stack = grown;
          cap *= 2;
        }
        if (!(c = get_info(p, child))) rc = irm_error_nomem_("printing IR");
        else stack[depth++] = child;
      }
      if (c) c->uses++;
    }
  }
  irm_walk_stack_give_(stack, sizeof *stack, cap);
  return rc;
}

static uint32_t uses_of(printer *p, const irm_object *node) {
  node_info *n = find_info(p, node);
  return n ? n->uses : 0;
}

static int add_name(printer *p, const char *name) {
  name_entry *e = irm_calloc(1, sizeof *e);
  char *copy = e ? irm_malloc(strlen(name) + 1) : NULL;
  if (!copy) {
    irm_free(e);
    return irm_error_nomem_("printing IR");
  }
  strcpy(copy, name);
  e->name = copy;
  e->next_suffix = 1;
  int irm_hash_oom = 0;
  HASH_ADD_KEYPTR(hh, p->names, e->name, strlen(e->name), e);
  if (irm_hash_oom) {
    irm_free(copy);
    irm_free(e);
    return irm_error_nomem_("printing IR");
  }
  return IRM_OK;
}

static name_entry *find_name(printer *p, const char *name) {
  name_entry *e = NULL;
  HASH_FIND_STR(p->names, name, e);
  return e;
}

/* The Var's unique name, given on first sight: its hint with every dot not
 * followed by a letter made '_' (so `%a.0` stays a projection), then
 * `_1`, `_2`, ... until unused. */
static const char *var_name(printer *p, const irm_object *var, int *rc) {
  node_info *n = get_info(p, var);
  if (!n) {
    *rc = irm_error_nomem_("printing IR");
    return NULL;
  }
  if (n->name) return n->name;
  const char *hint = irm_var_name(var);
  if (!hint || !hint[0]) hint = "v";
  size_t len = strlen(hint);
  char *base = irm_malloc(len + 2);
  if (!base) {
    *rc = irm_error_nomem_("printing IR");
    return NULL;
  }
  size_t o = 0;
  if (!((hint[0] >= 'a' && hint[0] <= 'z') || (hint[0] >= 'A' && hint[0] <= 'Z') || hint[0] == '_')) base[o++] = 'v';
  for (size_t i = 0; i < len; i++) {
    char c = hint[i];
    int next_alpha = i + 1 < len && ((hint[i + 1] >= 'a' && hint[i + 1] <= 'z') ||
                                     (hint[i + 1] >= 'A' && hint[i + 1] <= 'Z') || hint[i + 1] == '_');
    int word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    base[o++] = (c == '.' && next_alpha) || word ? c : '_';
  }
  base[o] = '\0';
  char *chosen = NULL;
  name_entry *e = find_name(p, base);
  if (!e) {
    chosen = base;
  } else {
    chosen = irm_malloc(o + 24);
    if (!chosen) {
      irm_free(base);
      *rc = irm_error_nomem_("printing IR");
      return NULL;
    }
    do snprintf(chosen, o + 24, "%s_%" PRIu64, base, e->next_suffix++);
    while (find_name(p, chosen));
    irm_free(base);
  }
  if ((*rc = add_name(p, chosen)) != IRM_OK) {
    irm_free(chosen);
    return NULL;
  }
  n->name = chosen;
  return chosen;
}

/* Nodes that print inline where they are used. A Constant prints inline
 * unless it has several users (then once, on a line of its own). */
static int is_inline(printer *p, const irm_object *node) {
  irm_expr_kind k = irm_expr_kind_of(node);
  if (k == IRM_EXPR_VAR || k == IRM_EXPR_GLOBAL_VAR || k == IRM_EXPR_OP) return 1;
  return k == IRM_EXPR_CONSTANT && uses_of(p, node) <= 1;
}

static int needs_line(printer *p, const irm_object *node) {
  if (is_inline(p, node)) return 0;
  node_info *n = find_info(p, node);
  return !n || n->temp < 0;
}

static int atom(printer *p, const irm_object *node) {
  int rc = IRM_OK;
  node_info *n = find_info(p, node);
  if (n && n->temp >= 0) {
    irm_text_buf_printf_(p->b, "%%%" PRId32, n->temp);
    return IRM_OK;
  }
  switch (irm_expr_kind_of(node)) {
  case IRM_EXPR_VAR: {
    const char *name = var_name(p, node, &rc);
    if (name) irm_text_buf_printf_(p->b, "%%%s", name);
    return rc;
  }
  case IRM_EXPR_GLOBAL_VAR: {
    const char *name = irm_global_var_name(node);
    irm_dataflow_print_name_(p->b, '@', name, strlen(name));
    return IRM_OK;
  }
  case IRM_EXPR_OP: irm_text_buf_puts_(p->b, irm_op_name(node)); return IRM_OK;
  case IRM_EXPR_CONSTANT: return irm_dataflow_print_tensor_(p->b, irm_constant_data(node), p->elide);
  default:
    return irm_error(IRM_EVALUE, "cannot print a %s node before its line (a cycle?)",
                     irm_expr_kind_name(irm_expr_kind_of(node)));
  }
}

static void indent(printer *p) {
  int n = p->indent < MAX_INDENT ? p->indent : MAX_INDENT;
  for (int i = 0; i < n; i++) irm_text_buf_puts_(p->b, "  ");
}

/* Starts `%n = ` for node. */
static int start_line(printer *p, const irm_object *node) {
  node_info *n = get_info(p, node);
  if (!n) return irm_error_nomem_("printing IR");
  if (p->next_temp == INT32_MAX)
    return irm_error(IRM_EVALUE, "cannot print a function of more than %d lines", INT32_MAX);
  n->temp = p->next_temp++;
  indent(p);
  irm_text_buf_printf_(p->b, "%%%" PRId32 " = ", n->temp);
  return IRM_OK;
}

/* ` : T` when the node has a checked type. */
static int type_suffix(printer *p, const irm_object *node) {
  const irm_object *t = irm_expr_type(node);
  if (!t) return IRM_OK;
  irm_text_buf_puts_(p->b, " : ");
  return irm_dataflow_print_type_(p->b, t);
}

static int push(printer *p, frame_kind kind, irm_object *node) {
  if (p->depth == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 64;
    frame *s = p->cap ? irm_realloc(p->stack, cap * sizeof *s) : irm_walk_stack_take_(sizeof *s, cap, &cap);
    if (!s) return irm_error_nomem_("printing IR");
    p->stack = s;
    p->cap = cap;
  }
  frame f = {kind, node, 0, 0, 0, 0};
  p->stack[p->depth++] = f;
  return IRM_OK;
}

/* `%x: T` (the annotation when the Var has one). */
static int binder(printer *p, const irm_object *var) {
  int rc = atom(p, var);
  const irm_object *t = irm_expr_type(var);
  if (rc || !t) return rc;
  irm_text_buf_puts_(p->b, ": ");
  return irm_dataflow_print_type_(p->b, t);
}

/* `(%x: T, ...) -> R attributes {...} {` and a newline. */
static int func_signature(printer *p, const irm_object *fn) {
  size_t n = irm_function_param_count(fn);
  irm_text_buf_putc_(p->b, '(');
  for (size_t i = 0; i < n; i++) {
    if (i) irm_text_buf_puts_(p->b, ", ");
    int rc = binder(p, irm_function_param(fn, i));
    if (rc) return rc;
  }
  irm_text_buf_putc_(p->b, ')');
  const irm_object *ret = irm_function_ret_type(fn);
  if (ret) {
    irm_text_buf_puts_(p->b, " -> ");
    int rc = irm_dataflow_print_type_(p->b, ret);
    if (rc) return rc;
  }
  int rc = irm_dataflow_print_func_attrs_(p->b, irm_dict_attrs_map(irm_base_func_attrs(fn)), p->elide);
  if (rc) return rc;
  irm_text_buf_puts_(p->b, " {\n");
  return IRM_OK;
}

/* The call's attributes that differ from the op's defaults. */
static int call_attrs(printer *p, const irm_object *call, int *first) {
  const irm_object *attrs = irm_call_attrs(call);
  irm_kind *kind = irm_op_kind(irm_call_callee(call));
  irm_map_iter it = irm_map_iter_begin(attrs);
  const irm_object *k;
  const irm_any *v;
  while (irm_map_iter_next(&it, &k, &v)) {
    irm_any def = irm_any_none();
    int same = 0;
    if (kind && irm_kind_option(kind, irm_string_data(k), NULL, &def) == IRM_OK && def.type_code != IRM_NONE) {
      int rc = irm_structural_equal(&def, v, &same);
      irm_any_release(&def);
      if (rc) return rc;
    }
    irm_clear_error();
    if (same) continue;
    if (!*first) irm_text_buf_puts_(p->b, ", ");
    *first = 0;
    irm_dataflow_print_name_(p->b, 0, irm_string_data(k), irm_string_size(k));
    irm_text_buf_putc_(p->b, '=');
    int rc = irm_dataflow_print_value_(p->b, v, p->elide);
    if (rc) return irm_error_context(rc, "attribute '%s' of a call", irm_error_quote(irm_string_data(k)));
  }
  return IRM_OK;
}

/* The `%n = ...;` line of a call, tuple, projection or shared constant,
 * whose operands are printed. */
static int node_line(printer *p, irm_object *node) {
  int rc = start_line(p, node);
  if (rc) return rc;
  switch (irm_expr_kind_of(node)) {
  case IRM_EXPR_CALL: {
    size_t n = irm_call_arg_count(node);
    rc = atom(p, irm_call_callee(node));
    irm_text_buf_putc_(p->b, '(');
    for (size_t i = 0; i < n && !rc; i++) {
      if (i) irm_text_buf_puts_(p->b, ", ");
      rc = atom(p, irm_call_arg(node, i));
    }
    int first = n == 0;
    if (!rc && irm_expr_kind_of(irm_call_callee(node)) == IRM_EXPR_OP) rc = call_attrs(p, node, &first);
    irm_text_buf_putc_(p->b, ')');
    break;
  }
  case IRM_EXPR_TUPLE: {
    size_t n = irm_tuple_size(node);
    irm_text_buf_putc_(p->b, '(');
    for (size_t i = 0; i < n && !rc; i++) {
      if (i) irm_text_buf_puts_(p->b, ", ");
      rc = atom(p, irm_tuple_field(node, i));
    }
    irm_text_buf_puts_(p->b, n == 1 ? ",)" : ")");
    break;
  }
  case IRM_EXPR_TUPLE_GET_ITEM:
    rc = atom(p, irm_tuple_item_source(node));
    irm_text_buf_printf_(p->b, ".%" PRId64, irm_tuple_item_index(node));
    break;
  case IRM_EXPR_CONSTANT: rc = irm_dataflow_print_tensor_(p->b, irm_constant_data(node), p->elide); break;
  default: rc = irm_error(IRM_EVALUE, "cannot print a %s node", irm_expr_kind_name(irm_expr_kind_of(node)));
  }
  if (!rc && irm_expr_kind_of(node) != IRM_EXPR_CONSTANT) rc = type_suffix(p, node);
  irm_text_buf_puts_(p->b, ";\n");
  return rc;
}

/* One step of the F_NODE frame on top. */
static int step_node(printer *p) {
  frame *f = &p->stack[p->depth - 1];
  irm_object *node = f->node;
  if (!needs_line(p, node)) {
    p->depth--;
    return IRM_OK;
  }
  irm_expr_kind k = irm_expr_kind_of(node);
  if (k == IRM_EXPR_FUNCTION) {
    int rc = start_line(p, node);
    irm_text_buf_puts_(p->b, "fn ");
    if (!rc) rc = func_signature(p, node);
    if (rc) return rc;
    p->indent++;
    f->kind = F_CLOSE;
    rc = push(p, F_BLOCK, irm_function_body(node));
    if (!rc) p->stack[p->depth - 1].chain = uses_of(p, irm_function_body(node)) == 1;
    return rc;
  }
  if (k == IRM_EXPR_LET) {
    int rc = start_line(p, node);
    if (rc) return rc;
    irm_text_buf_puts_(p->b, "{\n");
    p->indent++;
    f->kind = F_CLOSE;
    rc = push(p, F_BLOCK, node);
    if (!rc) p->stack[p->depth - 1].chain = 1;
    return rc;
  }
  /* Calls and tuples print their operands first (the callee included);
   * a projection its tuple. Constants have none. */
  size_t n = k == IRM_EXPR_CONSTANT ? 0 : irm_expr_child_count(node);
  while (f->next < n) {
    irm_object *c = irm_expr_child(node, f->next++);
    if (needs_line(p, c)) return push(p, F_NODE, c);
  }
  p->depth--;
  return node_line(p, node);
}

/* One step of the F_BLOCK frame on top. */
static int step_block(printer *p) {
  frame *f = &p->stack[p->depth - 1];
  irm_object *cur = f->node;
  switch (f->phase) {
  case 0: f->phase = f->chain && irm_expr_kind_of(cur) == IRM_EXPR_LET ? 1 : 3; return IRM_OK;
  case 1: f->phase = 2; return needs_line(p, irm_let_value(cur)) ? push(p, F_NODE, irm_let_value(cur)) : IRM_OK;
  case 2: {
    indent(p);
    irm_text_buf_puts_(p->b, "let ");
    int rc = binder(p, irm_let_var(cur));
    irm_text_buf_puts_(p->b, " = ");
    if (!rc) rc = atom(p, irm_let_value(cur));
    irm_text_buf_puts_(p->b, ";\n");
    if (rc) return rc;
    irm_object *body = irm_let_body(cur);
    node_info *bi = find_info(p, body);
    f->node = body;
    f->chain = irm_expr_kind_of(body) == IRM_EXPR_LET && bi && bi->uses == 1 && bi->temp < 0;
    f->phase = 0;
    return IRM_OK;
  }
  case 3: f->phase = 4; return needs_line(p, cur) ? push(p, F_NODE, cur) : IRM_OK;
  default: {
    indent(p);
    int rc = atom(p, cur);
    irm_text_buf_putc_(p->b, '\n');
    p->depth--;
    return rc;
  }
  }
}

static int step_close(printer *p) {
  frame *f = &p->stack[--p->depth];
  p->indent--;
  indent(p);
  irm_text_buf_putc_(p->b, '}');
  if (f->top) {
    irm_text_buf_putc_(p->b, '\n');
    return IRM_OK;
  }
  int rc = type_suffix(p, f->node);
  irm_text_buf_puts_(p->b, ";\n");
  return rc;
}

static int run(printer *p) {
  int rc = IRM_OK;
  while (!rc && p->depth && !p->b->failed) {
    switch (p->stack[p->depth - 1].kind) {
    case F_NODE: rc = step_node(p); break;
    case F_BLOCK: rc = step_block(p); break;
    default: rc = step_close(p); break;
    }
    if (!rc && p->out && p->b->len >= SINK_CHUNK) rc = flush(p->b, p->out, SINK_CHUNK);
  }
  return rc;
}

/* A function: `def @name(...) ... {` (name given) or `fn (...) ... {`,
 * its body, `}`. */
static int print_function(irm_text_buf *b, const char *name, irm_object *fn, irm_dataflow_elide_ *elide, sink *out) {
  printer p = {b, IRM_PTR_TABLE_INIT_, NULL, 0, NULL, 0, 0, 0, elide, out};
  int rc = count_uses(&p, fn);
  if (!rc) {
    if (name) {
      irm_text_buf_puts_(b, "def ");
      irm_dataflow_print_name_(b, '@', name, strlen(name));
    } else {
      irm_text_buf_puts_(b, "fn ");
    }
    rc = func_signature(&p, fn);
  }
  if (!rc) {
    p.indent = 1;
    rc = push(&p, F_CLOSE, fn);
  }
  if (!rc) {
    p.stack[0].top = 1;
    rc = push(&p, F_BLOCK, irm_function_body(fn));
  }
  if (!rc) {
    p.stack[1].chain = uses_of(&p, irm_function_body(fn)) == 1;
    rc = run(&p);
  }
  printer_free(&p);
  return rc;
}

/* An expression: its lines, then its atom. */
static int print_expr(irm_text_buf *b, irm_object *e, irm_dataflow_elide_ *elide) {
  printer p = {b, IRM_PTR_TABLE_INIT_, NULL, 0, NULL, 0, 0, 0, elide, NULL};
  int rc = count_uses(&p, e);
  if (!rc) rc = push(&p, F_BLOCK, e);
  if (!rc) {
    p.stack[0].chain = 1;
    rc = run(&p);
  }
  printer_free(&p);
  return rc;
}

static int take(irm_text_buf *b, int rc, irm_object **out) {
  if (rc) {
    irm_text_buf_free_(b);
    return rc;
  }
  return irm_text_buf_take_string_(b, "printing IR", out);
}

/* The elision opts ask for in *e (nothing elided when opts is NULL).
 * ValueError for a struct_size before elide_larger_than or a negative
 * limit. */
static int read_options(const char *fn, const irm_dataflow_print_options *opts, irm_dataflow_elide_ *e) {
  e->larger_than = 0;
  e->count = 0;
  e->note = NULL;
  e->note_ctx = NULL;
  if (!opts) return IRM_OK;
  size_t v1 = offsetof(irm_dataflow_print_options, elide_larger_than) + sizeof opts->elide_larger_than;
  if (opts->struct_size < v1)
    return irm_error(IRM_EVALUE,
                     "%s: opts->struct_size %u is smaller than the first irm_dataflow_print_options (%zu bytes)", fn,
                     (unsigned)opts->struct_size, v1);
  if (opts->elide_larger_than < 0)
    return irm_error(IRM_EVALUE, "%s: elide_larger_than must be 0 (print every element) or more, got %" PRId64, fn,
                     opts->elide_larger_than);
  e->larger_than = opts->elide_larger_than;
  if (opts->struct_size >= offsetof(irm_dataflow_print_options, elided_note_ctx) + sizeof opts->elided_note_ctx) {
    e->note = opts->elided_note;
    e->note_ctx = opts->elided_note_ctx;
  }
  return IRM_OK;
}

static int print_node(const irm_object *node, irm_dataflow_elide_ *elide, irm_object **out) {
  irm_text_buf b = {0};
  int rc;
  irm_object *e = (irm_object *)node; /* the walks only read it */
  irm_expr_kind k = irm_expr_kind_of(node);
  if (irm_dataflow_type_kind_of(node) != IRM_DATAFLOW_TYPE_NONE) rc = irm_dataflow_print_type_(&b, node);
  else if (k == IRM_EXPR_FUNCTION) rc = print_function(&b, NULL, e, elide, NULL);
  else if (k != IRM_EXPR_NONE) rc = print_expr(&b, e, elide);
  else rc = irm_error(IRM_ETYPE, "ir.Print: expected an IR node, got %s", node ? irm_object_type_key(node) : "none");
  if (!rc && b.len && b.data[b.len - 1] == '\n') b.len--; /* one line reads better without it */
  if (!rc && b.data) b.data[b.len] = '\0';
  return take(&b, rc, out);
}

int irm_dataflow_print_node_ex(const irm_object *node, const irm_dataflow_print_options *opts, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_dataflow_print_node: out must not be NULL");
  *out = NULL;
  irm_dataflow_elide_ elide;
  int rc = read_options("irm_dataflow_print_node", opts, &elide);
  return rc ? rc : print_node(node, &elide, out);
}

int irm_dataflow_print_node(const irm_object *node, irm_object **out) {
  return irm_dataflow_print_node_ex(node, NULL, out);
}

/* A node's repr: its text with large tensors elided. */
int irm_expr_repr_(const irm_object *e, irm_object **out) {
  const irm_dataflow_print_options opts = {(uint32_t)sizeof opts, IRM_DATAFLOW_PRINT_ELIDE_DEFAULT, NULL, NULL};
  return irm_dataflow_print_node_ex(e, &opts, out);
}

/* ---- modules ---------------------------------------------------------------- */

/* The module attributes, one per line. lenient (repr): a value without a
 * text form becomes a comment naming its type; otherwise it is an error. */
static int print_module_attrs(irm_text_buf *b, const irm_object *attrs, int lenient, irm_dataflow_elide_ *elide) {
  if (!irm_map_size(attrs)) return IRM_OK;
  irm_text_buf_puts_(b, "attributes {");
  const irm_object *k;
  const irm_any *v;
  size_t shown = 0;
  irm_map_iter it = irm_map_iter_begin(attrs);
  while (irm_map_iter_next(&it, &k, &v)) {
    irm_text_buf one = {0};
    irm_dataflow_print_name_(&one, 0, irm_string_data(k), irm_string_size(k));
    irm_text_buf_puts_(&one, " = ");
    int rc = irm_dataflow_print_value_(&one, v, elide);
    if (!rc && one.failed) rc = irm_error_nomem_("printing IR");
    if (rc == IRM_OK) {
      irm_text_buf_puts_(b, shown++ ? ",\n  " : "\n  ");
      irm_text_buf_append_(b, irm_text_buf_cstr_(&one), one.len);
    }
    irm_text_buf_free_(&one);
    if (rc && (!lenient || rc == IRM_ENOMEM))
      return irm_error_context(rc, "module attribute '%s'", irm_error_quote(irm_string_data(k)));
    irm_clear_error();
  }
  it = irm_map_iter_begin(attrs); /* then what has no text form, as comments */
  while (lenient && irm_map_iter_next(&it, &k, &v)) {
    irm_text_buf one = {0};
    irm_dataflow_elide_ probe = {1, 0, NULL, NULL}; /* only whether it prints matters */
    int rc = irm_dataflow_print_value_(&one, v, &probe);
    irm_text_buf_free_(&one);
    if (rc == IRM_OK) continue;
    irm_clear_error();
    irm_text_buf_puts_(b, "\n  // ");
    irm_dataflow_print_name_(b, 0, irm_string_data(k), irm_string_size(k));
    irm_text_buf_printf_(b, ": %s (not printable)", irm_any_type_name(v));
  }
  irm_text_buf_puts_(b, "\n}\n");
  return IRM_OK;
}

static void not_printable(irm_text_buf *b, const char *name, const irm_object *fn) {
  irm_text_buf_puts_(b, "// ");
  irm_dataflow_print_name_(b, '@', name, strlen(name));
  irm_text_buf_printf_(b, ": %s (not printable)\n", irm_object_type_key(fn));
}

/* The header, a comment line when tensors were elided, then body. */
static void join_header(irm_text_buf *b, const irm_module *mod, const irm_dataflow_elide_ *elide, irm_text_buf *body) {
  irm_text_buf_puts_(b, "#[version = \"" IRM_DATAFLOW_TEXT_VERSION "\"");
  irm_text_buf_puts_(b, irm_module_is_frozen(mod) ? ", frozen = true]\n" : "]\n");
  if (elide->count)
    irm_text_buf_printf_(
        b, "// %zu %s with more than %" PRId64 " %s elided; print with all constants (elide_larger_than=0) to parse\n",
        elide->count, elide->count == 1 ? "tensor" : "tensors", elide->larger_than,
        elide->larger_than == 1 ? "element" : "elements");
  if (body->failed) irm_text_buf_fail_(b);
  else if (body->len) irm_text_buf_append_(b, body->data, body->len);
}

/* The module's text into *out (a NEW String) or, when s is not NULL, to s
 * in pieces. lenient: the repr (what has no text form as comments). */
static int print_module(const irm_module *mod, int lenient, irm_dataflow_elide_ *elide, sink *s, irm_object **out) {
  if (!irm_object_is(mod, "ir.IRModule"))
    return irm_error(IRM_ETYPE, "ir.Print: expected ir.IRModule, got %s", mod ? irm_object_type_key(mod) : "none");
  /* When tensors may be elided the body goes to a buffer of its own, since
   * the comment saying how many were comes before it. */
  irm_text_buf b = {0}, body = {0}, *to = elide->larger_than ? &body : &b;
  sink *streaming = to == &b ? s : NULL; /* functions print straight into b, which flushes as it fills */
  if (to == &b) join_header(&b, mod, elide, &body);
  int rc = print_module_attrs(to, irm_dict_attrs_map(irm_module_attrs(mod)), lenient, elide);
  irm_object *names = NULL;
  if (!rc) rc = irm_module_function_names(mod, &names);
  size_t n = irm_array_size(names);
  for (size_t i = 0; i < n && !rc; i++) {
    const char *name = irm_string_data(irm_array_at(names, i)->v_obj);
    irm_object *fn = irm_module_function(mod, name);
    if (irm_expr_kind_of(fn) != IRM_EXPR_FUNCTION) {
      not_printable(to, name, fn);
      continue;
    }
    if (!lenient) { /* a failure fails the whole: no need to keep the function apart */
      if ((rc = print_function(to, name, fn, elide, streaming)))
        rc = irm_error_context(rc, "function '%s'", irm_error_quote(name));
      continue;
    }
    irm_text_buf one = {0};
    size_t elided = elide->count;
    rc = print_function(&one, name, fn, elide, NULL);
    if (!rc && one.failed) rc = irm_error_nomem_("printing IR");
    if (!rc) irm_text_buf_append_(to, irm_text_buf_cstr_(&one), one.len);
    irm_text_buf_free_(&one);
    if (rc && lenient && rc != IRM_ENOMEM) {
      irm_clear_error();
      elide->count = elided; /* what it elided is not in the text */
      not_printable(to, name, fn);
      rc = IRM_OK;
    } else if (rc) {
      rc = irm_error_context(rc, "function '%s'", irm_error_quote(name));
    }
  }
  irm_object_release(names);
  if (!rc && to == &body) join_header(&b, mod, elide, &body);
  irm_text_buf_free_(&body);
  if (!s) return take(&b, rc, out);
  if (!rc) rc = flush(&b, s, 0);
  irm_text_buf_free_(&b);
  return rc;
}

int irm_dataflow_print_ex(const irm_module *mod, const irm_dataflow_print_options *opts, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_dataflow_print: out must not be NULL");
  *out = NULL;
  irm_dataflow_elide_ elide;
  int rc = read_options("irm_dataflow_print", opts, &elide);
  return rc ? rc : print_module(mod, 0, &elide, NULL, out);
}

int irm_dataflow_print(const irm_module *mod, irm_object **out) { return irm_dataflow_print_ex(mod, NULL, out); }

int irm_dataflow_print_to(const irm_module *mod, const irm_dataflow_print_options *opts, irm_dataflow_print_sink write,
                          void *ctx) {
  if (!write) return irm_error(IRM_EVALUE, "irm_dataflow_print_to: sink must not be NULL");
  irm_dataflow_elide_ elide;
  int rc = read_options("irm_dataflow_print_to", opts, &elide);
  sink s = {write, ctx, IRM_OK};
  return rc ? rc : print_module(mod, 0, &elide, &s, NULL);
}

static int write_file(void *ctx, const char *data, size_t len) {
  return fwrite(data, 1, len, (FILE *)ctx) == len ? 0 : -1;
}

int irm_dataflow_print_file(const irm_module *mod, const irm_dataflow_print_options *opts, FILE *file) {
  if (!file) return irm_error(IRM_EVALUE, "irm_dataflow_print_file: file must not be NULL");
  return irm_dataflow_print_to(mod, opts, write_file, file);
}

/* The module's repr: its text, with what has no text form as comments and
 * large tensors elided. */
int irm_dataflow_module_repr_(const irm_object *mod, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_dataflow_print: out must not be NULL");
  *out = NULL;
  irm_dataflow_elide_ elide = {IRM_DATAFLOW_PRINT_ELIDE_DEFAULT, 0, NULL, NULL};
  return print_module(mod, 1, &elide, NULL, out);
}
