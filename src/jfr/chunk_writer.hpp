// ChunkWriter: one self-contained chunk of a Flight Recorder file.
//
// A chunk is a 68-byte header, the events, one constant-pool event (the threads, stack traces,
// methods, classes and names the events refer to by key) and the metadata event (the types).
// Every chunk jvmkit writes carries all three, so a file is readable chunk by chunk: a recording
// that is cut short (a JVM killed with SIGKILL) is readable up to its last whole chunk.
//
// Time: a chunk counts ticks of CLOCK_MONOTONIC in nanoseconds (ticksPerSecond 10^9), and its
// header ties its first tick to the wall clock; every event's time is such a tick.
//
// Keys: the add_* calls return the constant-pool key of what they add, deduplicating by content
// (a symbol, a class, a method) or not at all (threads and stacks: the caller keeps its own map,
// keyed by what it knows them by). A key is 1 or more; 0 is null. A key must not name two things
// in one file: the JDK's reader takes a key it saw in the previous chunk for the same object
// without reading it again. So the keys of a chunk start where the previous chunk's ended
// (next_key()).
//
// Not thread-safe; one writer per chunk. Its memory grows with the chunk's events and distinct
// stacks until finish() hands the bytes out.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "jfr/buffer.hpp"
#include "jfr/metadata.hpp"

namespace jvmkit::jfr {

// The frame types, as JFR names them: "Interpreted", "JIT compiled", "Inlined", "Native", and
// the native-frame types of async-profiler's recordings, "C++" and "Kernel". Their keys in the
// frame-type pool are the JDK's and async-profiler's (HotSpot's FRAME_INTERPRETER is 0), which
// readers that go by the key rather than the name rely on.
enum class FrameKind : uint8_t { kInterpreted = 0, kJit, kInlined, kNative, kCpp, kKernel };
const char* frame_kind_name(FrameKind kind);

struct StackFrame {
  uint64_t method = 0;  // add_method's key
  int32_t line = 0;     // 0 when unknown
  int32_t bci = -1;     // -1 when unknown (a native frame)
  FrameKind kind = FrameKind::kJit;
};

struct ThreadInfo {
  int64_t os_tid = 0;
  std::string_view os_name;  // the OS's name of the thread (it is cut to 15 bytes); "" when unknown
  int64_t java_tid = -1;     // -1 for a thread the JVM does not know (its own threads)
  std::string_view java_name;
  bool is_virtual = false;
};

// A sample's request context (org.jvmkit.JvmkitContext), written as a jvmkit.SampleContext event
// right after the sample (none when all three are empty): contextLabels ("endpoint=/a,tenant=x"),
// traceId (32 hex digits), spanId (16); each written as null when empty.
struct EventContext {
  std::string_view labels;
  std::string_view trace_id;
  std::string_view span_id;
};

struct RecordingInfo {
  int64_t id = 1;
  std::string_view name;         // "jvmkit"
  std::string_view destination;  // the file
  int64_t flush_ms = 0;          // how often a chunk is written
  int64_t start_ms = 0;          // wall clock, ms since the epoch
  int64_t duration_ms = 0;       // 0 while it runs
};

class ChunkWriter {
 public:
  // START_NANOS: the wall clock (ns since the epoch) at START_TICKS (CLOCK_MONOTONIC ns), the
  // chunk's start. FIRST_KEY: the previous chunk's next_key(), 1 for a file's first chunk.
  ChunkWriter(int64_t start_nanos, int64_t start_ticks, uint64_t first_key = 1);

  // --- Constant pools ---
  uint64_t add_symbol(std::string_view utf8);
  // A class by its Java name ("java.lang.String", "int[]"): its package is the name before the
  // last dot.
  uint64_t add_class(std::string_view java_name);
  // A method of the class CLASS_KEY (add_class; 0 for code outside any class, such as C++, which
  // gets the class named ""). DESCRIPTOR: "(I)V", readers print the parameters from it; "" for
  // code without one, written as "()".
  uint64_t add_method(uint64_t class_key, std::string_view name, std::string_view descriptor, bool hidden = false);
  // A stack, FRAMES top (the executing frame) first; TRUNCATED: frames below the last are missing.
  uint64_t add_stack(std::span<const StackFrame> frames, bool truncated);
  uint64_t add_thread(const ThreadInfo& thread);

  // --- Events (times are ticks; durations are ticks too) ---
  void execution_sample(int64_t ticks, uint64_t thread, uint64_t stack, const EventContext& context = {});
  void wall_clock_sample(int64_t ticks, uint64_t thread, uint64_t stack, const EventContext& context = {});
  void perf_event_sample(int64_t ticks, uint64_t thread, uint64_t stack, std::string_view event, int64_t weight,
                         const EventContext& context = {});
  void allocation_sample(int64_t ticks, uint64_t thread, uint64_t stack, uint64_t object_class, int64_t weight,
                         const EventContext& context = {});
  void monitor_enter(int64_t start_ticks, int64_t duration, uint64_t thread, uint64_t stack, uint64_t monitor_class,
                     const EventContext& context = {});
  void thread_park(int64_t start_ticks, int64_t duration, uint64_t thread, uint64_t stack, uint64_t parked_class,
                   const EventContext& context = {});
  void active_recording(int64_t ticks, const RecordingInfo& recording);
  // A setting of the event type EVENT_TYPE (metadata.hpp's TypeId) or, with 0, of the recording
  // (written as jdk.ActiveRecording's).
  void active_setting(int64_t ticks, uint64_t event_type, std::string_view name, std::string_view value);

  size_t events() const { return events_count_; }
  // The first key the next chunk of the file may use.
  uint64_t next_key() const { return next_key_; }
  // The bytes held so far (events and pools), for a writer that bounds a chunk's size.
  size_t size() const;

  // The chunk, ended at END_TICKS (its duration is END_TICKS - start_ticks). FINAL marks the last
  // chunk of a recording. The writer is spent afterwards.
  std::string finish(int64_t end_ticks, bool final);

 private:
  void write_constant_pools(Buffer& out, int64_t ticks) const;
  void commit(const Buffer& event);
  void context_event(int64_t ticks, uint64_t thread, TypeId sample_type, const EventContext& context);

  int64_t start_nanos_;
  int64_t start_ticks_;
  Buffer events_;
  size_t events_count_ = 0;
  Buffer scratch_;  // the event being written
  uint64_t next_key_;

  // Each pool: its entries' encoded values, each after its key.
  std::vector<std::pair<uint64_t, std::string>> symbols_;
  std::unordered_map<std::string, uint64_t> symbol_keys_;
  Buffer classes_, packages_, methods_, stacks_, threads_;
  size_t class_count_ = 0, package_count_ = 0, method_count_ = 0, stack_count_ = 0, thread_count_ = 0;
  uint32_t frame_kinds_ = 0;  // a bit per FrameKind the stacks hold
  std::unordered_map<std::string, uint64_t> class_keys_, package_keys_, method_keys_;
};

}  // namespace jvmkit::jfr
