/* Errors, error context, warnings and the closest-name helper.
 *
 * Every failing irm function returns a negative IRM_E* code and leaves a
 * thread-local message "Kind: text" for irm_last_error(). The functions
 * here let C code (irm itself, plugins, callbacks) set such messages, add
 * context as errors travel outward, and suggest the closest valid name.
 *
 * Thread safety: all functions may be called from any thread. Error state is
 * per thread and freed when the thread exits.
 */
#ifndef IRM_ERROR_H
#define IRM_ERROR_H

#include <stdarg.h>

#include "irm/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define IRM_PRINTF_(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define IRM_PRINTF_(fmt_index, first_arg)
#endif

/* The kind name of a status code ("TypeError", ...); "OK" for 0 and
 * "RuntimeError" for codes irm does not know. Static string. */
IRM_API const char *irm_error_kind(int code);

/* The status code of the kind that starts msg ("KeyError: x" -> IRM_EKEY);
 * IRM_ERUNTIME when msg has no known kind prefix. */
IRM_API int irm_error_code_of(const char *msg);

/* Sets the last error to "<Kind>: <formatted text>" and returns code, so
 * `return irm_error(IRM_EKEY, "no function '%s'", name);` reads naturally.
 * If the message cannot be stored, irm_last_error() reports a MemoryError
 * and the result is IRM_ENOMEM (for a negative code), so a status and its
 * message always agree. */
IRM_API int irm_error(int code, const char *fmt, ...) IRM_PRINTF_(2, 3);
IRM_API int irm_verror(int code, const char *fmt, va_list ap);

/* The most bytes of one user-given text that an error message quotes. */
#define IRM_ERROR_QUOTE_MAX 200

/* The text to quote for s in an error message, so that a message quoting
 * user input stays small whatever the input's size:
 * `irm_error(IRM_EVALUE, "unknown kind '%s'", irm_error_quote(text))`.
 * That is s itself when it has at most IRM_ERROR_QUOTE_MAX bytes, else its
 * first IRM_ERROR_QUOTE_MAX bytes or fewer (never cutting a UTF-8
 * character) followed by "...", which keeps the closing quote in sight;
 * "(null)" for NULL. Reads at most IRM_ERROR_QUOTE_MAX + 1 bytes of s.
 * Borrowed: s, or a thread-local buffer valid until the fourth next call
 * on the calling thread (so one message can quote up to four texts).
 * Never fails. */
IRM_API const char *irm_error_quote(const char *s);

/* Inserts context after the kind of the current message:
 * "KeyError: x" becomes "KeyError: in pass 'FuseOps': x". Returns code so
 * it can wrap a failing status: `return irm_error_context(rc, "in pass '%s'", n);`
 * (IRM_ENOMEM, as irm_error, when the message is lost to out of memory). */
IRM_API int irm_error_context(int code, const char *fmt, ...) IRM_PRINTF_(2, 3);

/* Clears the calling thread's last error. */
IRM_API void irm_clear_error(void);

/* ---- closest names ----------------------------------------------------- */

/* Returns the candidate closest to name by edit distance (Damerau-
 * Levenshtein, case-insensitive), or NULL when none is close enough to be a
 * plausible typo (distance above a third of the longer name, at least 2).
 * Names longer than 64 bytes are no typos and never compared, so the
 * search costs little whatever the size of name.
 * Borrowed: one of the candidates. NULL entries are skipped. */
IRM_API const char *irm_closest_name(const char *name, const char *const *candidates, size_t n);

/* Edit distance between a and b as irm_closest_name measures it; takes time
 * proportional to the product of the lengths. */
IRM_API size_t irm_edit_distance(const char *a, const char *b);

/* ---- warnings ---------------------------------------------------------- */

/* irm warns only about what the user should change. A warning about
 * something deprecated (a legacy target option, a config option registered
 * as deprecated) starts with IRM_DEPRECATION_PREFIX, as an error starts
 * with its kind, so a handler can tell the two apart (Python's package maps
 * them to irm.IrmDeprecationWarning and irm.IrmWarning). The library's own
 * warnings go out at most once per process for each distinct text, so a
 * pipeline run a thousand times warns once. */
#define IRM_DEPRECATION_PREFIX "DeprecationWarning: "

/* Receives each warning as one line without a trailing newline; msg is
 * borrowed for the duration of the call. */
typedef void (*irm_warning_handler)(const char *msg, void *user_data);

/* Installs a warning handler (NULL restores the default, which writes
 * "irm: warning: <msg>\n" to stderr, or "irm: DeprecationWarning: ..." for
 * a deprecation). Returns nothing; safe from any thread. The handler may be
 * called from any thread, never with an irm lock held. */
IRM_API void irm_set_warning_handler(irm_warning_handler handler, void *user_data);

/* What happens to a warning. */
typedef enum irm_warnings_policy {
  IRM_WARNINGS_DEFAULT = 0, /* delivered to the handler */
  IRM_WARNINGS_IGNORE = 1,  /* dropped */
  IRM_WARNINGS_ERROR = 2    /* the operation that warned fails with "RuntimeError: <warning> (...)" */
} irm_warnings_policy;

/* Sets the policy for the whole process (it replaces what the environment
 * variable IRM_WARNINGS said: "default", "ignore" or "error", read at the
 * first warning when no policy was set). Safe from any thread. */
IRM_API void irm_set_warnings_policy(irm_warnings_policy policy);

/* The policy in force (IRM_WARNINGS read if nothing was set; an unknown
 * value there counts as "default" and is reported once as a warning). */
IRM_API irm_warnings_policy irm_warnings_policy_current(void);

/* Emits a warning through the handler, every time it is called. Returns
 * IRM_OK (also when the policy drops it), or IRM_ENOMEM when a long text
 * could not be allocated: then nothing is delivered (never a cut text) and,
 * so that it can be called while reporting another error, the thread's
 * error message is left alone: a caller for whom the warning matters
 * reports MemoryError itself. Under IRM_WARNINGS_ERROR it delivers nothing,
 * sets "RuntimeError: <msg> (IRM_WARNINGS=error makes warnings errors)" and
 * returns IRM_ERUNTIME: callers that can fail pass that on. Safe from any
 * thread. */
IRM_API int irm_warn(const char *fmt, ...) IRM_PRINTF_(1, 2);

/* Emits a warning only the first time this process sees key (for example
 * "deprecated:-link-params"). Returns 1 if it was emitted, 0 if it had been
 * emitted before (or the policy dropped it), IRM_ENOMEM as irm_warn does
 * (the key is then not remembered), IRM_ERUNTIME under IRM_WARNINGS_ERROR
 * (every time: the key is not remembered). A key that cannot be remembered
 * (out of memory) still warns, and may warn again later. */
IRM_API int irm_warn_once(const char *key, const char *fmt, ...) IRM_PRINTF_(2, 3);

/* Forgets every key of irm_warn_once, so each warns again. For tests. */
IRM_API void irm_warn_once_reset(void);

#ifdef __cplusplus
}
#endif

#endif
