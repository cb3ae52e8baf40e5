// Where a mounted continuation keeps its frozen frames, read directly (JDK 21+, x86-64).
//
// A virtual thread runs as a continuation. HotSpot thaws it lazily: at a mount, only the top
// frames are copied back to the thread's stack; the rest stay in the heap, in the continuation's
// stack chunks (jdk.internal.vm.StackChunk: the youngest is Continuation.tail, each older one its
// parent), laid out as they were on the stack. A walk of the thread's stack alone stops at the
// return barrier below the thawed frames.
//
// The way there: JavaThread::_cont_entry (the innermost ContinuationEntry, on the stack) holds the
// Continuation object; its field tail, the youngest chunk; a chunk's fields sp and bottom bound
// its frames (in words from the chunk's stack, which starts InstanceStackChunkKlass's
// offset_of_stack bytes into the object), parent the next chunk.
//
// Only the thread itself reads its own chunks, and only while it runs Java code
// (JavaThread::_thread_state): no safepoint can complete meanwhile, so with a collector that moves
// objects only at safepoints (Serial, Parallel, G1) the chunks stay where they are, and no thaw or
// freeze is running on the thread (HotSpot's own code does those). Every object read must lie
// inside the heap's reserved range.
//
// Offsets of Java fields come from Unsafe.objectFieldOffset, those of HotSpot's own from
// gHotSpotVMStructs. ContinuationEntry::_cont is not described there: its offset (the second word
// of a product build's entry) is confirmed on the first virtual thread that starts, against the
// JNI handle of that thread's continuation, before the layout is published.
#pragma once

#include <jni.h>

#include <cstdint>
#include <cstring>

#include "base/signal_safe.hpp"

namespace jvmkit::hotspot {

// The frames of one stack chunk: words [sp, end) of its stack, and the next (older) chunk.
struct ChunkStack {
  uintptr_t stack = 0;   // the chunk's stack (word 0), 0 when the chunk cannot be read
  uintptr_t sp = 0;      // its youngest frame
  uintptr_t end = 0;     // the end of its frames (StackChunk.bottom)
  uintptr_t limit = 0;   // the end of its stack (StackChunk.size): nothing above is read
  uintptr_t parent = 0;  // the next chunk, or 0 (not checked yet: chunk_stack checks it)
};

struct ContinuationLayout {
  intptr_t env_offset = 0;                            // JNIEnv address - JavaThread address
  intptr_t cont_entry = 0;                            // JavaThread::_cont_entry
  intptr_t thread_state = 0;                          // JavaThread::_thread_state
  intptr_t entry_cont = 0;                            // ContinuationEntry::_cont (found, see above)
  intptr_t tail = 0;                                  // Continuation.tail
  intptr_t parent = 0, size = 0, sp = 0, bottom = 0;  // StackChunk's fields
  intptr_t stack_offset = 0;                          // InstanceStackChunkKlass::_offset_of_stack
  bool narrow = false;  // UseCompressedOops: a reference field holds (address - base) >> shift
  uintptr_t narrow_base = 0;
  int narrow_shift = 0;
  uintptr_t heap_lo = 0, heap_hi = 0;  // CollectedHeap::_reserved

  // SIGNAL SAFE. The youngest chunk of the continuation the current thread (ENV's) runs, or 0: no
  // continuation is mounted, the thread does not run Java code, or the chunk is not in the heap.
  JVMKIT_SIGNAL_SAFE uintptr_t tail_chunk(JNIEnv* env) const noexcept {
    const char* thread = reinterpret_cast<const char*>(env) - env_offset;
    int32_t state;
    std::memcpy(&state, thread + thread_state, sizeof(state));
    if (state != kThreadInJava) return 0;
    const uintptr_t entry = load(reinterpret_cast<uintptr_t>(thread) + cont_entry);
    if (entry == 0 || (entry & 7) != 0) return 0;
    const uintptr_t cont = load(entry + entry_cont);
    if (!in_heap(cont, tail + 8)) return 0;
    return reference(cont, tail);
  }

  // SIGNAL SAFE. The frames of CHUNK (from tail_chunk or a ChunkStack's parent); stack 0 when its
  // fields are implausible.
  JVMKIT_SIGNAL_SAFE ChunkStack chunk_stack(uintptr_t chunk) const noexcept {
    ChunkStack out;
    if (!in_heap(chunk, stack_offset)) return out;
    const int32_t words = load32(chunk + size), top = load32(chunk + sp), end = load32(chunk + bottom);
    const uintptr_t stack = chunk + static_cast<uintptr_t>(stack_offset);
    if (words <= 0 || words > kMaxChunkWords || top < 0 || top > end || end > words ||
        !in_heap(stack, 8 * static_cast<uintptr_t>(words))) {
      return out;
    }
    out.stack = stack;
    out.sp = stack + 8 * static_cast<uintptr_t>(top);
    out.end = stack + 8 * static_cast<uintptr_t>(end);
    out.limit = stack + 8 * static_cast<uintptr_t>(words);
    // As stored: one outside the heap is a chunk the next call refuses, not the end of the chunks.
    out.parent = decoded(chunk, parent);
    return out;
  }

  static constexpr int32_t kThreadInJava = 8;
  static constexpr int32_t kMaxChunkWords = 1 << 24;  // 128 MB: larger is not a real chunk

 private:
  JVMKIT_SIGNAL_SAFE bool in_heap(uintptr_t address, uintptr_t bytes) const noexcept {
    return address != 0 && (address & 7) == 0 && address >= heap_lo && address < heap_hi && bytes <= heap_hi - address;
  }
  // The reference field at OBJECT + OFFSET, decoded (0: null).
  JVMKIT_SIGNAL_SAFE uintptr_t decoded(uintptr_t object, intptr_t offset) const noexcept {
    if (!narrow) return load(object + offset);
    const uint32_t value = static_cast<uint32_t>(load32(object + offset));
    return value == 0 ? 0 : narrow_base + (static_cast<uintptr_t>(value) << narrow_shift);
  }
  // The same, 0 also when it lies outside the heap.
  JVMKIT_SIGNAL_SAFE uintptr_t reference(uintptr_t object, intptr_t offset) const noexcept {
    const uintptr_t address = decoded(object, offset);
    return in_heap(address, 8) ? address : 0;
  }
  JVMKIT_SIGNAL_SAFE static uintptr_t load(uintptr_t address) noexcept {
    uintptr_t value;
    std::memcpy(&value, reinterpret_cast<const void*>(address), sizeof(value));
    return value;
  }
  JVMKIT_SIGNAL_SAFE static int32_t load32(uintptr_t address) noexcept {
    int32_t value;
    std::memcpy(&value, reinterpret_cast<const void*>(address), sizeof(value));
    return value;
  }
};

// Learns the layout's offsets (normal context, after VMInit; JNI calls on ENV). Nothing is
// published yet: confirm_continuation_layout does that. False when the JVM has no
// continuations, another collector, or a field is missing.
bool learn_continuation_layout(JNIEnv* env);
// On a mounted virtual thread VIRTUAL (its VirtualThreadStart, normal context): checks
// ContinuationEntry::_cont against VirtualThread.cont, then publishes the layout. Once it is
// published, later calls return at once.
void confirm_continuation_layout(JNIEnv* env, jobject virtual_thread);
// SIGNAL SAFE. The published layout, or nullptr.
JVMKIT_SIGNAL_SAFE const ContinuationLayout* known_continuation_layout() noexcept;

}  // namespace jvmkit::hotspot
