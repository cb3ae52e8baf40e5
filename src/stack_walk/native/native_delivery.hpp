// The native frames of a JvmkitRequestStackTraceNative request, on the delivery thread: each
// captured PC described (kind, library, offsets) and handed to the request's nativeFrame callback
// at its place among the Java frames. Not signal context.
//
// Strings handed out (library paths, symbols) stay valid until the session ends
// (DisableRequestStackTrace): they are kept here, not borrowed from the unwind tables, which may
// drop an unloaded object. Symbols come from each object's symbol index (native/symbol_index.hpp),
// built the first time one of its frames is delivered.
#pragma once

#include <jni.h>
#include <jvmkit/stack_walk_native.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "base/flat_map.hpp"
#include "native/kernel_symbols.hpp"
#include "native/native_snapshot.hpp"
#include "native/symbol_index.hpp"
#include "stack_walk/request_pool.hpp"

namespace jvmkit::walk {

class NativeDelivery {
 public:
  // A new session: forgets the strings of the last one.
  void reset() {
    strings_.clear();
    symbols_.clear();
    last_object_ = nullptr;
    last_key_ = nullptr;
    last_symbols_ = nullptr;
    kernel_.reset();
    frames_.clear(/*free=*/true);
  }

  // The frames above the Java frames: the kernel PCs, the captured run, and a marker when the run
  // ended short of the Java frames (JAVA_WALKED: the Java frames follow). False when a callback
  // answered STOP (no frame may follow).
  bool emit_top(const Request& request, bool java_walked);
  // One marker frame (END_PC: the PC an unknown_code or unprepared_library end names). False when
  // the callback answered STOP.
  bool emit_marker(const Request& request, jvmkitNativeEnd end, uintptr_t end_pc = 0);
  // The segments of native frames captured below Java frames (NativeSegment) that belong before
  // the trace's Java frame INDEX (its length: after the last one), each with its marker when it
  // ended short. False when a callback answered STOP.
  bool emit_segments_before(const Request& request, jint index);

  // Whether REQUEST's trace is its native part alone: no Java frame was captured, but native
  // frames were (HotSpot's own threads, a Java thread before its first Java frame or inside the VM),
  // or the thread has no Java frames at all and its native part is one marker (a PC in code of no
  // known object or stub).
  static bool native_only_trace(const Request& request) {
    const NativePart& part = request.native;
    if (!part.requested || !part.captured || request.num_frames > 0) return false;
    return part.run_count + part.kernel_count > 0 || (part.no_java_frames && part.run_end != NativeRunEnd::kJoin);
  }
  // The marker that ends such a trace, or JVMKIT_NATIVE_END_REASON_COUNT when it reached the
  // thread's first frame.
  static jvmkitNativeEnd native_only_end(const Request& request);

  // The frame of one captured PC (RECORDED: with kExactPcBit where exact) by TABLES, the tables of
  // this moment (nullptr: none): kind, library and offsets, and its symbol when one holds the PC.
  // Strings stay valid until reset().
  jvmkitNativeFrame describe(const native::NativeSnapshot* tables, uintptr_t recorded);

 private:
  bool emit(const Request& request, const jvmkitNativeFrame& frame);
  static jvmkitNativeEnd segment_end(const NativeSegment& segment);
  // Names FRAME (its library_offset set) from OBJECT's symbols, when a symbol holds the PC.
  void name(const native::PreparedObject& object, bool caller, jvmkitNativeFrame* frame);
  // OBJECT's symbol index (built on first use), or nullptr when it cannot be read.
  const native::SymbolIndex* symbols_of(const native::PreparedObject& object);
  const char* keep(const std::string& text) { return strings_.insert(text).first->c_str(); }
  // The kernel frame at PC (a request's kernel chain; LEAF: the first one), named from /proc/kallsyms
  // (read the first time a session delivers one).
  jvmkitNativeFrame describe_kernel(uintptr_t pc, bool leaf);

  std::set<std::string> strings_;  // node-based: the c_str() of an element stays put
  // Per loaded object (path, load bias): its symbols, or nullptr when they cannot be read.
  std::map<std::pair<std::string, uintptr_t>, std::unique_ptr<native::SymbolIndex>> symbols_;
  // The object of the last frame named, and its index: frames of one trace mostly share objects.
  const native::PreparedObject* last_object_ = nullptr;
  const std::pair<std::string, uintptr_t>* last_key_ = nullptr;
  const native::SymbolIndex* last_symbols_ = nullptr;
  std::unique_ptr<native::KernelSymbols> kernel_;
  // describe()'s answers by recorded PC, each with the object that held it.
  struct CachedFrame {
    std::weak_ptr<const native::PreparedObject> object;
    jvmkitNativeFrame frame;
  };
  // At most 32,768 PCs: a table of 65,536 slots of about 100 bytes, 7 MB at the very most.
  static constexpr size_t kCachedFrames = 1 << 15;
  FlatMap<uintptr_t, CachedFrame> frames_;
};

// JvmkitCurrentTraceThread's answer while the callbacks of a native request run on this thread.
struct TraceThread {
  pid_t tid = 0;
  bool java_thread = false;
};
// Set from begin to end of a native request's trace (or around its failure callback); cleared after.
void set_current_trace_thread(const TraceThread* thread) noexcept;
jvmtiError current_trace_thread(jvmkitTraceThread* out) noexcept;

}  // namespace jvmkit::walk
