# Writes OUT, a C header defining NAME as the lines of IN (a static array
# of strings, each a line with its newline, NULL-terminated): irm writes the
# text out again to compile it for another target (cli_qemu.c). One string
# per line keeps each literal under the length ISO C guarantees.
file(READ "${IN}" text)
string(REPLACE "\\" "\\\\" text "${text}")
string(REPLACE "\"" "\\\"" text "${text}")
string(REPLACE "\n" "\\n\",\n  \"" text "${text}")
file(WRITE "${OUT}.tmp" "/* Generated from ${IN} by tools/embed_text.cmake. */\nstatic const char *const ${NAME}[] = {\n  \"${text}\", NULL};\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
