/* The irm command-line program. Until the build pipeline exists, its main
 * job lists the registered global functions and calls one by name, which
 * exercises the registry end to end. */
#include <stdio.h>
#include <string.h>

#include "irm/irm.h"

static int fail(const char *what) {
  fprintf(stderr, "irm: %s: %s\n", what, irm_last_error());
  return 1;
}

static void usage(FILE *to) {
  fprintf(to,
          "usage: irm [--list | --version | --help]\n"
          "  (no option)  list the global functions and call ffi.Array/ffi.ArraySize by name\n"
          "  --list       print the global function names, one per line\n");
}

static int list_globals(int with_header) {
  irm_object *names = NULL;
  if (irm_func_list_globals(&names)) return fail("listing global functions");
  size_t n = irm_array_size(names);
  if (with_header) printf("%zu global functions:\n", n);
  for (size_t i = 0; i < n; i++)
    printf("%s%s\n", with_header ? "  " : "", irm_string_data(irm_array_at(names, i)->v_obj));
  irm_object_release(names);
  return 0;
}

/* Calls ffi.Array(1, "two", 3.5) and ffi.ArraySize on the result, by name. */
static int demo_call(void) {
  irm_any items[] = {irm_any_int(1), irm_any_str("two"), irm_any_float(3.5)};
  irm_any array = irm_any_none(), size = irm_any_none();
  if (irm_func_call_global("ffi.Array", items, 3, &array)) return fail("calling ffi.Array");
  int rc = irm_func_call_global("ffi.ArraySize", &array, 1, &size);
  if (rc == 0) printf("ffi.ArraySize(ffi.Array(1, \"two\", 3.5)) = %lld\n", (long long)size.v_int);
  irm_any_release(&array);
  irm_any_release(&size);
  return rc ? fail("calling ffi.ArraySize") : 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--version") == 0) {
    printf("irm %s\n", irm_version());
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "--list") == 0) return list_globals(0);
  if (argc > 1 && strcmp(argv[1], "--help") == 0) {
    usage(stdout);
    return 0;
  }
  if (argc > 1) {
    fprintf(stderr, "irm: unknown option '%s'\n", argv[1]);
    usage(stderr);
    return 2;
  }
  printf("irm %s\n", irm_version());
  if (list_globals(1)) return 1;
  return demo_call();
}
