#include "profiler/outputs/jfr_chunk.hpp"

#include <cstdio>
#include <unordered_map>

#include "jfr/chunk_writer.hpp"
#include "jfr/metadata.hpp"
#include "profiler/engines/engine.hpp"

namespace jvmkit::prof {

namespace {

using jfr::FrameKind;

constexpr std::string_view kNoBlocker = "[no blocker]";  // lock_sampler.cpp's class of such a park

// The JFR event type of a sample of EVENT (a lock sample: of a monitor; park samples are
// jdk.ThreadPark).
jfr::TypeId jfr_type(const EventSpec& event) {
  switch (event.engine) {
    case EngineKind::kCpu:
    case EngineKind::kItimer:
      return jfr::kExecutionSample;
    case EngineKind::kWall:
      return jfr::kWallClockSample;
    case EngineKind::kPerf:
      return jfr::kPerfEventSample;
    case EngineKind::kAlloc:
      return jfr::kObjectAllocationSample;
    case EngineKind::kLock:
      return jfr::kJavaMonitorEnter;
  }
  return jfr::kExecutionSample;
}

// A Java frame's class and method: "java.lang.String.hashCode" -> "java.lang.String", "hashCode"
// (a Java method's name has no dot; a class name may have '/' and '$', never after the last dot).
std::pair<std::string_view, std::string_view> split_java_name(std::string_view name) {
  const size_t dot = name.rfind('.');
  if (dot == std::string_view::npos) return {std::string_view(), name};
  return {name.substr(0, dot), name.substr(dot + 1)};
}

// A sample's trace and span ids as OpenTelemetry prints them: lower-case hex, 32 and 16 digits;
// empty when the sample has none.
class SpanText {
 public:
  explicit SpanText(const TimedSample& s) {
    if (s.trace_high == 0 && s.trace_low == 0 && s.span == 0) return;
    std::snprintf(trace_, sizeof(trace_), "%016llx%016llx", static_cast<unsigned long long>(s.trace_high),
                  static_cast<unsigned long long>(s.trace_low));
    std::snprintf(span_, sizeof(span_), "%016llx", static_cast<unsigned long long>(s.span));
  }
  std::string_view trace_id() const { return trace_; }
  std::string_view span_id() const { return span_; }

 private:
  char trace_[33] = "";
  char span_[17] = "";
};

// Builds the chunk's pools from the profiles: a stack per (event, node), a method per (event,
// profile method), a thread per timeline thread, each added once.
class ChunkBuilder {
 public:
  ChunkBuilder(jfr::ChunkWriter* w, const std::vector<const Profile*>& profiles,
               const std::vector<SampleThread>& threads)
      : w_(w), profiles_(profiles), threads_(threads) {}

  uint64_t thread(uint32_t index) {
    auto [it, added] = thread_keys_.try_emplace(index, 0);
    if (added) {
      const SampleThread& t = threads_[index];
      it->second = w_->add_thread(
          {t.tid, t.is_virtual ? std::string_view() : std::string_view(t.name), t.java_tid, t.name, t.is_virtual});
    }
    return it->second;
  }

  // The stack of NODE in SLOT's profile, and the class that is its leaf frame (alloc, lock).
  struct Stack {
    uint64_t key = 0;
    uint64_t leaf_class = 0;
    std::string labels;  // the request-context labels of its label frame, "" for none
  };
  Stack stack(uint16_t slot, uint32_t node) {
    const uint64_t id = static_cast<uint64_t>(slot) << 32 | node;
    auto [it, added] = stacks_.try_emplace(id);
    if (added) it->second = make_stack(slot, node);
    return it->second;
  }

 private:
  Stack make_stack(uint16_t slot, uint32_t node) {
    const Profile& p = *profiles_[slot];
    Stack out;
    bool truncated = false;
    frames_.clear();
    for (uint32_t n = node; n != Profile::kRoot; n = p.nodes()[n].parent) {
      const Frame& f = p.nodes()[n].frame;
      const Method& m = p.methods()[f.method];
      switch (f.type) {
        case FrameType::kThread:
          break;
        case FrameType::kLabels:
          if (const std::vector<Label>* labels = p.labels_of(f.method)) out.labels = labels_text(*labels);
          break;
        case FrameType::kClass:
          // A park without a blocker names no class: JFR's null.
          out.leaf_class = m.name == kNoBlocker ? 0 : w_->add_class(m.name);
          break;
        case FrameType::kSynthetic:
          if (m.name == Profile::kTruncatedName) {
            truncated = true;
          } else {
            frames_.push_back({w_->add_method(0, m.name, ""), 0, -1, FrameKind::kNative});
          }
          break;
        case FrameType::kNativeCode:
        case FrameType::kJvm:
          frames_.push_back({w_->add_method(0, m.name, ""), 0, -1, FrameKind::kCpp});
          break;
        case FrameType::kKernel:
          frames_.push_back({w_->add_method(0, m.name, ""), 0, -1, FrameKind::kKernel});
          break;
        default:
          frames_.push_back({java_method(slot, f.method), f.line, f.bci, java_kind(f.type)});
      }
    }
    out.key = w_->add_stack(frames_, truncated);
    return out;
  }

  uint64_t java_method(uint16_t slot, uint32_t method) {
    const uint64_t id = static_cast<uint64_t>(slot) << 32 | method;
    auto [it, added] = methods_.try_emplace(id, 0);
    if (added) {
      const Method& m = profiles_[slot]->methods()[method];
      const auto [klass, name] = split_java_name(m.name);
      it->second = w_->add_method(klass.empty() ? 0 : w_->add_class(klass), name, m.descriptor);
    }
    return it->second;
  }

  static FrameKind java_kind(FrameType type) {
    switch (type) {
      case FrameType::kInterpreted:
        return FrameKind::kInterpreted;
      case FrameType::kInlined:
        return FrameKind::kInlined;
      case FrameType::kNative:
        return FrameKind::kNative;
      default:
        return FrameKind::kJit;
    }
  }

  jfr::ChunkWriter* w_;
  const std::vector<const Profile*>& profiles_;
  const std::vector<SampleThread>& threads_;
  std::unordered_map<uint32_t, uint64_t> thread_keys_;
  std::unordered_map<uint64_t, Stack> stacks_;
  std::unordered_map<uint64_t, uint64_t> methods_;
  std::vector<jfr::StackFrame> frames_;
};

// The recording and its options, as JFR's own recordings state them in every chunk.
void write_recording_events(jfr::ChunkWriter& w, const Options& options, const std::string& path,
                            const JfrChunkSpan& span) {
  const int64_t at = span.start_mono_ns;
  jfr::RecordingInfo r;
  r.name = "jvmkit";
  r.destination = path;
  r.flush_ms = options.chunk_ns / 1'000'000;
  r.start_ms = span.recording_start_wall_ns / 1'000'000;
  r.duration_ms = (span.end_mono_ns - span.anchor_mono_ns) / 1'000'000;
  w.active_recording(at, r);
  for (const EventSpec* e : options.events) {
    const std::string interval = describe_interval(*e, options.interval_of(*e));
    const char* name = e->engine == EngineKind::kLock ? "threshold" : "period";
    std::vector<jfr::TypeId> types = {jfr_type(*e)};
    if (e->engine == EngineKind::kLock) types.push_back(jfr::kThreadPark);
    for (jfr::TypeId type : types) {
      w.active_setting(at, type, "enabled", "true");
      w.active_setting(at, type, name, interval);
    }
  }
  // The profiler's own options, as settings of the recording (ChunkWriter writes them as
  // jdk.ActiveRecording's).
  w.active_setting(at, 0, "jvmkit.events", events_text(options));
  w.active_setting(at, 0, "jvmkit.cstack", options.cstack == CStack::kNative ? "native" : "no");
  w.active_setting(at, 0, "jvmkit.depth", std::to_string(options.depth));
  w.active_setting(at, 0, "jvmkit.chunktime", std::to_string(options.chunk_ns / 1'000'000) + " ms");
  if (options.loop_ns > 0) w.active_setting(at, 0, "jvmkit.loop", std::to_string(options.loop_ns / 1'000'000) + " ms");
}

}  // namespace

std::string jfr_chunk(const Options& options, const std::string& path, const JfrChunkSpan& span,
                      const std::vector<const Profile*>& profiles, const std::vector<TimedSample>& samples,
                      const std::vector<SampleThread>& threads) {
  jfr::ChunkWriter w(span.anchor_wall_ns + (span.start_mono_ns - span.anchor_mono_ns), span.start_mono_ns,
                     *span.next_key);
  write_recording_events(w, options, path, span);
  ChunkBuilder pools(&w, profiles, threads);
  for (const TimedSample& s : samples) {
    if (s.slot >= profiles.size() || s.slot >= options.events.size()) continue;
    const EventSpec& event = *options.events[s.slot];
    const uint64_t thread = pools.thread(s.thread);
    const ChunkBuilder::Stack stack = pools.stack(s.slot, s.node);
    const SpanText span(s);
    const jfr::EventContext context{stack.labels, span.trace_id(), span.span_id()};
    switch (event.engine) {
      case EngineKind::kCpu:
      case EngineKind::kItimer:
        w.execution_sample(s.time_ns, thread, stack.key, context);
        break;
      case EngineKind::kWall:
        w.wall_clock_sample(s.time_ns, thread, stack.key, context);
        break;
      case EngineKind::kPerf:
        w.perf_event_sample(s.time_ns, thread, stack.key, event.name, s.weight, context);
        break;
      case EngineKind::kAlloc:
        w.allocation_sample(s.time_ns, thread, stack.key, stack.leaf_class, s.weight, context);
        break;
      case EngineKind::kLock:
        // The stack is taken when the wait ends: the event starts a wait earlier.
        if (s.park) {
          w.thread_park(s.time_ns - s.weight, s.weight, thread, stack.key, stack.leaf_class, context);
        } else {
          w.monitor_enter(s.time_ns - s.weight, s.weight, thread, stack.key, stack.leaf_class, context);
        }
        break;
    }
  }
  std::string bytes = w.finish(span.end_mono_ns, span.final);
  *span.next_key = w.next_key();
  return bytes;
}

}  // namespace jvmkit::prof
