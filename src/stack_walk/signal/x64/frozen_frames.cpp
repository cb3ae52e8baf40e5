// SIGNAL CONTEXT (see frozen_frames.hpp for what this file may call).
#include "stack_walk/signal/x64/frozen_frames.hpp"

#include <cstring>

#include "stack_walk/signal/x64/frame.hpp"
#include "stack_walk/signal/x64/physical_walk.hpp"

namespace jvmkit::walk {

namespace {

// x86-64 interpreter frame slots, in words from its rbp (HotSpot's frame_x86.hpp).
constexpr intptr_t kSenderSpSlot = -1;
constexpr intptr_t kMethodSlot = -3;
constexpr intptr_t kLocalsSlot = -7;
constexpr intptr_t kBcpSlot = -8;
// Words between a frame's SP and its caller's: the return address and the saved rbp (HotSpot's
// frame::metadata_words, frame::sender_sp_offset).
constexpr uintptr_t kMetadata = 2 * 8;
// More chunks than this is not a real continuation (each holds many frames).
constexpr int kMaxChunks = 4096;

// The words of one chunk object a walk may read: [lo, hi).
struct ChunkBounds {
  uintptr_t lo, hi;
  JVMKIT_SIGNAL_SAFE bool holds(uintptr_t address) const noexcept {
    return address >= lo && address + 8 <= hi && (address & 7) == 0;
  }
};

// A frame of the chunk: where it starts (its SP, and for a compiled frame whose callee was
// interpreted the SP before that callee extended it), and its PC.
struct ChunkFrame {
  uintptr_t sp, unextended_sp;
};

// The interpreter frame at F: one frame from its Method* and bytecode pointer. Its caller's
// frame into *NEXT; *LAST when it is the chunk's oldest (its locals reach the chunk's end).
JVMKIT_SIGNAL_SAFE bool interpreter_frame(const hotspot::MethodLayout& methods, const ChunkBounds& bounds,
                                          uintptr_t end, const ChunkFrame& f, hotspot::AsgctFrame* out,
                                          ChunkFrame* next, bool* last) noexcept {
  const uintptr_t fp_slot = f.sp - kMetadata;
  if (!bounds.holds(fp_slot)) return false;
  const uintptr_t fp = fp_slot + 8 * load_word(fp_slot);  // relativized in the chunk
  if (fp < fp_slot || !bounds.holds(fp + 8 * kBcpSlot) || !bounds.holds(fp + 8)) return false;
  const uintptr_t method = load_word(fp + 8 * kMethodSlot);
  if (method == 0 || (method & 7) != 0) return false;
  const jmethodID id = methods.method_id(method);
  const uintptr_t bcp = load_word(fp + 8 * kBcpSlot);
  const jint bci = bcp != 0 ? methods.bci(method, bcp) : -1;
  if (id == nullptr || bci < 0) return false;
  *out = hotspot::AsgctFrame{bci, id};
  const uintptr_t locals = fp + 8 * load_word(fp + 8 * kLocalsSlot);
  *last = locals + 8 >= end;
  next->sp = fp + kMetadata;
  next->unextended_sp = fp + 8 * load_word(fp + 8 * kSenderSpSlot);
  return true;
}

// Walks one chunk's frames [stack.sp, stack.end) into OUT; false when a frame cannot be read
// or OUT is full before the chunk's end.
JVMKIT_SIGNAL_SAFE bool walk_chunk(const CodeSnapshot& code, const hotspot::MethodLayout& methods,
                                   const hotspot::ChunkStack& stack, uintptr_t chunk, FrozenFrames* out) noexcept {
  const ChunkBounds bounds{chunk, stack.limit};
  ChunkFrame f{stack.sp, stack.sp};
  while (f.sp < stack.end) {
    if (!bounds.holds(f.sp - 8)) return false;
    const uintptr_t pc = load_word(f.sp - 8);
    const CodeRange* r = code.find(pc);
    if (!is_java(r)) return false;
    ChunkFrame next{};
    if (r->kind == CodeKind::kInterpreter) {
      if (out->count == out->room) return false;
      bool last = false;
      if (!interpreter_frame(methods, bounds, stack.end, f, &out->frames[out->count], &next, &last)) return false;
      out->count++;
      if (last) return true;
    } else {
      int n = 0;
      const hotspot::AsgctFrame* sites = r->native_wrapper || r->frame_size == 0 || r->call_sites == nullptr
                                             ? nullptr
                                             : r->call_sites->find(static_cast<uint32_t>(pc - r->start), &n);
      if (sites == nullptr) return false;
      // A record larger than the room left fills it: the trace is truncated there.
      const int fits = n < out->room - out->count ? n : out->room - out->count;
      std::memcpy(&out->frames[out->count], sites, sizeof(hotspot::AsgctFrame) * static_cast<size_t>(fits));
      out->count += fits;
      if (fits < n) return false;
      // HotSpot's CodeBlob::frame_size: the return address above the frame, and rbp where C1 pushes it.
      next.sp = f.unextended_sp + r->frame_size + (r->pushes_rbp ? 8 : 0) + 8;
      next.unextended_sp = next.sp;
      if (next.sp + kMetadata >= stack.end) return true;
    }
    if (next.sp <= f.sp || next.unextended_sp < f.sp) return false;  // a walk only goes down the stack
    f = next;
  }
  return true;
}

}  // namespace

JVMKIT_SIGNAL_SAFE void walk_frozen_frames(const CodeSnapshot& code, const hotspot::ContinuationLayout& layout,
                                           const hotspot::MethodLayout& methods, uintptr_t chunk,
                                           FrozenFrames* out) noexcept {
  for (int chunks = 0; chunk != 0; chunks++) {
    if (chunks == kMaxChunks) return;
    const hotspot::ChunkStack stack = layout.chunk_stack(chunk);
    if (stack.stack == 0 || !walk_chunk(code, methods, stack, chunk, out)) return;
    chunk = stack.parent;
  }
  out->whole = true;
}

JVMKIT_SIGNAL_SAFE int insert_frozen_frames(const CodeSnapshot& code, const ContinuationMethods& methods, JNIEnv* env,
                                            uintptr_t pc, hotspot::AsgctFrame* frames, jint* count,
                                            jint depth) noexcept {
  const hotspot::ContinuationLayout* layout = hotspot::known_continuation_layout();
  const hotspot::MethodLayout* method_layout = hotspot::known_method_layout();
  if (layout == nullptr || method_layout == nullptr || methods.enter_special == nullptr) return 0;
  // Only where the thread runs Java code: not in HotSpot's own thaw or freeze (stubs and the VM).
  if (!is_java(code.find(pc))) return 0;
  const jint n = *count;
  jint entry = 0;
  while (entry < n && frames[entry].method_id != methods.enter_special) entry++;
  if (entry == 0 || entry == n || frames[entry - 1].method_id == methods.enter) return 0;
  const uintptr_t chunk = layout->tail_chunk(env);
  if (chunk == 0) return 0;
  // The frames from enterSpecial on wait at the end of the buffer while the chunks fill the gap.
  const jint below = n - entry;
  std::memmove(&frames[depth - below], &frames[entry], sizeof(hotspot::AsgctFrame) * static_cast<size_t>(below));
  FrozenFrames frozen{&frames[entry], static_cast<int>(depth - below - entry)};
  walk_frozen_frames(code, *layout, *method_layout, chunk, &frozen);
  if (frozen.count < frozen.room || frozen.whole) {
    std::memmove(&frames[entry + frozen.count], &frames[depth - below],
                 sizeof(hotspot::AsgctFrame) * static_cast<size_t>(below));
    *count = n + frozen.count;
    return frozen.count;
  }
  // They do not fit: the frozen frames take the room of those below too, up to the depth limit,
  // and the trace is truncated there.
  FrozenFrames deeper{&frames[entry], static_cast<int>(depth - entry)};
  walk_frozen_frames(code, *layout, *method_layout, chunk, &deeper);
  *count = depth;
  return deeper.count;
}

}  // namespace jvmkit::walk
