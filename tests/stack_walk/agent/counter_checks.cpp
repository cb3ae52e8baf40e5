// The final checks of the library's counters: against what the callbacks saw (check_accounting),
// and the recovery counters (check_recovery).
#include <algorithm>
#include <cstdio>

#include "agent.hpp"
#include "trace_state.hpp"

namespace walktest {

bool check_recovery() {
  jvmkitRecoveryCounters r;
  if (JvmkitGetRecoveryCounters(&r) != JVMTI_ERROR_NONE) {
    violation("JvmkitGetRecoveryCounters failed");
    return false;
  }
  jvmkitStackWalkCounters c;
  JvmkitGetStackWalkCounters(&c);
  int64_t recovered = 0, unrecovered = 0;
  std::fprintf(stderr, "RECOVERY: attempted %lld |", (long long)r.attempted);
  for (int k = 0; k < JVMKIT_RECOVERY_KIND_COUNT; k++) {
    recovered += r.recovered_by_kind[k];
    std::fprintf(stderr, " %s %lld", JvmkitRecoveryKindName(static_cast<jvmkitRecoveryKind>(k)),
                 (long long)r.recovered_by_kind[k]);
  }
  std::fprintf(stderr, " | unrecovered:");
  for (int k = 0; k < JVMKIT_UNRECOVERED_REASON_COUNT; k++) {
    unrecovered += r.unrecovered_by_reason[k];
    std::fprintf(stderr, " %s %lld", JvmkitUnrecoveredReasonName(static_cast<jvmkitUnrecoveredReason>(k)),
                 (long long)r.unrecovered_by_reason[k]);
  }
  double failed_pct = c.accepted ? 100.0 * static_cast<double>(c.failed) / static_cast<double>(c.accepted) : 0;
  std::fprintf(stderr, "\nRECOVERY: recovered %lld (%.2f%% of %lld accepted), failed %lld (%.3f%%)\n",
               (long long)recovered, c.accepted ? 100.0 * static_cast<double>(recovered) / c.accepted : 0.0,
               (long long)c.accepted, (long long)c.failed, failed_pct);
  int before = violations();
  if (r.attempted != recovered + unrecovered) violation("recovery: attempted != recovered + unrecovered");
  // max_failed_permille limits the walks that failed. Failures while a GC moved objects or the
  // thread ran the deoptimization handler come from the moment, not the walk (async-profiler shows
  // them as such); they are limited apart, to 5%: a run with more did not measure the walk.
  // Both are judged per moment: a signal sample that repeated its thread's previous moment (the
  // thread waited for a CPU with several signals queued, handled back to back at one PC: ud_repeat)
  // is counted once, delivered or failed.
  int64_t repeats = 0, repeated_moment_failed = 0, repeated_failed = 0;
  for (int i = 0; i < std::min(g_tracked_count.load(), kMaxTracked); i++) {
    const Tracked& t = g_tracked[i];
    repeats += repeats_of(t);
    for (int reason = 0; reason < JVMKIT_FAILURE_REASON_COUNT; reason++)
      repeated_failed += t.repeats_failed_by_reason[reason];
    repeated_moment_failed +=
        t.repeats_failed_by_reason[JVMKIT_FAILURE_GC_ACTIVE] + t.repeats_failed_by_reason[JVMKIT_FAILURE_DEOPTIMIZING];
  }
  const int64_t moment_failed = c.failed_by_reason[JVMKIT_FAILURE_GC_ACTIVE] +
                                c.failed_by_reason[JVMKIT_FAILURE_DEOPTIMIZING] - repeated_moment_failed;
  const int64_t walk_failed = c.failed - repeated_failed - moment_failed;
  const int64_t moments = c.accepted - repeats;
  const long max_permille = option_long("max_failed_permille", -1);
  if (max_permille >= 0) {
    std::fprintf(stderr,
                 "RECOVERY: of %lld moments (accepted requests but %lld repeated samples), walks failed %lld (%.3f%%, "
                 "allowed %.1f%%), gc_active or deoptimizing %lld\n",
                 (long long)moments, (long long)repeats, (long long)walk_failed,
                 moments ? 100.0 * walk_failed / moments : 0.0, max_permille / 10.0, (long long)moment_failed);
    if (walk_failed * 1000 > moments * max_permille)
      violation("%lld of %lld walks failed (allowed %.1f%%)", (long long)walk_failed, (long long)moments,
                max_permille / 10.0);
    if (moment_failed * 20 > moments)
      violation("%lld of %lld requests failed as gc_active or deoptimizing (allowed 5%%)", (long long)moment_failed,
                (long long)moments);
  }
  long min_recovered = option_long("min_recovered", -1);
  if (min_recovered >= 0 && recovered < min_recovered) {
    violation("only %lld samples recovered (want >= %ld)", (long long)recovered, min_recovered);
  }
  return violations() == before;
}

bool check_accounting(const char* when, bool expect_pending_zero) {
  jvmkitStackWalkCounters c;
  if (JvmkitGetStackWalkCounters(&c) != JVMTI_ERROR_NONE) {
    violation("JvmkitGetStackWalkCounters failed");
    return false;
  }
  Seen s = seen();
  SamplerTotals t = sampler_totals();
  std::fprintf(stderr,
               "[%s] send failures %lld, sent %lld handled %lld returned_ok %lld returned_error %lld not_available "
               "%lld | accepted %lld "
               "delivered %lld (unbiased %lld, truncated %lld) failed %lld pending %lld rejected %lld | begins %lld "
               "ends %lld failures %lld frames %lld\n",
               when, (long long)sampler_send_failures(), (long long)t.sent, (long long)t.handled,
               (long long)t.returned_ok, (long long)t.returned_error, (long long)t.returned_not_available,
               (long long)c.accepted, (long long)c.delivered, (long long)c.unbiased, (long long)c.truncated,
               (long long)c.failed, (long long)c.pending, (long long)c.rejected, (long long)s.begins, (long long)s.ends,
               (long long)s.failures, (long long)s.frames);
  for (int r = 0; r < JVMKIT_FAILURE_REASON_COUNT; r++) {
    if (c.failed_by_reason[r]) {
      std::fprintf(stderr, "  failed %s: %lld\n", JvmkitFailureReasonName(static_cast<jvmkitFailureReason>(r)),
                   (long long)c.failed_by_reason[r]);
    }
  }
  for (int r = 0; r < JVMKIT_REJECT_REASON_COUNT; r++) {
    if (c.rejected_by_reason[r]) {
      std::fprintf(stderr, "  rejected %s: %lld\n", JvmkitRejectReasonName(static_cast<jvmkitRejectReason>(r)),
                   (long long)c.rejected_by_reason[r]);
    }
  }
  int before = violations();
  if (c.accepted != c.delivered + c.failed + c.pending) violation("accepted != delivered + failed + pending");
  if (expect_pending_zero && c.pending != 0) violation("pending %lld after Disable", (long long)c.pending);
  if (c.delivered != s.begins || s.begins != s.ends) violation("delivered/begins/ends differ");
  if (c.failed != s.failures)
    violation("failed counter %lld != failure callbacks %lld", (long long)c.failed, (long long)s.failures);
  if (c.unbiased != s.unbiased_begins) violation("unbiased counter != unbiased begins");
  int64_t failed_sum = 0, rejected_sum = 0;
  for (auto v : c.failed_by_reason) failed_sum += v;
  for (auto v : c.rejected_by_reason) rejected_sum += v;
  if (failed_sum != c.failed) violation("failed_by_reason does not add up");
  // Each failure callback was told its reason, and the reasons told add up to the counters.
  if (s.failures_without_reason != 0)
    violation("%lld failure callbacks without a reason", (long long)s.failures_without_reason);
  for (int r = 0; r < JVMKIT_FAILURE_REASON_COUNT; r++) {
    if (s.failures_by_reason[r] != c.failed_by_reason[r]) {
      violation("failure callbacks told %s %lld times, counted %lld",
                JvmkitFailureReasonName(static_cast<jvmkitFailureReason>(r)), (long long)s.failures_by_reason[r],
                (long long)c.failed_by_reason[r]);
    }
  }
  if (JvmkitCurrentFailureReason() != JVMKIT_FAILURE_REASON_COUNT)
    violation("JvmkitCurrentFailureReason outside a failure callback returned a reason");
  // Every trace the callbacks saw flagged is counted, and only those.
  if (c.truncated != s.truncated_begins)
    violation("truncated counter %lld != traces flagged truncated %lld", (long long)c.truncated,
              (long long)s.truncated_begins);
  if (JvmkitCurrentTraceTruncated() != JNI_FALSE)
    violation("JvmkitCurrentTraceTruncated outside a trace said JNI_TRUE");
  if (g_flag_errors.load() != 0) violation("%lld truncation flag errors", (long long)g_flag_errors.load());
  if (rejected_sum != c.rejected) violation("rejected_by_reason does not add up");
  return violations() == before;
}

}  // namespace walktest
