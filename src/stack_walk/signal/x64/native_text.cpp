// SIGNAL CONTEXT readers of libjvm's and libc's code segments and of signal frames (native_text.hpp).
// in_native_text, is_sigreturn and interrupted_context_below may call atomics, memcmp on code
// bytes and loads within the bounds given; learn_native_text runs off the signal path.
#include "stack_walk/signal/x64/native_text.hpp"

#include <ucontext.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <string>

#include "base/debug_check.hpp"
#include "native/loaded_objects.hpp"

namespace jvmkit::walk {

namespace {

// Executable segments of libjvm and libc, learnt at Enable (they are never unloaded): return
// addresses in native frames are checked against them before their bytes are read.
struct NativeText {
  std::atomic<int> count{0};
  uintptr_t start[8] = {};
  uintptr_t end[8] = {};
};
constinit NativeText g_native_text;

bool is_jvm_or_libc(const native::LoadedObject& object) {
  const std::string name = native::base_name(object.path);
  return name == "libjvm.so" || name.starts_with("libc.so");
}

}  // namespace

void learn_native_text() {
  if (g_native_text.count.load(std::memory_order_acquire) != 0) return;  // learnt once per process
  for (const native::LoadedObject& object : native::loaded_objects()) {
    if (!is_jvm_or_libc(object)) continue;
    for (const native::AddressRange& range : object.text) {
      const int n = g_native_text.count.load(std::memory_order_relaxed);
      if (n >= 8) return;
      g_native_text.start[n] = range.start;
      g_native_text.end[n] = range.end;
      g_native_text.count.store(n + 1, std::memory_order_release);
    }
  }
}

JVMKIT_SIGNAL_SAFE bool in_native_text(uintptr_t pc, CodeRange* out) noexcept {
  const int n = g_native_text.count.load(std::memory_order_acquire);
  JVMKIT_DCHECK(n >= 0 && n <= 8);  // collect_text fills at most the 8 entries
  for (int i = 0; i < n; i++) {
    if (pc >= g_native_text.start[i] && pc < g_native_text.end[i]) {
      *out = CodeRange{};
      out->start = g_native_text.start[i];
      out->end = g_native_text.end[i];
      return true;
    }
  }
  return false;
}

JVMKIT_SIGNAL_SAFE bool is_sigreturn(const CodeRange& text, uintptr_t ret) noexcept {
  static constexpr uint8_t kTrampoline[9] = {0x48, 0xC7, 0xC0, 0x0F, 0x00, 0x00, 0x00, 0x0F, 0x05};
  return ret + sizeof(kTrampoline) <= text.end &&
         std::memcmp(reinterpret_cast<const void*>(ret), kTrampoline, sizeof(kTrampoline)) == 0;
}

JVMKIT_SIGNAL_SAFE bool interrupted_context_below(const StackBounds& b, const Regs& cur, const Regs& caller,
                                                  Regs* out) noexcept {
  const uintptr_t inner = caller.sp;  // == return slot + 8
  const uintptr_t gregs = inner + offsetof(ucontext_t, uc_mcontext.gregs);
  if (!b.holds(gregs) || !b.holds(gregs + sizeof(greg_t) * NGREG - 8)) return false;
  *out = regs_of(reinterpret_cast<const ucontext_t*>(inner));
  return out->sp > cur.sp && b.holds(out->sp);
}

}  // namespace jvmkit::walk
