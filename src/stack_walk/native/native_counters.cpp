#include "stack_walk/native/native_counters.hpp"

namespace jvmkit::walk {

NativeCounters& native_counters() noexcept {
  // Constant-initialised: usable from a signal handler before anything else ran.
  static constinit NativeCounters instance;
  return instance;
}

jvmkitNativeEnd api_end(NativeRunEnd end) noexcept {
  switch (end) {
    case NativeRunEnd::kUnpreparedLibrary:
      return JVMKIT_NATIVE_END_UNPREPARED_LIBRARY;
    case NativeRunEnd::kUnknownCode:
      return JVMKIT_NATIVE_END_UNKNOWN_CODE;
    case NativeRunEnd::kNoUnwindInfo:
      return JVMKIT_NATIVE_END_NO_UNWIND_INFO;
    case NativeRunEnd::kUnsupportedRule:
      return JVMKIT_NATIVE_END_UNSUPPORTED_RULE;
    case NativeRunEnd::kBadFrame:
      return JVMKIT_NATIVE_END_BAD_FRAME;
    default:
      return JVMKIT_NATIVE_END_DEPTH;
  }
}

void NativeCounters::count_run(NativeRunEnd end) noexcept {
  runs.fetch_add(1, std::memory_order_relaxed);
  if (end == NativeRunEnd::kJoin) {
    ended_at_java.fetch_add(1, std::memory_order_relaxed);
  } else if (end == NativeRunEnd::kOutermost) {
    ended_outermost.fetch_add(1, std::memory_order_relaxed);
  }
}

void NativeCounters::snapshot(jvmkitNativeCounters* out) const noexcept {
  out->requests = requests.load(std::memory_order_relaxed);
  out->native_only = native_only.load(std::memory_order_relaxed);
  out->frames_delivered = frames_delivered.load(std::memory_order_relaxed);
  out->runs = runs.load(std::memory_order_relaxed);
  out->ended_at_java = ended_at_java.load(std::memory_order_relaxed);
  out->ended_outermost = ended_outermost.load(std::memory_order_relaxed);
  for (int i = 0; i < JVMKIT_NATIVE_END_REASON_COUNT; i++) {
    out->ended_by_reason[i] = ended_by_reason[i].load(std::memory_order_relaxed);
  }
  out->objects_prepared = objects_prepared.load(std::memory_order_relaxed);
  out->objects_failed = objects_failed.load(std::memory_order_relaxed);
  out->unwind_rows = unwind_rows.load(std::memory_order_relaxed);
  out->prepare_ns = prepare_ns.load(std::memory_order_relaxed);
}

}  // namespace jvmkit::walk
