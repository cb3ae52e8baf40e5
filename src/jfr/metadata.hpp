// The types a jvmkit recording declares in the metadata event of every chunk.
//
// A Flight Recorder file describes itself: each chunk's metadata event lists every type its events
// and constant pools use, with their fields in the order their values are written, and the JDK's
// readers (jdk.jfr.consumer, `jfr print`, JDK Mission Control) decode values by that description
// alone. jvmkit declares the JDK's own event types (jdk.ExecutionSample, jdk.ObjectAllocationSample,
// jdk.JavaMonitorEnter, jdk.ThreadPark, jdk.ActiveRecording, jdk.ActiveSetting), async-profiler's
// wall-clock sample (profiler.WallClockSample: the JDK has none) and two of its own
// (jvmkit.PerfEventSample, jvmkit.SampleContext). The sample events have exactly the fields of
// the JDK's (async-profiler's) declarations, in their order, also those jvmkit does not know
// (written as null, 0 or "none"): async-profiler's converter reads them by position. A field of
// jdk.ActiveRecording the JDK declares and jvmkit leaves out reads as its default (null, 0)
// through jdk.jfr.consumer.
//
// What readers other than the JDK's rely on (async-profiler's converter, JDK Mission Control) is
// checked by layout_check.hpp.
//
// The ids are jvmkit's; a reader maps them through the metadata. 0 and 1 are the metadata and
// constant-pool events' own ids. A constant-pool key of 0 is null.
//
// The constant-pool types (classes, threads, packages, methods, stacks) have the JDK's fields in
// the JDK's order, also those jvmkit leaves null (a class's loader, a thread's group): some
// readers, async-profiler's converter among them, read pools by that layout, not by the metadata.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "jfr/buffer.hpp"

namespace jvmkit::jfr {

enum TypeId : uint64_t {
  kMetadataEvent = 0,
  kConstantPoolEvent = 1,
  // Primitive types.
  kBoolean = 4,
  kInt = 8,
  kLong = 9,
  kString = 10,
  // Types of constant pools and of values inside events.
  kClass = 20,
  kThread = 21,
  kThreadGroup = 22,
  kClassLoader = 23,
  kPackage = 24,
  kModule = 25,
  kSymbol = 26,
  kMethod = 27,
  kStackTrace = 28,
  kStackFrame = 29,
  kFrameType = 30,
  kThreadState = 31,
  // Annotations.
  kLabel = 40,
  kDescription = 41,
  kCategory = 42,
  kTimestamp = 43,
  kTimespan = 44,
  kDataAmount = 45,
  // Events.
  kExecutionSample = 100,
  kObjectAllocationSample = 101,
  kJavaMonitorEnter = 102,
  kThreadPark = 103,
  kActiveRecording = 104,
  kActiveSetting = 105,
  kWallClockSample = 110,  // profiler.WallClockSample
  kPerfEventSample = 111,
  kSampleContext = 112,
};

// An annotation of a type or a field. Category's values are separated by '/'.
struct Annotation {
  TypeId type;
  std::string_view value;
};

struct FieldDef {
  std::string_view name;
  TypeId type;
  bool pool = false;   // the value is a key into the type's constant pool
  bool array = false;  // a count, then that many values
  std::span<const Annotation> annotations = {};
};

struct TypeDef {
  TypeId id;
  std::string_view name;
  std::string_view super_type;  // "jdk.jfr.Event" for events, the annotation base for annotations
  bool simple = false;          // a single-field wrapper that readers unwrap (Symbol, FrameType...)
  std::span<const Annotation> annotations;
  std::span<const FieldDef> fields;
};

// Every type of the metadata, in the order it is written.
std::span<const TypeDef> metadata_types();

// The type of ID; null when jvmkit does not declare it.
const TypeDef* find_type(uint64_t id);

// Appends the metadata event (its size, id 0, start, duration, metadata id, the string table and
// the element tree) at TICKS.
void write_metadata_event(Buffer& out, int64_t ticks);

}  // namespace jvmkit::jfr
