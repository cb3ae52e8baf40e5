#include "stack_walk/signal/failed_samples.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>

namespace jvmkit::walk {

namespace {

// Claimed by an index, written, then published by its own flag: a reader never sees half a sample.
FailedSample g_samples[kMaxFailedSamples];
std::atomic<bool> g_written[kMaxFailedSamples];
std::atomic<int> g_claimed{0};
std::atomic<bool> g_kept{false};

const char* kind_name(bool known, CodeKind kind, const char* name) {
  if (!known) return "unknown code";
  switch (kind) {
    case CodeKind::kNMethod:
      return "nmethod";
    case CodeKind::kInterpreter:
      return "interpreter";
    default:
      return name != nullptr ? name : "stub";
  }
}

void print_symbol(const char* what, uintptr_t pc) {
  Dl_info info{};
  if (pc == 0 || dladdr(reinterpret_cast<void*>(pc), &info) == 0 || info.dli_fname == nullptr) return;
  const char* file = info.dli_fname;
  for (const char* p = file; *p != '\0'; p++) {
    if (*p == '/') file = p + 1;
  }
  // The offset in the file's mapping: `nm` or `addr2line` on the file names what is not exported.
  std::fprintf(stderr, " %s=%s+%#lx(%s)", what, file,
               static_cast<unsigned long>(pc - reinterpret_cast<uintptr_t>(info.dli_fbase)),
               info.dli_sname != nullptr ? info.dli_sname : "?");
}

}  // namespace

void keep_failed_samples(bool on) noexcept { g_kept.store(on, std::memory_order_relaxed); }
JVMKIT_SIGNAL_SAFE bool failed_samples_kept() noexcept { return g_kept.load(std::memory_order_relaxed); }

JVMKIT_SIGNAL_SAFE void keep_failed_sample(const FailedSample& sample) noexcept {
  if (g_claimed.load(std::memory_order_relaxed) >= kMaxFailedSamples) return;
  const int index = g_claimed.fetch_add(1, std::memory_order_relaxed);
  if (index >= kMaxFailedSamples) return;
  g_samples[index] = sample;
  g_written[index].store(true, std::memory_order_release);
}

void print_failed_samples() {
  const int count = std::min(g_claimed.load(), kMaxFailedSamples);
  std::fprintf(stderr, "jvmkit: %d failed samples kept\n", count);
  for (int i = 0; i < count; i++) {
    if (!g_written[i].load(std::memory_order_acquire)) continue;
    const FailedSample& s = g_samples[i];
    std::fprintf(stderr, "  failed %d (first %d) pc %#lx in %s, anchor sp %#lx (sp+%ld) pc %#lx in %s", s.final,
                 s.first, static_cast<unsigned long>(s.pc), kind_name(s.known, s.kind, s.name),
                 static_cast<unsigned long>(s.anchor_sp), static_cast<long>(s.anchor_sp - s.sp),
                 static_cast<unsigned long>(s.anchor_pc), kind_name(s.anchor_known, s.anchor_kind, s.anchor_name));
    std::fprintf(stderr, " poll %#lx%s, first Java frame %s", static_cast<unsigned long>(s.poll_pc),
                 s.poll_in_nmethod ? " (nmethod)" : "", s.first_java_frame ? "found" : "not found");
    if (s.first_java_frame) {
      std::fprintf(stderr, ", walk end %d after %d frames, last %s %s", s.walk_end, s.walk_frames,
                   kind_name(true, s.walk_last_kind, "stub"), s.walk_last_known ? "described" : "not described");
    }
    print_symbol("at", s.pc);
    print_symbol("anchor", s.anchor_pc);
    std::fprintf(stderr, "\n");
  }
}

}  // namespace jvmkit::walk
