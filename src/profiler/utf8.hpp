// Names as they go into a profile: standard UTF-8, whatever they came as.
//
// JVMTI hands out names (GetMethodName, GetClassSignature, GetSourceFileName, GetThreadInfo) in
// the JVM's "modified UTF-8": U+0000 as the two bytes C0 80, and characters outside the Basic
// Multilingual Plane as two 3-byte encoded UTF-16 surrogates (6 bytes) instead of one 4-byte
// sequence. Viewers show such names as garbage and strict decoders reject them (pprof readers built
// on protobuf-go refuse the whole file), so names are converted once, where they enter the profile.
#pragma once

#include <string>
#include <string_view>

namespace jvmkit::prof {

// Standard UTF-8 for a modified UTF-8 string: surrogate pairs joined into 4-byte sequences, C0 80
// into U+0000. Anything else that is not well-formed (a lone surrogate, a truncated or overlong
// sequence, a stray byte) becomes U+FFFD; valid 4-byte sequences are kept as they are.
std::string utf8_from_modified(std::string_view in);

// IN with every byte that is not part of well-formed UTF-8 replaced by U+FFFD (for names from
// elsewhere, e.g. an OS thread name the kernel cut at 15 bytes, maybe inside a character).
std::string valid_utf8(std::string_view in);

}  // namespace jvmkit::prof
