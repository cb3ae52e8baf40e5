// Native frames in a profile (cstack=native): how a C/C++, JVM or kernel frame the stack-walk
// library delivers (jvmkit/stack_walk_native.h) becomes a frame of the profile, and how a marker
// (a native part that ends short) does.
//
// Names follow async-profiler, so that profiles read alike:
//   C/C++ and JVM code  the demangled symbol without its parameter lists ("JavaCalls::call_helper",
//                       "deflate"), so that a function's overloads merge; its file: the object's
//                       file name ("libjvm.so")
//   no symbol           "libz.so.1+0x4a26": the object's file name and the PC's offset in it
//   kernel              the symbol, or "[kernel]+0xffffffff81a0b3c4" (the PC)
//   marker              "[no unwind info]", one name per reason (kMarkerNames), a synthetic frame
// This file knows nothing of JVMTI: the agent fills NativeFrameInfo from the library's frame.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/flat_map.hpp"
#include "profiler/recording/profile.hpp"

namespace jvmkit::prof {

// The names of the marker frames, indexed by the library's jvmkitNativeEnd (the agent checks at
// compile time that the two lists have the same length).
constexpr size_t kMarkerReasons = 10;
constexpr std::array<const char*, kMarkerReasons> kMarkerNames = {
    "[unprepared library]",  // JVMKIT_NATIVE_END_UNPREPARED_LIBRARY
    "[unknown code]",        // JVMKIT_NATIVE_END_UNKNOWN_CODE
    "[no unwind info]",      // JVMKIT_NATIVE_END_NO_UNWIND_INFO
    "[unsupported rule]",    // JVMKIT_NATIVE_END_UNSUPPORTED_RULE
    "[bad frame]",           // JVMKIT_NATIVE_END_BAD_FRAME
    "[native depth]",        // JVMKIT_NATIVE_END_DEPTH
    "[join mismatch]",       // JVMKIT_NATIVE_END_JOIN_MISMATCH
    "[no stack bounds]",     // JVMKIT_NATIVE_END_NO_STACK_BOUNDS
    "[java unwalkable]",     // JVMKIT_NATIVE_END_JAVA_UNWALKABLE
    "[not captured]",        // JVMKIT_NATIVE_END_NOT_CAPTURED
};

// One frame of the library's native part, as the profile needs it.
struct NativeFrameInfo {
  FrameType type = FrameType::kNativeCode;  // kNativeCode, kJvm, kKernel; kSynthetic for a marker
  const char* symbol = nullptr;             // demangled, with its parameters; null when none
  const char* library = nullptr;            // the object's path, "[vdso]", "[code cache]", ...
  int64_t library_offset = 0;               // the function's start - the object's load bias (else the pc's)
  int64_t pc = 0;
  size_t marker = 0;  // a marker's reason: an index into kMarkerNames
};

// The frame's name in the profile (see the top of this file). Allocates.
std::string native_frame_name(const NativeFrameInfo& frame);

// The frame's "file": the object's file name ("libz.so.1", "[vdso]"), "" for none.
std::string native_frame_file(const NativeFrameInfo& frame);

// The methods of native frames in one Profile, made once per distinct frame and looked up by the
// library's string pointers, which stay valid (and so unique) for the whole stack-walk session.
// reset() with every new profile: method indices belong to it. Not thread-safe (the delivery
// thread only, under the recording's lock).
class NativeMethods {
 public:
  explicit NativeMethods(Profile* profile) : profile_(profile) {}

  void reset(Profile* profile);

  // The method of FRAME in the profile: a native frame's (a marker's: its synthetic method).
  // A method the profile refuses (at its limits) is its "[overflow]" method, and not cached.
  uint32_t method(const NativeFrameInfo& frame);

 private:
  struct Key {
    const char* symbol = nullptr;
    const char* library = nullptr;
    int64_t offset = 0;  // without a symbol, the name holds it
    FrameType type = FrameType::kJit;
    bool operator==(const Key& o) const {
      return symbol == o.symbol && library == o.library && offset == o.offset && type == o.type;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };

  uint32_t add(std::string name, std::string file, std::string_view object);

  Profile* profile_;
  FlatMap<Key, uint32_t, KeyHash> by_pointer_;
  // Two symbols of the same text (aliases, the same function in two objects with one name) share
  // a method when their files are the same too: keyed by name and object path.
  std::unordered_map<std::string, uint32_t> by_name_;
  std::array<uint32_t, kMarkerReasons> markers_{};
  std::array<bool, kMarkerReasons> have_marker_{};
};

}  // namespace jvmkit::prof
