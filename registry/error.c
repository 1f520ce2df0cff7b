/* Thread-local last error, error kinds and error context. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "error_internal.h"
#include "irm/alloc.h"
#include "irm/error.h"

/* Exported for the inline call path of function.h; initial-exec so the
 * library reads it with one %fs-relative load. */
IRM_API _Thread_local unsigned irm_error_generation_ __attribute__((tls_model("initial-exec")));

typedef struct error_state {
  char *text; /* "Kind: message", NUL-terminated; NULL when none */
  size_t capacity;
} error_state;

/* Indexed by -code; from IRM_ERROR_KINDS, so a kind is added in one place. */
#define KIND_NAME(code, value, name) [-(value)] = #name,
static const char *const kind_names[] = {[0] = "OK", IRM_ERROR_KINDS(KIND_NAME)};
#undef KIND_NAME
enum { kind_count = sizeof kind_names / sizeof kind_names[0] };

static const char oom_message[] = "MemoryError: out of memory while storing an error message";

static pthread_key_t state_key;
static pthread_once_t state_once = PTHREAD_ONCE_INIT;
static _Thread_local error_state *tls_state;
/* Set when the last message could not be stored for lack of memory. */
static _Thread_local int tls_lost;

static void state_destroy(void *p) {
  error_state *s = p;
  if (!s) return;
  irm_free(s->text);
  irm_free(s);
  tls_state = NULL;
}

static void state_key_create(void) { (void)pthread_key_create(&state_key, state_destroy); }

/* The calling thread's state, created on first use; NULL when out of
 * memory. The pthread key frees it when the thread exits. */
static error_state *state_get(void) {
  if (tls_state) return tls_state;
  pthread_once(&state_once, state_key_create);
  error_state *s = irm_calloc(1, sizeof *s);
  if (!s) return NULL;
  if (pthread_setspecific(state_key, s) != 0) {
    irm_free(s);
    return NULL;
  }
  tls_state = s;
  return s;
}

/* Replaces the message with `prefix` + formatted text (the text may be
 * built from the old message: it is formatted into a new buffer first). */
static void state_store(const char *prefix, const char *fmt, va_list ap) {
  irm_error_generation_++;
  error_state *s = state_get();
  if (!s) {
    tls_lost = 1;
    return;
  }
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) n = 0;
  size_t plen = strlen(prefix);
  size_t need = plen + (size_t)n + 1;
  char *buf = irm_malloc(need);
  if (!buf) {
    tls_lost = 1;
    return;
  }
  memcpy(buf, prefix, plen);
  vsnprintf(buf + plen, (size_t)n + 1, fmt, ap);
  irm_free(s->text);
  s->text = buf;
  s->capacity = need;
  tls_lost = 0;
}

static void state_store_f(const char *prefix, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  state_store(prefix, fmt, ap);
  va_end(ap);
}

const char *irm_error_kind(int code) {
  if (code > 0 || -code >= kind_count || !kind_names[-code]) return "RuntimeError";
  return kind_names[-code];
}

/* Length of the "Kind: " prefix of msg, 0 if it has no known kind. */
static size_t kind_prefix_len(const char *msg, int *code) {
  for (int i = 1; i < kind_count; i++) {
    if (!kind_names[i]) continue;
    size_t n = strlen(kind_names[i]);
    if (strncmp(msg, kind_names[i], n) == 0 && msg[n] == ':' && msg[n + 1] == ' ') {
      if (code) *code = -i;
      return n + 2;
    }
  }
  return 0;
}

int irm_error_code_of(const char *msg) {
  int code = IRM_ERUNTIME;
  if (msg) kind_prefix_len(msg, &code);
  return code;
}

/* The status to return with the message just stored: IRM_ENOMEM when it was
 * lost, so that status and irm_last_error() ("MemoryError: ...") agree. */
static int lost_or(int code) { return tls_lost && code < 0 ? IRM_ENOMEM : code; }

int irm_verror(int code, const char *fmt, va_list ap) {
  char prefix[32];
  snprintf(prefix, sizeof prefix, "%s: ", irm_error_kind(code));
  state_store(prefix, fmt, ap);
  return lost_or(code);
}

int irm_error(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = irm_verror(code, fmt, ap);
  va_end(ap);
  return rc;
}

int irm_error_nomem_(const char *what) { return irm_error(IRM_ENOMEM, "out of memory %s", what); }

/* Four buffers, so one message may quote four long texts. A buffer also
 * holds a described value (irm_any_describe_): "str '" + IRM_ERROR_QUOTE_MAX
 * bytes + "...'". Thread-local storage is scarce (libirm's goes in the
 * static TLS block, since the error generation is initial-exec), so the
 * buffers are shared and small. */
enum { QUOTE_SLOTS = 4, QUOTE_SLOT_SIZE = IRM_ERROR_QUOTE_MAX + 16 };
static _Thread_local char quote_slots[QUOTE_SLOTS][QUOTE_SLOT_SIZE];
static _Thread_local unsigned quote_next;

char *irm_error_slot_(size_t *size) {
  *size = QUOTE_SLOT_SIZE;
  return quote_slots[quote_next++ % QUOTE_SLOTS];
}

const char *irm_error_quote(const char *s) {
  if (!s) return "(null)";
  size_t n = strnlen(s, IRM_ERROR_QUOTE_MAX + 1);
  if (n <= IRM_ERROR_QUOTE_MAX) return s;
  n = IRM_ERROR_QUOTE_MAX;
  /* Back up over continuation bytes to the start of the cut character. */
  for (size_t k = 0; k < 3 && n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80; k++) n--;
  char *buf = quote_slots[quote_next++ % QUOTE_SLOTS];
  memcpy(buf, s, n);
  memcpy(buf + n, "...", 4);
  return buf;
}

int irm_error_context(int code, const char *fmt, ...) {
  char ctx[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx, sizeof ctx, fmt, ap);
  va_end(ap);
  error_state *s = tls_state;
  if (tls_lost || !s || !s->text) return tls_lost ? lost_or(code) : irm_error(code, "%s", ctx);
  int kind = code;
  size_t plen = kind_prefix_len(s->text, &kind);
  char prefix[32];
  snprintf(prefix, sizeof prefix, "%s: ", plen ? irm_error_kind(kind) : irm_error_kind(code));
  state_store_f(prefix, "%s: %s", ctx, s->text + plen);
  return lost_or(code);
}

int irm_error_context_global_(int code, const char *fn) {
  error_state *s = tls_state;
  if (tls_lost || !s || !s->text) return irm_error_context(code, "%s", fn);
  int kind = code;
  size_t plen = kind_prefix_len(s->text, &kind);
  const char *body = s->text + plen;
  size_t n = 0;
  if (strncmp(body, "irm_", 4) == 0) {
    n = 4;
    while ((body[n] >= 'a' && body[n] <= 'z') || (body[n] >= '0' && body[n] <= '9') || body[n] == '_') n++;
    n = body[n] == ':' && body[n + 1] == ' ' ? n + 2 : 0;
  }
  char prefix[32];
  snprintf(prefix, sizeof prefix, "%s: ", plen ? irm_error_kind(kind) : irm_error_kind(code));
  state_store_f(prefix, "%s: %s", fn, body + n);
  return lost_or(code);
}

void irm_clear_error(void) {
  tls_lost = 0;
  if (tls_state && tls_state->text) {
    irm_free(tls_state->text);
    tls_state->text = NULL;
    tls_state->capacity = 0;
  }
}

const char *irm_last_error(void) {
  if (tls_lost) return oom_message;
  return tls_state && tls_state->text ? tls_state->text : "";
}

void irm_set_last_error(const char *msg) {
  if (!msg) {
    irm_clear_error();
    return;
  }
  if (kind_prefix_len(msg, NULL)) state_store_f("", "%s", msg);
  else state_store_f("RuntimeError: ", "%s", msg);
}
