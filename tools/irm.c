/* The irm command-line program. Until the build pipeline exists, its main
 * job describes the built-in default configuration — a target, an
 * executor, a runtime, and a legacy target string converted the new way —
 * by calling global functions by name, as another language would. */
#include <stdio.h>
#include <string.h>

#include "irm/irm.h"

#define DEFAULT_TARGET "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72 -mattr=+neon"
#define DEFAULT_LEGACY "c -executor=aot -runtime=c -system-lib -unpacked-api=1 -interface-api=c"

static int fail(const char *what) {
  fprintf(stderr, "irm: %s: %s\n", what, irm_last_error());
  return 1;
}

static void usage(FILE *to) {
  fprintf(to,
          "usage: irm [--list | --version | --help]\n"
          "  (no option)  describe the built-in default configuration\n"
          "  --list       print the global function names, one per line\n");
}

static int list_globals(void) {
  irm_object *names = NULL;
  if (irm_func_list_globals(&names)) return fail("listing global functions");
  for (size_t i = 0; i < irm_array_size(names); i++)
    printf("%s\n", irm_string_data(irm_array_at(names, i)->v_obj));
  irm_object_release(names);
  return 0;
}

/* Calls name(args) and prints "label: <ffi.Repr or str of the result>". */
static int show(const char *label, const char *name, const irm_any *args, int32_t nargs) {
  irm_any result = irm_any_none(), text = irm_any_none();
  int rc = irm_func_call_global(name, args, nargs, &result);
  if (rc == 0 && irm_string_data(result.type_code == IRM_OBJECT ? result.v_obj : NULL))
    rc = irm_any_copy(&result, &text);
  else if (rc == 0)
    rc = irm_func_call_global("ffi.Repr", &result, 1, &text);
  if (rc == 0) printf("%-9s %s\n", label, irm_string_data(text.v_obj));
  irm_any_release(&result);
  irm_any_release(&text);
  return rc ? fail(name) : 0;
}

static int describe_default(void) {
  irm_object *names = NULL;
  if (irm_func_list_globals(&names)) return fail("listing global functions");
  printf("irm %s: %zu global functions (irm --list names them)\n", irm_version(), irm_array_size(names));
  irm_object_release(names);

  irm_any target = irm_any_none();
  irm_any text = irm_any_str(DEFAULT_TARGET);
  if (irm_func_call_global("target.Target", &text, 1, &target)) return fail("target.Target");
  int rc = show("target", "target.AsString", &target, 1);
  irm_any_release(&target);
  irm_any aot = irm_any_str("aot"), crt = irm_any_str("crt"), legacy = irm_any_str(DEFAULT_LEGACY);
  if (!rc) rc = show("executor", "executor.Create", &aot, 1);
  if (!rc) rc = show("runtime", "runtime.Create", &crt, 1);
  if (!rc) {
    printf("legacy    '%s' converts to:\n", DEFAULT_LEGACY);
    irm_set_warning_handler(NULL, NULL); /* deprecation warnings go to stderr */
    rc = show("", "target.ConvertLegacy", &legacy, 1);
  }
  return rc;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--version") == 0) {
    printf("irm %s\n", irm_version());
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "--list") == 0) return list_globals();
  if (argc > 1 && strcmp(argv[1], "--help") == 0) {
    usage(stdout);
    return 0;
  }
  if (argc > 1) {
    fprintf(stderr, "irm: unknown option '%s'\n", argv[1]);
    usage(stderr);
    return 2;
  }
  return describe_default();
}
