// Reads HotSpot's boolean command-line flags (-XX:+Name) where the running JVM keeps them: each
// product flag is a global variable of libjvm.so named after the flag, found in its ELF symbol
// table (hotspot/elf_symbols.hpp).
#pragma once

#include <optional>

namespace jvmkit::hotspot {

// The current value of the boolean flag NAME ("DebugNonSafepoints"), or nothing when libjvm.so has
// no symbol table entry for it. Not async-signal-safe (reads the library's file).
std::optional<bool> bool_flag(const char* name);

}  // namespace jvmkit::hotspot
