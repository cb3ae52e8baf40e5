#include "stack_walk/native/native_delivery.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "base/clock.hpp"
#include "stack_walk/native/native_counters.hpp"
#include "stack_walk/signal/capture.hpp"

namespace jvmkit::walk {

namespace {

thread_local const TraceThread* t_trace_thread = nullptr;

// libjvm's own code is the JVM's; every other object's is native code.
bool is_jvm_library(const std::string& path) {
  const size_t slash = path.rfind('/');
  return path.compare(slash == std::string::npos ? 0 : slash + 1, std::string::npos, "libjvm.so") == 0;
}

jvmkitNativeFrame blank_frame(jvmtiFrameType kind) {
  jvmkitNativeFrame frame{};
  frame.size = sizeof(jvmkitNativeFrame);
  frame.kind = kind;
  frame.end = JVMKIT_NATIVE_END_REASON_COUNT;
  frame.function_offset = -1;
  return frame;
}

}  // namespace

namespace {

// What jvmkit's code map knows now of PC in HotSpot's code cache: not there (nullptr), or the name
// HotSpot gave its stub or blob ("call_stub", "_new_array_Java", ...; "" when it has none).
const char* code_cache_name(uintptr_t pc) {
  const CodeSnapshotCell* cell = capture_state().code_map.load(std::memory_order_acquire);
  if (cell == nullptr) return nullptr;
  CodeSnapshotCell::Reader reader(*cell);
  const CodeRange* range = reader.get() != nullptr ? reader.get()->find(pc) : nullptr;
  if (range == nullptr) return nullptr;
  return range->name != nullptr ? range->name : "";
}

// A run that ended at a PC no object held when it was captured: an object loaded after the
// tables were last prepared, if one holds it now (the loader knows; this is off the signal path),
// else code of no object.
jvmkitNativeEnd unknown_code_end(uintptr_t pc) {
  Dl_info info{};
  return dladdr(reinterpret_cast<void*>(pc), &info) != 0 && info.dli_fname != nullptr
             ? JVMKIT_NATIVE_END_UNPREPARED_LIBRARY
             : JVMKIT_NATIVE_END_UNKNOWN_CODE;
}

}  // namespace

jvmkitNativeEnd NativeDelivery::native_only_end(const Request& request) {
  const NativePart& part = request.native;
  if (part.no_stack_bounds) return JVMKIT_NATIVE_END_NO_STACK_BOUNDS;
  if (part.join_mismatch) return JVMKIT_NATIVE_END_JOIN_MISMATCH;
  switch (part.run_end) {
    case NativeRunEnd::kOutermost:
      // A Java thread ends at its first frame only before its first Java call (or after its
      // last); HotSpot's own threads always do.
      return JVMKIT_NATIVE_END_REASON_COUNT;
    case NativeRunEnd::kJoin:
      return JVMKIT_NATIVE_END_JAVA_UNWALKABLE;  // Java frames lie below, but none were walked
    case NativeRunEnd::kUnknownCode:
      return unknown_code_end(part.end_pc);
    default:
      return api_end(part.run_end);
  }
}

jvmkitNativeFrame NativeDelivery::describe(const native::NativeSnapshot* tables, uintptr_t recorded) {
  const bool exact = (recorded & kExactPcBit) != 0;
  const uintptr_t pc = recorded & ~kExactPcBit;
  jvmkitNativeFrame frame = blank_frame(JVMKIT_FRAME_NATIVE_CODE);
  frame.pc = static_cast<jlong>(pc);
  frame.flags = exact ? JVMKIT_NATIVE_FRAME_SIGNAL : JVMKIT_NATIVE_FRAME_CALLER;
  // A return address belongs to the call before it (which may end its function).
  // Only the object matters here, not the row.
  const native::UnwindModule* module =
      tables != nullptr ? native::find_module(tables->modules().data(), static_cast<uint32_t>(tables->modules().size()),
                                              exact ? pc : pc - 1)
                        : nullptr;
  if (module == nullptr) {
    // A stub of HotSpot's (the call stub of an entry frame, one a thread without Java frames
    // stopped in), or code of nothing known.
    const char* stub = code_cache_name(pc);
    frame.library = stub != nullptr ? "[code cache]" : "[unknown]";
    if (stub != nullptr) frame.kind = JVMKIT_FRAME_JVM;
    if (stub != nullptr && stub[0] != '\0') frame.symbol = stub;
    return frame;
  }
  const native::PreparedObject& object = tables->object_of(*module);
  // Most frames recur (a profile's hot paths): the description of a PC holds while the object
  // that held it is still loaded. The cache does not keep the object: while the object lives its
  // address is not reused, and once it is gone lock() says so.
  const CachedFrame* cached = frames_.find(recorded);
  if (cached != nullptr && cached->object.lock().get() == &object) return cached->frame;
  if (is_jvm_library(object.path)) frame.kind = JVMKIT_FRAME_JVM;
  frame.library = keep(object.path);
  frame.library_offset = static_cast<jlong>(pc - object.bias);
  // The function's start: that of the FDE covering the PC (-1 in a gap between FDEs: assembly
  // without CFI is no part of the function before it), unless a symbol holds the PC (name() below).
  // Rows hold 32-bit offsets: preparation refused objects with code 4 GiB or more above the bias.
  frame.function_offset = native::covering_function_start(
      *module, static_cast<uint32_t>(static_cast<uint64_t>(frame.library_offset) - (exact ? 0 : 1)));
  name(object, !exact, &frame);
  if (frames_.size() >= kCachedFrames) frames_.clear();  // a bound, not an eviction policy
  frames_.assign(recorded, CachedFrame{tables->object_pointer(*module), frame});
  return frame;
}

const native::SymbolIndex* NativeDelivery::symbols_of(const native::PreparedObject& object) {
  // A pointer alone could name a newer object at a freed one's address: the key decides.
  if (&object == last_object_ && object.bias == last_key_->second && object.path == last_key_->first) {
    return last_symbols_;
  }
  auto [entry, added] = symbols_.try_emplace({object.path, object.bias});
  if (added) {
    native::LoadedObject loaded;
    loaded.path = object.path;
    loaded.bias = object.bias;
    loaded.text = object.text;
    loaded.build_id = object.build_id;
    loaded.is_vdso = object.is_vdso;
    std::string why;
    entry->second = native::SymbolIndex::build(loaded, native::SymbolIndexOptions{}, &why);
  }
  last_object_ = &object;
  last_key_ = &entry->first;
  last_symbols_ = entry->second.get();
  return last_symbols_;
}

void NativeDelivery::name(const native::PreparedObject& object, bool caller, jvmkitNativeFrame* frame) {
  const native::SymbolIndex* symbols = symbols_of(object);
  if (symbols == nullptr) return;
  // A return address is named by its call, which may be the last instruction of a function.
  const uint64_t offset = static_cast<uint64_t>(frame->library_offset) - (caller ? 1 : 0);
  const native::FunctionSymbol* symbol = symbols->find(offset);
  if (symbol == nullptr) return;
  frame->symbol = symbols->demangled(*symbol);
  frame->symbol_offset = frame->library_offset - static_cast<jlong>(symbol->start);
  frame->function_offset = static_cast<jlong>(symbol->start);
  if (symbol->symbol_source() == native::SymbolSource::kDebugFile) frame->flags |= JVMKIT_NATIVE_FRAME_DEBUG_FILE;
  if (symbol->symbol_source() == native::SymbolSource::kDynsym) frame->flags |= JVMKIT_NATIVE_FRAME_DYNSYM;
}

bool NativeDelivery::emit(const Request& request, const jvmkitNativeFrame& frame) {
  if (frame.kind != JVMKIT_FRAME_MARKER) native_counters().frames_delivered.fetch_add(1, std::memory_order_relaxed);
  return request.native.callback(&frame, request.user_data) == JVMKIT_FRAME_CONTINUE;
}

bool NativeDelivery::emit_marker(const Request& request, jvmkitNativeEnd end, uintptr_t end_pc) {
  native_counters().count_marker(end);
  jvmkitNativeFrame frame = blank_frame(JVMKIT_FRAME_MARKER);
  frame.end = end;
  if (end == JVMKIT_NATIVE_END_UNKNOWN_CODE || end == JVMKIT_NATIVE_END_UNPREPARED_LIBRARY) {
    frame.pc = static_cast<jlong>(end_pc);
  }
  return emit(request, frame);
}

jvmkitNativeEnd NativeDelivery::segment_end(const NativeSegment& segment) {
  if (segment.complete) return JVMKIT_NATIVE_END_REASON_COUNT;
  switch (segment.end) {
    case NativeRunEnd::kJoin:
    case NativeRunEnd::kOutermost:
      return JVMKIT_NATIVE_END_JOIN_MISMATCH;  // reached an end, but not the one the entry frame names
    case NativeRunEnd::kUnknownCode:
      return unknown_code_end(segment.end_pc);
    default:
      return api_end(segment.end);
  }
}

bool NativeDelivery::emit_segments_before(const Request& request, jint index) {
  const NativePart& part = request.native;
  if (!part.requested) return true;
  const native::NativeSnapshotCell* cell = capture_state().native_tables.load(std::memory_order_acquire);
  for (int s = 0; s < part.segment_count; s++) {
    const NativeSegment& segment = part.segments[s];
    if (segment.before != index) continue;
    {
      native::NativeSnapshotCell::Reader reader(*cell);
      for (int i = 0; i < segment.count; i++) {
        if (!emit(request, describe(reader.get(), part.pcs[segment.first + i]))) return false;
      }
    }
    const jvmkitNativeEnd end = segment_end(segment);
    if (end != JVMKIT_NATIVE_END_REASON_COUNT && !emit_marker(request, end, segment.end_pc)) return false;
  }
  return true;
}

jvmkitNativeFrame NativeDelivery::describe_kernel(uintptr_t pc, bool leaf) {
  if (kernel_ == nullptr) kernel_ = std::make_unique<native::KernelSymbols>(native::KernelSymbols::load());
  jvmkitNativeFrame frame = blank_frame(JVMKIT_FRAME_KERNEL);
  frame.pc = static_cast<jlong>(pc);
  frame.library = "[kernel.kallsyms]";
  frame.flags = leaf ? JVMKIT_NATIVE_FRAME_SIGNAL : JVMKIT_NATIVE_FRAME_CALLER;
  // A caller's PC is a return address: its call is the byte before it.
  uint64_t offset = 0;
  if (const char* symbol = kernel_->find(leaf ? pc : pc - 1, &offset)) {
    frame.symbol = symbol;  // the table lives until reset(), the session's end
    frame.symbol_offset = static_cast<jlong>(leaf ? offset : offset + 1);
  }
  return frame;
}

bool NativeDelivery::emit_top(const Request& request, bool java_walked) {
  const NativePart& part = request.native;
  for (int i = 0; i < part.kernel_count; i++) {
    if (!emit(request, describe_kernel(part.pcs[i], i == 0))) return false;
  }
  // The tables of this moment: an object unloaded since the capture has no name any more.
  const native::NativeSnapshotCell* cell = capture_state().native_tables.load(std::memory_order_acquire);
  {
    native::NativeSnapshotCell::Reader reader(*cell);
    for (int i = 0; i < part.run_count; i++) {
      if (!emit(request, describe(reader.get(), part.pcs[part.kernel_count + i]))) return false;
    }
  }
  if (part.join_mismatch && std::getenv("JVMKIT_WALK_DEBUG") != nullptr) {
    std::fprintf(stderr, "jvmkit: join mismatch: run of %d, joined at pc %#lx sp %#lx, anchor sp %#lx pc %#lx\n",
                 part.run_count, static_cast<unsigned long>(part.join_pc), static_cast<unsigned long>(part.join_sp),
                 static_cast<unsigned long>(part.anchor_sp), static_cast<unsigned long>(part.anchor_pc));
  }
  // The run's marker: where it did not reach the Java frames that follow, or the thread's start.
  jvmkitNativeEnd end = native_only_end(request);
  if (java_walked && part.run_end == NativeRunEnd::kJoin && !part.join_mismatch && !part.no_stack_bounds) {
    end = JVMKIT_NATIVE_END_REASON_COUNT;
  }
  // A thread in Java code (no anchor) whose Java frames AsyncGetCallTrace placed from its PC: a PC
  // no object holds is Java code the code map has not seen yet, not native code above the frames.
  if (java_walked && part.run_count == 0 && part.run_end == NativeRunEnd::kUnknownCode && part.anchor_sp == 0 &&
      !part.native_only) {
    end = JVMKIT_NATIVE_END_REASON_COUNT;
  }
  if (end != JVMKIT_NATIVE_END_REASON_COUNT && part.run_count > 0 && std::getenv("JVMKIT_WALK_DEBUG") != nullptr) {
    native::NativeSnapshotCell::Reader reader(*cell);
    const jvmkitNativeFrame last = describe(reader.get(), part.pcs[part.kernel_count + part.run_count - 1]);
    std::fprintf(stderr, "jvmkit: native run of %d ends by %d at %#lx %s+%#lx (%s)\n", part.run_count,
                 static_cast<int>(end), static_cast<unsigned long>(last.pc),
                 last.library != nullptr ? last.library : "?", static_cast<unsigned long>(last.library_offset),
                 last.symbol != nullptr ? last.symbol : "?");
  }
  return end == JVMKIT_NATIVE_END_REASON_COUNT || emit_marker(request, end, part.end_pc);
}

void set_current_trace_thread(const TraceThread* thread) noexcept { t_trace_thread = thread; }

namespace {

// The kernel's name of thread TID, read from /proc at most once a second per thread: a profiler
// asks at every trace (an open, a read and a close of /proc each time cost a 3-s profile at 1 kHz
// 15-20 ms of CPU), and a rename, or a new thread that reuses an ended one's tid, shows within
// that second. Per delivering thread, so without a lock.
const std::array<char, 16>& thread_name(pid_t tid) {
  struct Cached {
    std::array<char, 16> name{};
    int64_t read_ns = 0;
  };
  constexpr int64_t kRefreshNs = 1'000'000'000;
  constexpr size_t kMaxThreads = 4096;  // past this many, start over rather than grow without bound
  thread_local std::unordered_map<pid_t, Cached> cache;
  const int64_t now = monotonic_ns();
  auto found = cache.find(tid);
  if (found != cache.end() && now - found->second.read_ns < kRefreshNs) return found->second.name;
  if (found == cache.end()) {
    if (cache.size() >= kMaxThreads) cache.clear();
    found = cache.emplace(tid, Cached{}).first;
  }
  Cached& entry = found->second;
  entry.name.fill('\0');
  entry.read_ns = now;
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/self/task/%d/comm", static_cast<int>(tid));
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    const ssize_t n = read(fd, entry.name.data(), entry.name.size() - 1);
    close(fd);
    if (n > 0 && entry.name[n - 1] == '\n') entry.name[n - 1] = '\0';
  }
  return entry.name;
}

}  // namespace

jvmtiError current_trace_thread(jvmkitTraceThread* out) noexcept {
  if (out == nullptr) return JVMTI_ERROR_NULL_POINTER;
  if (t_trace_thread == nullptr) return JVMTI_ERROR_NOT_AVAILABLE;
  std::memset(out, 0, sizeof(*out));
  out->tid = t_trace_thread->tid;
  out->java_thread = t_trace_thread->java_thread ? JNI_TRUE : JNI_FALSE;
  std::memcpy(out->name, thread_name(t_trace_thread->tid).data(), sizeof(out->name));
  return JVMTI_ERROR_NONE;
}

}  // namespace jvmkit::walk
