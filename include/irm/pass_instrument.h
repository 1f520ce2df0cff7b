/* Pass instruments (docs/architecture.md, "Passes"): hooks around every
 * pass a PassContext runs, and the built-in ones.
 *
 * Instruments follow TVM exactly: entering a context calls every
 * instrument's enter in order, then pushes (if one fails, the ones entered
 * get exit, the context's instruments are cleared, it is not pushed, and
 * the error is returned). Before each pass: a pass in required_pass runs
 * without asking should_run; otherwise every instrument's should_run is
 * asked (all of them, even after a false) and the pass runs only if all say
 * true. If it runs: every before hook in order, the pass, every after hook
 * in order. Exiting pops, then calls every exit in order (if one fails the
 * instruments are cleared, the remaining exits are skipped, and the error
 * is returned). A failure in should_run, before or after stops the run with
 * that error.
 *
 * Ownership, errors and threads as pass.h says: out-parameters are NEW
 * references, arguments borrowed; every function may be called from any
 * thread.
 */
#ifndef IRM_PASS_INSTRUMENT_H
#define IRM_PASS_INSTRUMENT_H

#include "irm/object.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef irm_object irm_instrument;

/* An instrument from function objects (each may be NULL; borrowed,
 * retained): enter() and exit() take no arguments; should_run(mod, info),
 * before(mod, info) and after(mod, info) get the module and the PassInfo
 * Map; should_run returns a bool (any other result is a TypeError). A
 * failing hook's error gains "instrument '<name>' <hook>: " as context.
 * *out NEW. Errors: ValueError (NULL or empty name), TypeError (a hook that
 * is not an ffi.Function), MemoryError. irm_instrument_name: borrowed from
 * inst; NULL when inst is not an instrument. */
IRM_API int irm_instrument_new(const char *name, irm_object *enter, irm_object *exit, irm_object *should_run,
                               irm_object *before, irm_object *after, irm_instrument **out);
IRM_API const char *irm_instrument_name(const irm_instrument *inst);

/* Built-in instruments. A timing instrument; *out NEW. Errors:
 * MemoryError. */
IRM_API int irm_timing_instrument_new(irm_instrument **out);
/* The timing tree: nested passes indented (two spaces a level), one line
 * each, "name: 4.200ms [self 0.006ms] (100.00% of total, 100.00% of
 * parent)"; a pass that failed (its body, ir.Verify or the invariant
 * check) is closed when it fails and its line ends in " failed", so the
 * passes run after it do not nest under it; a pass still running (or
 * whose after hooks failed) reads "name: did not finish";
 * "" when nothing was recorded. Records are cleared when the context is
 * exited. timing is borrowed. *out NEW. Errors: ValueError (NULL timing),
 * TypeError (timing is not a timing instrument), MemoryError. */
IRM_API int irm_timing_render(const irm_instrument *timing, irm_object **out);
/* Prints the module (through ir.Print when it exists, else ffi.Repr)
 * before and/or after the named passes (an Array of Strings; NULL: all
 * passes) to stdout, each under a line "; IR before pass 'Name'" / "; IR
 * after pass 'Name'". Tensors with more than elide_larger_than elements
 * print elided, `const(float32, [32, 64], <elided 2048 elements>)`, by
 * calling ir.Print(mod, {"elide_larger_than": N}); 0 prints every tensor in
 * full (ir.Print(mod)). irm_printing_instrument_new elides above
 * IRM_PRINTING_ELIDE_DEFAULT (16, the limit of ffi.Repr of a module).
 * Without ir.Print the text is ffi.Repr's, which always elides above 16.
 * transform.PassPrintingInstrument defaults: before false, after true,
 * elide_larger_than 16. pass_names is borrowed (retained). *out NEW.
 * Errors: TypeError (pass_names is not an Array of Strings), ValueError
 * (negative elide_larger_than), MemoryError. */
#define IRM_PRINTING_ELIDE_DEFAULT 16
IRM_API int irm_printing_instrument_new(const irm_object *pass_names, int before, int after, irm_instrument **out);
IRM_API int irm_printing_instrument_new_ex(const irm_object *pass_names, int before, int after,
                                           int64_t elide_larger_than, irm_instrument **out);
/* Runs only the first `limit` optional passes (those not required) and
 * reports each skipped one through the warning handler ("bisect: not
 * running pass #N 'Name' (limit L)"), in the spirit of LLVM's
 * -opt-bisect-limit. Every pass asked about counts, a Sequential too; the
 * count restarts each time a context holding the instrument is entered; a
 * negative limit runs everything. *out NEW. Errors: MemoryError. */
IRM_API int irm_bisect_instrument_new(int64_t limit, irm_instrument **out);

#ifdef __cplusplus
}
#endif

#endif
