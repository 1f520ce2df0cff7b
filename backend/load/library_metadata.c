/* The one description every generated library holds (load_internal.h):
 * tvmgen_<mod_name>_metadata, which runtime.Load finds and dispatches on. */
#include "load_internal.h"

#include "codegen/c_text.h"

void irm_library_metadata_emit_(irm_text_buf *b, const char *mod_name, const char *json) {
  irm_text_buf_printf_(b,
                       "/* The loader's description of this library (JSON). */\n"
                       "const char *" IRM_LIBRARY_PREFIX "%s" IRM_LIBRARY_METADATA "(void);\n"
                       "const char *" IRM_LIBRARY_PREFIX "%s" IRM_LIBRARY_METADATA "(void) {\n  return ",
                       mod_name, mod_name);
  irm_c_string_(b, json);
  irm_text_buf_puts_(b, ";\n}\n");
}
