/* The pass registry (docs/architecture.md, "Passes"): passes by name,
 * made from typed options.
 *
 * Needs irm_pass, so it includes pass.h (which includes it back, after
 * declaring everything it needs).
 *
 * Ownership, errors and threads as pass.h says: out-parameters are NEW
 * references, arguments borrowed; every function may be called from any
 * thread.
 */
#ifndef IRM_PASS_REGISTRY_H
#define IRM_PASS_REGISTRY_H

#include "irm/kind.h"
#include "irm/pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A registered pass is a kind of category "pass": its options are the
 * kind's option schema (kind.h), so pipelines and transform.GetPass can
 * check them; the factory makes the pass from validated options. */

/* Makes a pass from validated options (a Map with defaults filled). The
 * factory hands options on to the pass it makes (irm_module_pass_new's
 * options argument), so that irm_pass_options and printed pipelines show
 * them. */
typedef int (*irm_pass_factory_fn)(const irm_object *options, irm_pass **out);

/* Registers name with a C factory; *kind (may be NULL) is the kind handle
 * for adding options with irm_kind_add_option (borrowed, valid for the
 * process). Registering an existing name returns the existing entry unless
 * the factory differs. Journaled. Errors: ValueError (NULL or empty name,
 * NULL factory), KeyError (name is registered with another factory),
 * MemoryError. */
IRM_API int irm_pass_register(const char *name, irm_pass_factory_fn factory, irm_kind **kind);

/* A factory that carries a resource: one C function can make several
 * passes, each registered with its own resource (a table entry, say). */
typedef int (*irm_pass_factory_ex_fn)(const irm_object *options, void *resource, irm_pass **out);

/* Registers name with factory and resource, then calls setup(kind) (may
 * be NULL) to add options, all or nothing: when setup fails, what this
 * call registered is taken back. resource is borrowed: it must stay valid
 * while the pass can be made (static data, or for the process), and every
 * call of the factory gets it. *kind (may be NULL) as irm_pass_register.
 * Registering an existing name with the same factory and resource returns
 * the existing entry and runs setup again (write it idempotent, as for
 * IRM_REGISTER_PASS). Journaled (a plugin's init may call it; its
 * constructors use IRM_REGISTER_PASS). Errors: ValueError (NULL or empty
 * name, NULL factory), KeyError (name is registered with another factory,
 * or the same factory with another resource), setup's own (with "setting
 * up pass '<name>'" as context), MemoryError. irm_pass_register is the
 * same without a resource or setup. */
IRM_API int irm_pass_register_ex(const char *name, irm_pass_factory_ex_fn factory, void *resource,
                                 irm_kind_setup_fn setup, irm_kind **kind);

/* The same with a function object factory: func(options Map) -> Pass
 * (borrowed; retained). Errors: TypeError (factory is not an
 * ffi.Function), ValueError (NULL or empty name), KeyError (name is
 * registered with another factory), MemoryError. */
IRM_API int irm_pass_register_func(const char *name, irm_object *factory, irm_kind **kind);

/* Makes the registered pass name with options (a Map or NULL; borrowed),
 * validated against its schema. *out NEW. Errors: ValueError (NULL name,
 * an unknown pass, with the closest pass name; a required option missing),
 * AttributeError (an unknown option, with the closest one), TypeError
 * (options is not a Map, an option value of the wrong type, the factory
 * gave no transform.Pass), RuntimeError (name is registered without a
 * factory), the factory's own errors (with "making pass '<name>'" as
 * context), MemoryError. */
IRM_API int irm_pass_get(const char *name, const irm_object *options, irm_pass **out);

/* The registered pass names, sorted, as a NEW Array. Errors:
 * MemoryError. */
IRM_API int irm_pass_list(irm_object **out);

/* Static registration for application code: registers name with factory
 * at start-up and calls setup(kind) (may be NULL) to add options. Inside a
 * plugin's constructors the registration is queued and runs when the
 * plugin is initialised. Errors: as irm_pass_register, and setup's own;
 * each is also reported through the warning handler (a constructor cannot
 * return it). */
IRM_API int irm_register_static_pass(const char *name, irm_pass_factory_fn factory, irm_kind_setup_fn setup);
#if defined(__GNUC__) || defined(__clang__) /* constructors: GCC or Clang only */
#define IRM_REGISTER_PASS(name, factory, setup)                                                \
  __attribute__((constructor)) static void IRM_KIND_CAT_(irm_register_pass_, __LINE__)(void) { \
    (void)irm_register_static_pass((name), (factory), (setup));                                \
  }                                                                                            \
  typedef int IRM_KIND_CAT_(irm_register_pass_semicolon_, __LINE__)
#endif

#ifdef __cplusplus
}
#endif

#endif
