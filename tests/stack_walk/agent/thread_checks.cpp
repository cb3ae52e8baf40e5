// The tracked threads' samples counted per moment, and the end-of-run check of each tracked thread
// (check_threads).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "agent.hpp"

namespace walktest {

int64_t repeats_of(const Tracked& t) {
  int64_t repeats = t.repeats_delivered.load();
  for (const auto& r : t.repeats_failed_by_reason) repeats += r.load();
  return repeats;
}

int64_t moments_of(const Tracked& t) { return t.delivered.load() + t.failed.load() - repeats_of(t); }

int64_t fewest_moments(const char* prefix) {
  int64_t fewest = -1;
  for (int i = 0; i < std::min(g_tracked_count.load(), kMaxTracked); i++) {
    const Tracked& t = g_tracked[i];
    if (std::strncmp(t.name, prefix, std::strlen(prefix)) != 0) continue;
    const int64_t m = moments_of(t);
    if (fewest < 0 || m < fewest) fewest = m;
  }
  return fewest < 0 ? 0 : fewest;
}

namespace {

bool check_tracked_threads(const char* prefix, long min_delivered) {
  bool ok = true;
  int found = 0;
  for (int i = 0; i < std::min(g_tracked_count.load(), kMaxTracked); i++) {
    Tracked& t = g_tracked[i];
    if (std::strncmp(t.name, prefix, std::strlen(prefix)) != 0) continue;
    found++;
    std::fprintf(stderr, "  thread %-24s delivered %lld failed %lld, moments %lld (the other samples repeated one)\n",
                 t.name, (long long)t.delivered.load(), (long long)t.failed.load(), (long long)moments_of(t));
    if (!option("require_method", "").empty()) {
      int64_t missing = t.missing_required.load();
      std::fprintf(stderr, "    traces without %s: %lld\n", option("require_method", "").c_str(), (long long)missing);
      // Counted from the thread's first trace with the method on: a sample may still land between
      // two calls of it, or after it returned for good (thread end). Per moment, as counted.
      const int64_t delivered_moments = t.delivered.load() - t.repeats_delivered.load();
      if (missing * 1000 > delivered_moments * option_long("max_missing_permille", 5)) {
        violation("thread %s: %lld traces lack a %s frame", t.name, (long long)missing,
                  option("require_method", "").c_str());
        ok = false;
      }
    }
    for (int r = 0; r < JVMKIT_FAILURE_REASON_COUNT; r++) {
      if (t.failed_by_reason[r].load() != 0)
        std::fprintf(stderr, "    failed %s: %lld\n", JvmkitFailureReasonName(static_cast<jvmkitFailureReason>(r)),
                     (long long)t.failed_by_reason[r].load());
    }
    // Option strict=NAME/NAME...: walks of these threads through Java code (where stub and prologue
    // recovery works) may fail at most max_strict_failed_permille of their requests: not_walkable,
    // cut_short. Failures of walks from VM or native code (no_java_frames), while a GC moves objects
    // or in the deoptimization handler are not counted here; the overall limit covers them. Judged
    // per moment: a sample that repeated the thread's previous moment (ud_repeat: the thread waited
    // for a CPU with several signals queued, handled back to back at one PC) is not counted again.
    const std::string strict = "/" + option("strict", "") + "/";
    if (strict.find("/" + std::string(t.name) + "/") != std::string::npos) {
      const int64_t failed = t.failed.load(), all = failed + t.delivered.load(), repeats = repeats_of(t);
      const int kinds[] = {JVMKIT_FAILURE_NOT_WALKABLE, JVMKIT_FAILURE_CUT_SHORT, JVMKIT_FAILURE_OTHER};
      int64_t walk_failed = 0, repeated_walk_failed = 0;
      for (int kind : kinds) {
        walk_failed += t.failed_by_reason[kind].load();
        repeated_walk_failed += t.repeats_failed_by_reason[kind].load();
      }
      const int64_t moments = all - repeats, moment_walk_failed = walk_failed - repeated_walk_failed;
      const long limit = option_long("max_strict_failed_permille", 5);
      std::fprintf(stderr,
                   "    walks through Java code failed %.3f%% of %lld moments (allowed %.1f%%); counting the %lld "
                   "repeated samples too: %lld of %lld (%.3f%%)\n",
                   moments ? 100.0 * moment_walk_failed / moments : 0.0, (long long)moments, limit / 10.0,
                   (long long)repeats, (long long)walk_failed, (long long)all, all ? 100.0 * walk_failed / all : 0.0);
      if (moment_walk_failed * 1000 > moments * limit) {
        violation("thread %s: %lld of %lld walks failed (allowed %.1f%%)", t.name, (long long)moment_walk_failed,
                  (long long)moments, limit / 10.0);
        ok = false;
      }
      // A percentage of a few hundred moments says little: option min_strict_moments.
      if (moments < option_long("min_strict_moments", 0)) {
        violation("thread %s: only %lld moments sampled (want >= %ld)", t.name, (long long)moments,
                  option_long("min_strict_moments", 0));
        ok = false;
      }
    }
    if (t.delivered.load() < min_delivered) {
      violation("thread %s: only %lld traces delivered (want >= %ld)", t.name, (long long)t.delivered.load(),
                min_delivered);
      ok = false;
    }
  }
  if (found == 0) {
    violation("no tracked thread named %s*", prefix);
    ok = false;
  }
  return ok;
}

}  // namespace

bool check_threads(const char* prefix, long min_delivered) { return check_tracked_threads(prefix, min_delivered); }

}  // namespace walktest
