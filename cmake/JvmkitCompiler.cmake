# Compiler settings shared by every target: warnings are errors, sanitizers when asked for.

set(JVMKIT_WARNINGS -Wall -Wextra -Werror -Wno-missing-field-initializers)
# GCC 12 at -O3 (Release) reports -Wrestrict inside libstdc++'s std::string operator+ for ordinary
# code (GCC bug 105329, a false positive fixed in GCC 13); as an error it breaks the Release build.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  list(APPEND JVMKIT_WARNINGS -Wno-restrict)
endif()

# Applies the project's warning flags (and sanitizer flags in a sanitizer build) to TARGET.
function(jvmkit_target_defaults target)
  target_compile_options(${target} PRIVATE ${JVMKIT_WARNINGS})
  if(JVMKIT_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=${JVMKIT_SANITIZE} -fno-omit-frame-pointer
                                             -fno-sanitize-recover=all)
    target_link_options(${target} PRIVATE -fsanitize=${JVMKIT_SANITIZE})
  endif()
endfunction()

# A shared library that goes into a JVM must not drag unresolved C++ runtime symbols across
# agents, and must fail at link time (not at System.loadLibrary time) on a missing symbol. Every
# symbol is bound at load (-z now, as HotSpot's own libraries are): code that runs in a signal
# handler then never enters the dynamic linker's lazy binding on its first call.
function(jvmkit_shared_library_defaults target)
  jvmkit_target_defaults(${target})
  target_link_options(${target} PRIVATE -Wl,--no-undefined -Wl,-z,defs -Wl,-z,now -Wl,-z,relro -static-libstdc++
                      -static-libgcc)
endfunction()
