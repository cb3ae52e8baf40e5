#include "profiler/run/run_report.hpp"

#include "profiler/context/context_agent.hpp"

#include <cstdio>

#include <jvmkit/stack_walk.h>

#include "base/clock.hpp"

#include "profiler/engines/kernel_chains.hpp"
#include "profiler/engines/native_samples.hpp"
#include "profiler/engines/signal_sampler.hpp"
#include "profiler/run/walk_counts.hpp"

namespace jvmkit::prof {
namespace {

// The context labels' line: threads that used JvmkitContext, label sets, and what was refused
// (a full table of thread cells, sample records or label sets): "" when no thread used them.
std::string context_note(const ContextFigures& c) {
  if (!c.used) return "";
  std::string text =
      "context labels: " + std::to_string(c.slots.acquired) + " threads, " + std::to_string(c.sets) + " label sets";
  if (c.slots.overflowed > 0) text += "; " + std::to_string(c.slots.overflowed) + " threads refused (table full)";
  if (c.records_full > 0)
    text += "; " + std::to_string(c.records_full) + " samples without their labels (records full)";
  if (c.threads_refused > 0) {
    text +=
        "; " + std::to_string(c.threads_refused) + " virtual threads without labels (this JDK keeps no Java thread id)";
  }
  if (c.refused_sets > 0) text += "; " + std::to_string(c.refused_sets) + " label sets refused (bounds reached)";
  return text;
}

// How a JVM event is sampled, for the report.
std::string event_description(const EventSpec& event, const Options& options) {
  if (event.engine == EngineKind::kAlloc) {
    return "JVMTI SampledObjectAlloc, a sample every " + describe_size(options.alloc_bytes) +
           " allocated on average (weights: bytes each sample stands for)";
  }
  return "contended monitors (JVMTI MonitorContendedEnter/Entered) and parked threads (Unsafe.park), waits of " +
         describe_interval(event, options.lock_ns) + " or more (weights: ns waited)";
}

// The report's block of RUN's JVM event in SLOT, whose written profile is PROFILE.
EventBlock event_block(const Run& run, size_t slot, const Profile& profile, const Recording::Figures& f) {
  const EventSpec& spec = *run.options.events[slot];
  const bool lock = spec.engine == EngineKind::kLock;
  const EventRequestCounts now = event_request_counts(spec.engine);
  const EventRequestCounts& base = lock ? run.lock_base : run.alloc_base;
  EventBlock b;
  b.event = std::string(spec.name);
  b.description = event_description(spec, run.options);
  b.requested = now.requested - base.requested;
  b.dropped = now.dropped - base.dropped;
  b.delivered = f.by_event[slot].delivered;
  b.failed = f.by_event[slot].failed;
  b.empty = f.by_event[slot].empty;
  if (lock) b.below_threshold = now.below_threshold - base.below_threshold;
  b.waited = now.waited - base.waited;
  b.waited_ns = now.waited_ns - base.waited_ns;
  b.samples = profile.total_samples();
  b.weight = profile.total_weight();
  b.unit = spec.pprof_unit == "nanoseconds" ? "ns" : std::string(spec.pprof_unit);
  b.top = top_methods(profile, 10, true);
  if (lock && !run.park_note.empty()) b.notes.push_back("parking not sampled: " + run.park_note);
  if (const int64_t late = now.late - base.late; late > 0) {
    b.notes.push_back(std::to_string(late) +
                      " samples failed: their stack could not be taken at the event (the code on top was too new "
                      "for the walk) and a later one would charge other code");
  }
  if (!lock && run.options.live) {
    b.notes.push_back("live: " + std::to_string(f.freed) +
                      " samples of objects freed before the profile was written left out");
  }
  return b;
}

// The library counts every rejected RequestStackTrace; an event callback that found the pool full
// retries after a wait (event_samples.hpp), and its retried attempts lost no sample. Read before
// the library's counts, which count each of them first.
void leave_out_retried_attempts(int64_t retried, SampleCounts* counts) {
  for (auto& [reason, n] : counts->dropped_by_reason) {
    if (reason == JvmkitRejectReasonName(JVMKIT_REJECT_POOL_FULL)) n -= retried;
  }
}

// The library counts every failure by its reason; the samples of threads without Java code are
// counted apart (report.hpp), so they leave the no_java_frames reason.
void leave_out_no_java_code(int64_t no_java_code, SampleCounts* counts) {
  for (auto& [reason, n] : counts->failed_by_reason) {
    if (reason == JvmkitFailureReasonName(JVMKIT_FAILURE_NO_JAVA_FRAMES)) n -= no_java_code;
  }
}

}  // namespace

SampleCounts process_counts() {
  const int64_t retried =
      event_request_counts(EngineKind::kAlloc).retried + event_request_counts(EngineKind::kLock).retried;
  SampleCounts counts;
  read_signal_counts(&counts);
  add_stack_walk_counts(&counts);
  leave_out_retried_attempts(retried, &counts);
  return counts;
}

std::string run_report(const Run& run, const std::string& output_line, const std::vector<const Profile*>& profiles) {
  const Recording::Figures f = run.recording->figures();
  ReportInput in;
  in.signal_event = run.options.event != nullptr;
  in.engine = run.engine ? run.engine->description() : "";
  in.seconds = static_cast<double>(jvmkit::monotonic_ns() - run.start_mono_ns) / 1e9;
  in.counts = counts_since(process_counts(), run.base);
  in.counts.delivered = f.counts.delivered;
  in.counts.failed = f.counts.failed;
  in.counts.empty = f.counts.empty;
  in.counts.failed_by_thread = failures_by_thread(f.failures_by_tid);
  in.counts.no_java_code = f.counts.no_java_code;
  in.counts.no_java_code_by_thread = failures_by_thread(f.no_java_code_by_tid);
  leave_out_no_java_code(f.counts.no_java_code, &in.counts);
  const size_t signal = run.recording->signal_slot();
  if (signal != Recording::kNoSlot && signal < profiles.size()) {
    in.top = top_methods(*profiles[signal], 10);
    in.total_samples = profiles[signal]->total_samples();
  }
  if (run.options.cstack == CStack::kNative) {
    NativeFigures native = f.native;
    native.objects_prepared = run.native_tables.objects_prepared;
    native.objects_failed = run.native_tables.objects_failed;
    native.unwind_rows = run.native_tables.unwind_rows;
    native.prepare_ns = run.native_tables.prepare_ns;
    native.enable_ns = run.enable_ns;
    const KernelChainsState kernel = run.engine ? run.engine->kernel_chains() : KernelChainsState{};
    native.kernel_active = kernel.active;
    native.kernel_why_not = run.engine ? kernel.why_not : "no signal event";
    const KernelChainCounts chains = read_kernel_chain_counts();
    native.kernel_unmatched = chains.unmatched - run.kernel_base.unmatched;
    native.kernel_threads_without_ring = chains.threads_without_ring - run.kernel_base.threads_without_ring;
    if (kernel.active) native.kernel_unnamed_why = kernel_symbols_refusal();
    in.native = native_report_lines(native, marker_labels());
  }
  if (!run.native_off_note.empty()) in.notes.push_back(run.native_off_note);
  for (size_t i = 0; i < run.options.events.size() && i < profiles.size(); i++) {
    if (i != signal) in.events.push_back(event_block(run, i, *profiles[i], f));
  }
  if (f.truncated > 0) {
    in.notes.push_back(std::to_string(f.truncated) + " samples deeper than depth=" + std::to_string(run.options.depth) +
                       " frames, cut at the root end ([truncated])");
  }
  if (f.overflow > 0) {
    in.notes.push_back(std::to_string(f.overflow) + " samples past the profile's bound of max_stacks=" +
                       std::to_string(run.options.max_stacks) + " merged into [overflow]");
  }
  if (const int64_t dropped = run.recording->timeline_dropped(); dropped > 0) {
    in.notes.push_back("jfr: " + std::to_string(dropped) + " samples left out of the recording: more than " +
                       std::to_string(Timeline::kMaxSamples) +
                       " waited for a chunk at once (they are in the other outputs)");
  }
  int64_t with_frames = 0;  // delivered traces with frames, every event
  for (const SampleCounts& c : f.by_event) with_frames += c.delivered - c.empty;
  if (run.options.loop_ns > 0) {
    in.notes.push_back("continuous: " + std::to_string(f.windows_taken) + " windows, " +
                       std::to_string(f.samples_in_taken_windows) + " samples in them; delivered with frames " +
                       std::to_string(with_frames) +
                       (f.samples_in_taken_windows == with_frames ? " (equal)" : " (DIFFER)"));
  }
  if (f.counts.delivered > 0 && f.biased > 0) {
    // Biased traces: taken at a safepoint, in compiled code whose debug information places a
    // sample only at the next safepoint (code compiled before an attach), or not proven to be the
    // thread's whole stack (a thread without a known bottom frame, see docs/stack_walk.md).
    char text[320];
    std::snprintf(
        text, sizeof(text), "%lld of %lld traces (%.1f%%) biased (placed at a safepoint or not proven whole)%s",
        static_cast<long long>(f.biased), static_cast<long long>(f.counts.delivered),
        100.0 * static_cast<double>(f.biased) / static_cast<double>(f.counts.delivered),
        run.coarse_code_before ? ": code compiled before the attach places samples only at safepoints; code compiled "
                                 "since is exact (start the JVM with -XX:+UnlockDiagnosticVMOptions "
                                 "-XX:+DebugNonSafepoints to have it exact everywhere)"
                               : "");
    in.notes.push_back(text);
  }
  if (const std::string labels = context_note(context_figures()); !labels.empty()) in.notes.push_back(labels);
  in.output = output_line;
  return report_text(in);
}

}  // namespace jvmkit::prof
