# Flags shared by every irm target: irm_target_flags(<target>).
set(irm_warning_flags -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes
    -Wmissing-prototypes -Wcast-function-type)
if(IRM_WERROR)
  list(APPEND irm_warning_flags -Werror)
endif()

set(irm_sanitize_flags)
if(IRM_SANITIZE)
  set(irm_sanitize_flags -fsanitize=address,undefined -fno-sanitize-recover=all
      -fno-omit-frame-pointer)
endif()
# The fuzz build (fuzz/, clang only): libirm instrumented for libFuzzer's
# coverage, the harnesses add -fsanitize=fuzzer when they link.
if(IRM_FUZZ)
  list(APPEND irm_sanitize_flags -fsanitize=address,undefined,fuzzer-no-link
       -fno-sanitize-recover=all -fno-omit-frame-pointer)
endif()

# ThreadSanitizer cannot be combined with AddressSanitizer: use its own build
# directory (clang or gcc).
option(IRM_SANITIZE_THREAD "Build with ThreadSanitizer" OFF)
if(IRM_SANITIZE_THREAD)
  if(IRM_SANITIZE)
    message(FATAL_ERROR "IRM_SANITIZE_THREAD and IRM_SANITIZE cannot both be ON")
  endif()
  set(irm_sanitize_flags -fsanitize=thread -fno-omit-frame-pointer)
endif()

function(irm_target_flags target)
  target_compile_options(${target} PRIVATE ${irm_warning_flags} ${irm_sanitize_flags})
  target_link_options(${target} PRIVATE ${irm_sanitize_flags})
endfunction()
