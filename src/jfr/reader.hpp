// Reader: the events of a Flight Recorder file, read chunk by chunk in bounded memory.
//
// It reads what jvmkit writes (chunk_writer.hpp) and the JDK's own recordings (format 2.x, JDK 11
// and later; async-profiler's too): it decodes by each chunk's metadata, as the JDK's readers do,
// so fields it does not know are skipped and fields a writer left out read as empty. It follows a
// chunk's constant-pool events by their deltas, and resolves the keys of an event's thread, stack,
// methods, classes and symbols in that chunk's pools.
//
// Memory: one chunk at a time (its bytes, its pool index and the stacks and threads resolved so
// far), whatever the file's size.
//
// Errors name the byte offset in the file where reading stopped: a file cut short (a JVM killed
// while writing), a chunk whose header or sizes disagree with the file, a value that runs past its
// event. The events before it have been delivered.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "base/error.hpp"

namespace jvmkit::jfr {

// A frame as the recording names it. The views are valid during the callback only.
struct ReadFrame {
  std::string_view class_name;  // "java.lang.String"; "" for code outside any class (C++, kernel)
  std::string_view method;      // "hashCode"
  std::string_view descriptor;  // "()I"; "" when the recording has none
  int32_t line = 0;             // 0 when unknown
  int32_t bci = -1;             // -1 when unknown
  std::string_view type;        // "Interpreted", "JIT compiled", "Inlined", "Native", "C++", "Kernel"
};

struct ReadThread {
  int64_t os_tid = 0;
  int64_t java_tid = -1;  // -1 (or 0) for a thread without a java.lang.Thread
  std::string_view name;  // its Java name, else its OS name; "" when it has neither
};

// One event. Fields an event type does not have are empty (0, "", null, no frames).
struct ReadEvent {
  std::string_view type;               // "jdk.ExecutionSample"
  int64_t start_ns = 0;                // wall clock, ns since the epoch
  int64_t duration_ns = 0;             // 0 for an event without a duration
  const ReadThread* thread = nullptr;  // sampledThread, else eventThread; null when neither
  std::span<const ReadFrame> frames;   // the stack, top (the executing frame) first
  bool truncated = false;              // the stack lacks frames at its root end
  // The stack's identity within its chunk (0: no stack), and the chunk's number: events of one
  // chunk with the same stack_id have the same frames (a reader may cache what it makes of them).
  uint64_t stack_id = 0;
  uint64_t chunk = 0;
  std::string_view object_class;  // objectClass, monitorClass or parkedClass; "" when none
  int64_t weight = 0;             // the "weight" field, 0 when the event has none
  int64_t samples = 1;            // the "samples" field (profiler.WallClockSample), 1 when none
  std::string_view event_name;    // jvmkit.PerfEventSample's "event"
  // jdk.ActiveSetting: the event type the setting is of (its name; "" for id 0), its name and value.
  std::string_view setting_type;
  std::string_view setting_name;
  std::string_view setting_value;
};

struct ReadStats {
  int64_t chunks = 0;    // chunks read whole
  int64_t events = 0;    // events delivered (metadata and constant-pool events are not counted)
  int64_t bytes = 0;     // bytes of the whole chunks read
  size_t max_chunk = 0;  // the largest chunk, in bytes: what reading held in memory at most
};

// Reads PATH, calling ON_EVENT for each event (metadata and constant-pool events excluded), in the
// file's order. ON_EVENT returns false to stop reading (not an error). STATS (may be null) counts
// what was read, also when reading stopped at an error.
// Errors: "PATH: not a Flight Recorder file (at byte 0)", "PATH: cut short: chunk 3 at byte N
// claims M bytes, the file ends at byte K", "PATH: corrupt: ... at byte N", "cannot read PATH:
// <errno text>". Chunks larger than MAX_CHUNK bytes are refused (an error naming the chunk): memory
// stays bounded on a corrupt size field.
Error read_recording(const std::string& path, const std::function<bool(const ReadEvent&)>& on_event,
                     ReadStats* stats = nullptr, size_t max_chunk = size_t{1} << 31);

}  // namespace jvmkit::jfr
