#include "jfr/chunk_writer.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "jfr/metadata.hpp"

namespace jvmkit::jfr {

namespace {

constexpr size_t kHeaderSize = 68;
// The chunk header's flags: its integers are varints (JDK Mission Control reads them as fixed-size
// numbers without this flag; the JDK's reader does not look), and the recording's last chunk.
constexpr uint8_t kCompressedIntegersFlag = 1 << 0;
constexpr uint8_t kFinalChunkFlag = 1 << 1;

// The thread states of samples, as async-profiler names them and its converter tells CPU samples
// from wall-clock ones by (--cpu takes STATE_DEFAULT, --wall the others): a CPU sample's thread
// ran; a wall-clock sample's thread ran or waited, which jvmkit does not tell apart.
constexpr uint64_t kCpuState = 1;
constexpr uint64_t kWallState = 2;
constexpr std::pair<uint64_t, std::string_view> kStates[] = {{kCpuState, "STATE_DEFAULT"},
                                                             {kWallState, "STATE_UNKNOWN"}};

// The frame types every chunk lists: the JDK's. C++ and Kernel only in a chunk whose stacks have
// such frames: async-profiler's converter takes Native for C code (and names the frame without
// its class) in a recording that lists Kernel, as its own recordings do, while jvmkit's Native is
// the JDK's, a Java native method.
constexpr FrameKind kJdkFrameKinds[] = {FrameKind::kInterpreted, FrameKind::kJit, FrameKind::kInlined,
                                        FrameKind::kNative};
constexpr FrameKind kNativeCodeKinds[] = {FrameKind::kCpp, FrameKind::kKernel};
constexpr uint32_t bit(FrameKind kind) { return 1u << static_cast<uint32_t>(kind); }

// A park whose timeout and deadline are not known: the JDK's value for "none" (jfr print: N/A).
constexpr int64_t kNoTime = INT64_MIN;

// The package of a Java class name: "java.lang" of "java.lang.String", "" of "int[]".
std::string_view package_of(std::string_view java_name) {
  const size_t dot = java_name.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : java_name.substr(0, dot);
}

}  // namespace

const char* frame_kind_name(FrameKind kind) {
  switch (kind) {
    case FrameKind::kInterpreted:
      return "Interpreted";
    case FrameKind::kJit:
      return "JIT compiled";
    case FrameKind::kInlined:
      return "Inlined";
    case FrameKind::kNative:
      return "Native";
    case FrameKind::kCpp:
      return "C++";
    case FrameKind::kKernel:
      return "Kernel";
  }
  return "Unknown";
}

// The frame types' and thread states' keys are the same in every chunk (the frame types listed
// depend on the chunk's stacks).
ChunkWriter::ChunkWriter(int64_t start_nanos, int64_t start_ticks, uint64_t first_key)
    : start_nanos_(start_nanos), start_ticks_(start_ticks), next_key_(std::max<uint64_t>(first_key, 1)) {}

uint64_t ChunkWriter::add_symbol(std::string_view utf8) {
  auto [it, added] = symbol_keys_.try_emplace(std::string(utf8), next_key_);
  if (added) symbols_.emplace_back(next_key_++, utf8);
  return it->second;
}

uint64_t ChunkWriter::add_class(std::string_view java_name) {
  auto [it, added] = class_keys_.try_emplace(std::string(java_name), next_key_);
  if (!added) return it->second;
  next_key_++;
  class_count_++;
  uint64_t package = 0;
  if (std::string_view name = package_of(java_name); !name.empty()) {
    auto [p, new_package] = package_keys_.try_emplace(std::string(name), next_key_);
    if (new_package) {
      next_key_++;
      package_count_++;
      packages_.varint(p->second);
      packages_.varint(add_symbol(name));
      packages_.varint(0);  // module: not known
      packages_.boolean(false);
    }
    package = p->second;
  }
  classes_.varint(it->second);
  classes_.varint(0);  // class loader: not known
  classes_.varint(add_symbol(java_name));
  classes_.varint(package);
  classes_.varint(0);  // modifiers: not known
  classes_.boolean(false);
  return it->second;
}

uint64_t ChunkWriter::add_method(uint64_t class_key, std::string_view name, std::string_view descriptor, bool hidden) {
  // JFR's readers take every method to have a class and a descriptor with parentheses (`jfr print`
  // fails on a method without them), so code outside any class gets the class "" and "()", as in
  // async-profiler's recordings.
  if (class_key == 0) class_key = add_class("");
  if (descriptor.empty()) descriptor = "()";
  std::string id = std::to_string(class_key);
  id.push_back('\0');
  id.append(name);
  id.push_back('\0');
  id.append(descriptor);
  auto [it, added] = method_keys_.try_emplace(std::move(id), next_key_);
  if (!added) return it->second;
  next_key_++;
  method_count_++;
  methods_.varint(it->second);
  methods_.varint(class_key);
  methods_.varint(add_symbol(name));
  methods_.varint(add_symbol(descriptor));
  methods_.varint(0);  // modifiers: not known
  methods_.boolean(hidden);
  return it->second;
}

uint64_t ChunkWriter::add_stack(std::span<const StackFrame> frames, bool truncated) {
  const uint64_t key = next_key_++;
  stack_count_++;
  stacks_.varint(key);
  stacks_.boolean(truncated);
  stacks_.varint(frames.size());
  for (const StackFrame& f : frames) {
    frame_kinds_ |= bit(f.kind);
    stacks_.varint(f.method);
    stacks_.varint_int(f.line);
    stacks_.varint_int(f.bci);
    stacks_.varint(static_cast<uint64_t>(f.kind));
  }
  return key;
}

uint64_t ChunkWriter::add_thread(const ThreadInfo& thread) {
  const uint64_t key = next_key_++;
  thread_count_++;
  threads_.varint(key);
  threads_.string(thread.os_name);
  threads_.varint_signed(thread.os_tid);
  if (thread.java_tid < 0) {
    threads_.null_string();  // not a Java thread: JFR's readers show no Java name and id -1
  } else {
    threads_.string(thread.java_name);
  }
  threads_.varint_signed(thread.java_tid);
  threads_.varint(0);  // group: not known
  threads_.boolean(thread.is_virtual);
  return key;
}

void ChunkWriter::commit(const Buffer& event) {
  events_.sized(event.bytes());
  events_count_++;
}

// The context of the sample just written (of type SAMPLE_TYPE), an event of its own right after
// it (metadata.cpp, jvmkit.SampleContext); nothing when the sample has none.
void ChunkWriter::context_event(int64_t ticks, uint64_t thread, TypeId sample_type, const EventContext& context) {
  if (context.labels.empty() && context.trace_id.empty() && context.span_id.empty()) return;
  scratch_.clear();
  scratch_.varint(kSampleContext);
  scratch_.varint_signed(ticks);
  scratch_.varint(thread);
  scratch_.string(find_type(sample_type)->name);
  for (std::string_view text : {context.labels, context.trace_id, context.span_id}) {
    if (text.empty()) {
      scratch_.null_string();
    } else {
      scratch_.string(text);
    }
  }
  commit(scratch_);
}

void ChunkWriter::execution_sample(int64_t ticks, uint64_t thread, uint64_t stack, const EventContext& context) {
  scratch_.clear();
  scratch_.varint(kExecutionSample);
  scratch_.varint_signed(ticks);
  scratch_.varint(thread);
  scratch_.varint(stack);
  scratch_.varint(kCpuState);
  commit(scratch_);
  context_event(ticks, thread, kExecutionSample, context);
}

void ChunkWriter::wall_clock_sample(int64_t ticks, uint64_t thread, uint64_t stack, const EventContext& context) {
  scratch_.clear();
  scratch_.varint(kWallClockSample);
  scratch_.varint_signed(ticks);
  scratch_.varint(thread);
  scratch_.varint(stack);
  scratch_.varint(kWallState);
  scratch_.varint_int(1);  // samples: this one
  commit(scratch_);
  context_event(ticks, thread, kWallClockSample, context);
}

void ChunkWriter::perf_event_sample(int64_t ticks, uint64_t thread, uint64_t stack, std::string_view event,
                                    int64_t weight, const EventContext& context) {
  scratch_.clear();
  scratch_.varint(kPerfEventSample);
  scratch_.varint_signed(ticks);
  scratch_.varint(thread);
  scratch_.varint(stack);
  scratch_.string(event);
  scratch_.varint_signed(weight);
  commit(scratch_);
  context_event(ticks, thread, kPerfEventSample, context);
}

void ChunkWriter::allocation_sample(int64_t ticks, uint64_t thread, uint64_t stack, uint64_t object_class,
                                    int64_t weight, const EventContext& context) {
  scratch_.clear();
  scratch_.varint(kObjectAllocationSample);
  scratch_.varint_signed(ticks);
  scratch_.varint(thread);
  scratch_.varint(stack);
  scratch_.varint(object_class);
  scratch_.varint_signed(weight);
  commit(scratch_);
  context_event(ticks, thread, kObjectAllocationSample, context);
}

void ChunkWriter::monitor_enter(int64_t start_ticks, int64_t duration, uint64_t thread, uint64_t stack,
                                uint64_t monitor_class, const EventContext& context) {
  scratch_.clear();
  scratch_.varint(kJavaMonitorEnter);
  scratch_.varint_signed(start_ticks);
  scratch_.varint_signed(duration);
  scratch_.varint(thread);
  scratch_.varint(stack);
  scratch_.varint(monitor_class);
  scratch_.varint(0);  // previousOwner: not known
  scratch_.varint(0);  // address: not known
  commit(scratch_);
  context_event(start_ticks, thread, kJavaMonitorEnter, context);
}

void ChunkWriter::thread_park(int64_t start_ticks, int64_t duration, uint64_t thread, uint64_t stack,
                              uint64_t parked_class, const EventContext& context) {
  scratch_.clear();
  scratch_.varint(kThreadPark);
  scratch_.varint_signed(start_ticks);
  scratch_.varint_signed(duration);
  scratch_.varint(thread);
  scratch_.varint(stack);
  scratch_.varint(parked_class);
  scratch_.varint_signed(kNoTime);  // timeout: not known
  scratch_.varint_signed(kNoTime);  // until: not known
  scratch_.varint(0);               // address: not known
  commit(scratch_);
  context_event(start_ticks, thread, kThreadPark, context);
}

void ChunkWriter::active_recording(int64_t ticks, const RecordingInfo& r) {
  scratch_.clear();
  scratch_.varint(kActiveRecording);
  scratch_.varint_signed(ticks);
  scratch_.varint(0);  // duration
  scratch_.varint(0);  // eventThread: none
  scratch_.varint(0);  // stackTrace: none
  scratch_.varint_signed(r.id);
  scratch_.string(r.name);
  scratch_.string(r.destination);
  scratch_.varint(0);  // maxAge: unbounded
  scratch_.varint_signed(r.flush_ms);
  scratch_.varint(0);  // maxSize: unbounded
  scratch_.varint_signed(r.start_ms);
  scratch_.varint_signed(r.duration_ms);
  commit(scratch_);
}

void ChunkWriter::active_setting(int64_t ticks, uint64_t event_type, std::string_view name, std::string_view value) {
  // JDK Mission Control reads the id as an event type of the chunk: the recording's own settings
  // are jdk.ActiveRecording's, as async-profiler writes them.
  if (event_type == 0) event_type = kActiveRecording;
  scratch_.clear();
  scratch_.varint(kActiveSetting);
  scratch_.varint_signed(ticks);
  scratch_.varint(0);  // duration
  scratch_.varint(0);  // eventThread
  scratch_.varint(0);  // stackTrace
  scratch_.varint(event_type);
  scratch_.string(name);
  scratch_.string(value);
  commit(scratch_);
}

size_t ChunkWriter::size() const {
  size_t n = events_.size() + classes_.size() + packages_.size() + methods_.size() + stacks_.size() + threads_.size();
  for (const auto& [key, s] : symbols_) n += s.size() + 8;
  return n;
}

void ChunkWriter::write_constant_pools(Buffer& out, int64_t ticks) const {
  Buffer body;
  body.varint(kConstantPoolEvent);
  body.varint_signed(ticks);
  body.varint(0);      // duration
  body.varint(0);      // delta to the previous constant-pool event: none, this is the chunk's only one
  body.boolean(true);  // flush: the pools are complete
  // A reader refuses an empty pool: only the pools that hold something are written.
  struct Pool {
    TypeId type;
    size_t count;
    const Buffer* entries;
  };
  Buffer symbols, frame_types, states;
  for (const auto& [key, s] : symbols_) {
    symbols.varint(key);
    symbols.utf8_bytes(s);
  }
  size_t frame_type_count = 0;
  auto frame_type = [&](FrameKind kind) {
    frame_types.varint(static_cast<uint64_t>(kind));
    frame_types.string(frame_kind_name(kind));
    frame_type_count++;
  };
  for (FrameKind kind : kJdkFrameKinds) frame_type(kind);
  for (FrameKind kind : kNativeCodeKinds)
    if ((frame_kinds_ & bit(kind)) != 0) frame_type(kind);
  for (const auto& [key, name] : kStates) {
    states.varint(key);
    states.string(name);
  }
  const Pool pools[] = {
      {kThread, thread_count_, &threads_},          {kStackTrace, stack_count_, &stacks_},
      {kMethod, method_count_, &methods_},          {kClass, class_count_, &classes_},
      {kPackage, package_count_, &packages_},       {kSymbol, symbols_.size(), &symbols},
      {kFrameType, frame_type_count, &frame_types}, {kThreadState, std::size(kStates), &states},
  };
  size_t written = 0;
  for (const Pool& p : pools) written += p.count > 0 ? 1 : 0;
  body.varint(written);
  for (const Pool& p : pools) {
    if (p.count == 0) continue;
    body.varint(p.type);
    body.varint(p.count);
    body.append(p.entries->bytes());
  }
  out.sized(body.bytes());
}

std::string ChunkWriter::finish(int64_t end_ticks, bool final) {
  Buffer out;
  out.append(std::string_view("FLR\0", 4));
  out.raw16(2);  // major
  out.raw16(0);  // minor
  const size_t size_at = out.size();
  out.raw64(0);  // chunk size, constant-pool offset, metadata offset: patched below
  out.raw64(0);
  out.raw64(0);
  out.raw64(static_cast<uint64_t>(start_nanos_));
  out.raw64(static_cast<uint64_t>(end_ticks > start_ticks_ ? end_ticks - start_ticks_ : 0));  // ns: 10^9 ticks/s
  out.raw64(static_cast<uint64_t>(start_ticks_));
  out.raw64(1'000'000'000);  // ticks per second
  out.u8(0);                 // file state: finished
  out.u8(0);
  out.u8(0);
  out.u8(kCompressedIntegersFlag | (final ? kFinalChunkFlag : 0));
  out.append(events_.bytes());
  const size_t pools_at = out.size();
  write_constant_pools(out, end_ticks);
  const size_t metadata_at = out.size();
  write_metadata_event(out, end_ticks);
  out.patch_raw64(size_at, out.size());
  out.patch_raw64(size_at + 8, pools_at);
  out.patch_raw64(size_at + 16, metadata_at);
  static_assert(kHeaderSize == 4 + 2 + 2 + 7 * 8 + 4);
  return out.take();
}

}  // namespace jvmkit::jfr
