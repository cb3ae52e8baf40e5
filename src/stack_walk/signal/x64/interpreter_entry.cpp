// SIGNAL CONTEXT: known_interpreter_entries, entry_regs_of and interpreter_entry_caller may call
// atomics and load stack words inside the bounds they are given; nothing else. The scan and
// learn_interpreter_entries run off the signal path (interpreter_entry.hpp).
#include "stack_walk/signal/x64/interpreter_entry.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "base/debug_check.hpp"
#include "hotspot/interpreter_codelets.hpp"
#include "stack_walk/signal/x64/instructions.hpp"

namespace jvmkit::walk {

namespace {

// "pop rax; lea r14, [rsp + rcx*8 - 8]": the return address leaves the stack and the locals
// pointer is set (HotSpot's rlocals is r14, rcx the size of the parameters).
constexpr uint8_t kPopReturnAddress[] = {0x58, 0x4C, 0x8D, 0x74, 0xCC, 0xF8};
// The native entry's two slots for the native call, "push 0" twice, right after kPopReturnAddress.
constexpr uint8_t kNativeCallSlots[] = {0x68, 0x00, 0x00, 0x00, 0x00, 0x68, 0x00, 0x00, 0x00, 0x00};
// The stack check's exit to the StackOverflowError thrower: "pop rax; mov rsp, r13; push rax".
constexpr uint8_t kOverflowExit[] = {0x58, 0x49, 0x8B, 0xE5, 0x50};
// How far each part of an entry reaches (measured on JDK 17 and 25: 0x3f, 0x17 and 0x53 bytes;
// with ZGC the fixed frame takes 0x112-0x11a: the load barrier of its mirror has its slow path inline).
constexpr size_t kMaxStackCheck = 160;  // begin .. pop
constexpr size_t kMaxLocalsCode = 64;   // pop .. push_return
constexpr size_t kMaxFixedFrame = 768;  // frame_made .. fixed_end

const uint8_t* find_bytes(const uint8_t* from, const uint8_t* to, const uint8_t* pattern, size_t n) {
  const uint8_t* found = std::search(from, to, pattern, pattern + n);
  return found == to ? nullptr : found;
}

// "push rax; push rbp; mov rbp, rsp" at P (either encoding of the mov), P + 5 <= END.
bool is_push_return_and_frame(const uint8_t* p, const uint8_t* end) {
  return end - p >= 5 && p[0] == 0x50 && p[1] == 0x55 && is_mov_rbp_rsp(p + 2);
}

// "mov byte [r15 + disp32], 1" at P: 41 C6 87 disp32 01.
bool is_thread_flag_set(const uint8_t* p, const uint8_t* end) {
  return end - p >= 8 && p[0] == 0x41 && p[1] == 0xC6 && p[2] == 0x87 && p[7] == 0x01;
}

constinit std::atomic<const InterpreterEntries*> g_entries{nullptr};

}  // namespace

std::optional<InterpreterEntry> scan_interpreter_entry(const uint8_t* code, size_t size, uintptr_t address) {
  const uint8_t* end = code + size;
  const auto at = [&](const uint8_t* p) { return address + static_cast<uintptr_t>(p - code); };
  const uint8_t* pop =
      find_bytes(code, std::min(end, code + kMaxStackCheck), kPopReturnAddress, sizeof(kPopReturnAddress));
  if (pop == nullptr) return std::nullopt;
  InterpreterEntry e{};
  e.begin = address;
  e.pop = at(pop);
  // The last overflow exit before the pop, if the entry checks the stack there.
  for (const uint8_t* p = code; (p = find_bytes(p, pop, kOverflowExit, sizeof(kOverflowExit))) != nullptr; p++) {
    e.overflow_begin = at(p);
  }
  const uint8_t* locals_end = std::min(end, pop + sizeof(kPopReturnAddress) + kMaxLocalsCode);
  const uint8_t* push = pop + sizeof(kPopReturnAddress);
  while (push < locals_end && !is_push_return_and_frame(push, end)) push++;
  if (push >= locals_end) return std::nullopt;
  e.push_return = at(push);
  const uint8_t* locals = pop + sizeof(kPopReturnAddress);
  e.native_call = push - locals == sizeof(kNativeCallSlots) &&
                  std::equal(locals, push, kNativeCallSlots, kNativeCallSlots + sizeof(kNativeCallSlots));
  const uint8_t* made = push + 5;
  e.frame_made = at(made);
  const uint8_t* fixed_limit = std::min(end, made + kMaxFixedFrame);
  const uint8_t* fixed = made;
  while (fixed < fixed_limit && !is_thread_flag_set(fixed, end)) fixed++;
  if (fixed >= fixed_limit) return std::nullopt;
  e.fixed_end = at(fixed);
  return e;
}

void learn_interpreter_entries() {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (g_entries.load(std::memory_order_acquire) != nullptr) return;  // learnt once per process
  auto entries = std::make_unique<InterpreterEntries>();
  int kinds = 0;
  for (const hotspot::InterpreterCodelet& codelet : hotspot::interpreter_codelets()) {
    if (codelet.description.find("method entry point") == std::string::npos) continue;
    kinds++;
    const std::optional<InterpreterEntry> e =
        scan_interpreter_entry(reinterpret_cast<const uint8_t*>(codelet.code_begin),
                               codelet.code_end - codelet.code_begin, codelet.code_begin);
    if (e && entries->count < kMaxInterpreterEntries) entries->entries[entries->count++] = *e;
  }
  if (std::getenv("JVMKIT_WALK_DEBUG") != nullptr) {
    std::fprintf(stderr, "jvmkit: %d interpreter method entries of %d recognised\n", entries->count, kinds);
  }
  // None yet: the interpreter is not generated (an Enable in Agent_OnLoad); learnt at its blob.
  if (kinds > 0) g_entries.store(entries.release(), std::memory_order_release);  // kept for the process
}

JVMKIT_SIGNAL_SAFE const InterpreterEntries* known_interpreter_entries() noexcept {
  return g_entries.load(std::memory_order_acquire);
}

JVMKIT_SIGNAL_SAFE EntryRegs entry_regs_of(const ucontext_t* uc) noexcept {
  const Regs r = regs_of(uc);
  const greg_t* g = uc->uc_mcontext.gregs;
  return EntryRegs{r.pc,
                   r.sp,
                   r.fp,
                   static_cast<uintptr_t>(g[REG_RAX]),
                   static_cast<uintptr_t>(g[REG_RBX]),
                   static_cast<uintptr_t>(g[REG_R13])};
}

JVMKIT_SIGNAL_SAFE bool interpreter_entry_caller(const InterpreterEntries& entries, const EntryRegs& at,
                                                 const StackBounds& b, EntryCaller* out) noexcept {
  JVMKIT_DCHECK(entries.count >= 0 && entries.count <= kMaxInterpreterEntries);
  const InterpreterEntry* e = nullptr;
  for (int i = 0; i < entries.count && e == nullptr; i++) {
    if (at.pc >= entries.entries[i].begin && at.pc < entries.entries[i].fixed_end) e = &entries.entries[i];
  }
  if (e == nullptr || (e->overflow_begin != 0 && at.pc >= e->overflow_begin && at.pc < e->pop)) return false;
  Regs caller{};
  if (at.pc <= e->pop || at.pc == e->push_return + 1) {  // at [rsp]
    if (!b.holds(at.sp)) return false;
    caller = {load_word(at.sp), at.r13, at.fp};
  } else if (at.pc <= e->push_return) {  // in rax
    caller = {at.rax, at.r13, at.fp};
  } else if (at.pc == e->push_return + 2) {  // rbp pushed
    if (!b.holds(at.sp + 8)) return false;
    caller = {load_word(at.sp + 8), at.r13, load_word(at.sp)};
  } else if (at.pc >= e->frame_made) {  // the fixed frame under way
    if (at.sp > at.fp || !b.holds(at.fp) || !b.holds(at.fp + 8)) return false;
    // The sender SP is saved first thing after "mov rbp, rsp" ("push r13"); r13 is reused later.
    uintptr_t sender = at.r13;
    if (at.sp < at.fp) {
      if (!b.holds(at.fp - 8)) return false;
      sender = load_word(at.fp - 8);
    }
    caller = {load_word(at.fp + 8), sender, load_word(at.fp)};
  } else {
    return false;  // inside the "mov rbp, rsp" instruction: not a boundary
  }
  // The caller's SP lies above everything the entry has pushed, on this stack.
  if (caller.sp <= at.sp || (caller.sp & 7) != 0 || caller.sp > b.hi || at.rbx == 0) return false;
  *out = EntryCaller{caller, at.rbx, e->native_call};
  return true;
}

}  // namespace jvmkit::walk
