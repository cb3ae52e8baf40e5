// A fake code cache for the x64 walk's unit tests: a buffer of "code" bytes (nops) and the ranges
// a test lays out in it, 128 bytes each, with the call instructions it writes.
#pragma once

#include <jni.h>

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "stack_walk/code_map.hpp"

namespace jvmkit::walk::testing {

inline jmethodID M(uintptr_t v) { return reinterpret_cast<jmethodID>(v); }

class FakeCode {
 public:
  explicit FakeCode(size_t bytes) : bytes_(bytes, 0x90) {}

  uintptr_t at(size_t offset) const { return reinterpret_cast<uintptr_t>(bytes_.data()) + offset; }
  CodeSnapshot snapshot() const { return CodeSnapshot(ranges_); }
  const CodeRange& range(size_t i) const { return ranges_[i]; }
  CodeRange& range(size_t i) { return ranges_[i]; }
  CodeRange& last() { return ranges_.back(); }

  // Adds a range at OFFSET; an nmethod of METHOD whose prologue makes a frame of FRAME bytes
  // (C1: rbp pushed first), or code of another KIND.
  CodeRange& add_nmethod(size_t offset, jmethodID method, uint32_t frame, bool pushes_rbp) {
    CodeRange& r = add(offset, CodeKind::kNMethod);
    r.method = method;
    r.frame_size = frame;
    r.pushes_rbp = pushes_rbp;
    r.prologue_end = 8;
    return r;
  }
  CodeRange& add(size_t offset, CodeKind kind) {
    CodeRange r{};
    r.start = at(offset);
    r.end = r.start + 128;
    r.kind = kind;
    r.enclosing = -1;
    ranges_.push_back(r);
    return ranges_.back();
  }
  // A "call rel32" whose return address is OFFSET.
  void call_returning_to(size_t offset) { bytes_[offset - 5] = 0xE8; }
  // A "call rel32" to TARGET (an offset) whose return address is OFFSET.
  void call_into(size_t offset, size_t target) {
    call_returning_to(offset);
    const auto rel = static_cast<int32_t>(static_cast<int64_t>(target) - static_cast<int64_t>(offset));
    for (int i = 0; i < 4; i++) bytes_[offset - 4 + i] = static_cast<uint8_t>(static_cast<uint32_t>(rel) >> (8 * i));
  }
  // Machine code BYTES at OFFSET.
  void put(size_t offset, std::initializer_list<uint8_t> bytes) {
    for (uint8_t b : bytes) bytes_[offset++] = b;
  }

 private:
  std::vector<uint8_t> bytes_;
  std::vector<CodeRange> ranges_;
};

// A stack over code laid out as nmethod A (C2 frame of 0x20 bytes) at 0, nmethod B (C1 frame: rbp
// pushed, then 0x10 bytes; a call returning to B + 40) at 128, the interpreter at 256 and a stub at
// 384: A's frame at the lowest address, called from B at its call, B from an interpreter frame
// (rbp words[20]), which the stub entered (with rbp words[40]).
struct FakeStack {
  uintptr_t words[64] = {};
  uintptr_t addr(int i) const { return reinterpret_cast<uintptr_t>(&words[i]); }
  uintptr_t top() const { return addr(64); }

  explicit FakeStack(const FakeCode& code) {
    words[4] = code.at(128 + 40);   // A's return address (sp + 0x20): into B, after its call
    words[7] = addr(20);            // B's saved rbp (C1: just below its return address)
    words[8] = code.at(256 + 10);   // B's return address (sp + 0x10 + 8): into the interpreter
    words[19] = addr(22);           // the interpreter frame's sender SP (rbp - 8)
    words[20] = addr(40);           // its caller's rbp
    words[21] = code.at(384 + 20);  // its return address (rbp + 8): into the stub
  }
};

}  // namespace jvmkit::walk::testing
