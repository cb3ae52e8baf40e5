#include "profiler/recording/report.hpp"

#include <gtest/gtest.h>

namespace jvmkit::prof {
namespace {

TEST(Report, NamesEveryCountTheTopMethodsAndTheOutput) {
  ReportInput in;
  in.engine = "cpu: test engine";
  in.seconds = 2.5;
  in.counts.requested = 1000;
  in.counts.delivered = 990;
  in.counts.failed = 7;
  in.counts.dropped = 3;
  in.counts.signals = 1010;
  in.counts.not_java = 10;
  in.counts.failed_by_reason = {{"not_walkable", 5}, {"gc_active", 2}, {"other", 0}};
  in.counts.dropped_by_reason = {{"pool_full", 3}};
  in.counts.failed_by_thread = {{"'C2 CompilerThre' (tid 12)", 6}, {"other threads", 1}};
  in.top = {{"app.Hot.run", 700}, {"app.Cold.run", 290}};
  in.total_samples = 990;
  in.output = "wrote html output (990 samples) to /tmp/x.html";
  std::string text = report_text(in);
  EXPECT_NE(text.find("cpu: test engine"), std::string::npos);
  EXPECT_NE(text.find("samples requested 1000, delivered 990, failed 7, dropped 3"), std::string::npos) << text;
  EXPECT_NE(text.find("on non-Java threads 10"), std::string::npos);
  EXPECT_NE(text.find("failed by reason: not_walkable 5, gc_active 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("dropped by reason: pool_full 3"), std::string::npos);
  EXPECT_NE(text.find("failed by thread: 'C2 CompilerThre' (tid 12) 6, other threads 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("     700  70.71%  app.Hot.run"), std::string::npos) << text;
  EXPECT_NE(text.find("app.Cold.run"), std::string::npos);
  EXPECT_NE(text.find("to /tmp/x.html"), std::string::npos);
}

// Java frames only: samples of threads that had no Java frame (JIT compilers, the JVM's start and
// exit) are neither failures nor silent: a count of their own, with its reason and threads.
TEST(Report, SamplesWithoutJavaCodeAreCountedApartFromFailures) {
  ReportInput in;
  in.engine = "cpu: test engine";
  in.counts.requested = 1000;
  in.counts.delivered = 950;
  in.counts.failed = 2;
  in.counts.no_java_code = 48;
  in.counts.failed_by_reason = {{"no_java_frames", 0}, {"not_walkable", 2}};
  in.counts.no_java_code_by_thread = {{"'C2 CompilerThre' (tid 12)", 40}, {"'java' (tid 7)", 8}};
  const std::string text = report_text(in);
  EXPECT_NE(text.find("failed 2, dropped 0"), std::string::npos) << text;
  EXPECT_NE(text.find("without Java code 48"), std::string::npos) << text;
  EXPECT_NE(text.find("failed by reason: not_walkable 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("48 samples of threads running no Java code"), std::string::npos) << text;
  EXPECT_NE(text.find("cstack=native shows"), std::string::npos) << text;
  EXPECT_NE(text.find("without Java code by thread: 'C2 CompilerThre' (tid 12) 40, 'java' (tid 7) 8\n"),
            std::string::npos)
      << text;
  in.counts.no_java_code = 0;
  in.counts.no_java_code_by_thread.clear();
  EXPECT_EQ(report_text(in).find("running no Java code"), std::string::npos);
}

// A run of JVM events only: no signal block, a block per event, a line per file written.
TEST(Report, ABlockPerJvmEventAndALinePerFile) {
  ReportInput in;
  in.signal_event = false;
  in.seconds = 3;
  EventBlock alloc;
  alloc.event = "alloc";
  alloc.description = "JVMTI SampledObjectAlloc";
  alloc.requested = 100;
  alloc.delivered = 97;
  alloc.failed = 2;
  alloc.dropped = 1;
  alloc.samples = 97;
  alloc.weight = 50 << 20;
  alloc.unit = "bytes";
  alloc.top = {{"byte[]", 40 << 20}, {"java.lang.String", 10 << 20}};
  EventBlock lock;
  lock.event = "lock";
  lock.description = "monitors and parks";
  lock.requested = 5;
  lock.delivered = 5;
  lock.below_threshold = 12;
  lock.samples = 5;
  lock.weight = 1'500'000'000;
  lock.unit = "ns";
  lock.notes = {"parking not sampled: park: no table"};
  in.events = {alloc, lock};
  in.output =
      "wrote collapsed output (97 samples) to /t/p.alloc.collapsed\nwrote collapsed output (5 samples) to "
      "/t/p.lock.collapsed";
  const std::string text = report_text(in);
  EXPECT_EQ(text.find("samples requested 0"), std::string::npos) << text;  // no signal block
  EXPECT_EQ(text.find("top methods"), std::string::npos) << text;
  EXPECT_NE(
      text.find("jvmkit profiler: alloc: samples requested 100, delivered 97, failed 2, dropped 1 (empty traces 0)\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("jvmkit profiler: alloc: 97 samples weighing 52428800 bytes (50.0 MiB)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("jvmkit profiler: alloc: top classes (self bytes):\n  41943040  80.00%  byte[]\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("; waits below the threshold, not sampled: 12\n"), std::string::npos) << text;
  EXPECT_NE(text.find("jvmkit profiler: lock: 5 samples weighing 1500000000 ns (1.500 s)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("jvmkit profiler: lock: parking not sampled: park: no table\n"), std::string::npos) << text;
  EXPECT_NE(text.find("jvmkit profiler: wrote collapsed output (97 samples) to /t/p.alloc.collapsed\n"
                      "jvmkit profiler: wrote collapsed output (5 samples) to /t/p.lock.collapsed\n"),
            std::string::npos)
      << text;
}

TEST(Report, SaysHowManyEventRequestsWaitedForASlotOnlyWhenAnyDid) {
  EventBlock alloc;
  alloc.event = "alloc";
  alloc.requested = alloc.delivered = 10;
  EXPECT_EQ(event_block_text(alloc).find("waited"), std::string::npos) << event_block_text(alloc);
  alloc.waited = 3;
  alloc.waited_ns = 2'500'000;
  EXPECT_NE(event_block_text(alloc).find(
                "jvmkit profiler: alloc: 3 requests waited for a free slot (delivery behind), 2.5 ms in all\n"),
            std::string::npos)
      << event_block_text(alloc);
}

TEST(Report, SaysHowManySamplesNeededARecoveryOnlyWhenAnyDid) {
  ReportInput in;
  in.output = "wrote";
  EXPECT_EQ(report_text(in).find("recovery"), std::string::npos);
  in.counts.recovery_attempted = 12;
  in.counts.recovered_by_kind = {{"stub_entry", 7}, {"vtable_stub", 0}, {"native_leaf", 3}};
  in.counts.unrecovered_by_reason = {{"unknown_pc", 2}, {"interpreter", 0}};
  std::string text = report_text(in);
  EXPECT_NE(text.find("stack-walk recovery: attempted 12, recovered 10, not recovered 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("recovered by kind: stub_entry 7, native_leaf 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("not recovered by reason: unknown_pc 2\n"), std::string::npos) << text;
}

TEST(Report, SaysWhenSamplesWereLostToAFullSignalQueue) {
  ReportInput in;
  in.output = "wrote";
  EXPECT_EQ(report_text(in).find("RLIMIT_SIGPENDING"), std::string::npos);
  in.counts.overflowed = 5;
  std::string text = report_text(in);
  EXPECT_NE(text.find("at least 5 samples lost: the user's queue of pending signals was full (RLIMIT_SIGPENDING"),
            std::string::npos)
      << text;
}

TEST(Report, NamesTheThreeThreadsWithTheMostFailuresAndSumsTheRest) {
  // Thread ids no thread of this process has: their names read as 'ended'.
  std::unordered_map<pid_t, int64_t> failures = {
      {999'999'901, 5}, {999'999'902, 50}, {999'999'903, 7}, {999'999'904, 1}, {999'999'905, 20}};
  std::vector<std::pair<std::string, int64_t>> expected = {{"'ended' (tid 999999902)", 50},
                                                           {"'ended' (tid 999999905)", 20},
                                                           {"'ended' (tid 999999903)", 7},
                                                           {"other threads", 6}};
  EXPECT_EQ(failures_by_thread(failures), expected);
  EXPECT_TRUE(failures_by_thread({}).empty());
}

TEST(Report, OutputLineSaysWhereTheProfileWentOrWhyNot) {
  Options options;
  options.format = OutputFormat::kCollapsed;
  options.file = "/tmp/x.collapsed";
  EXPECT_EQ(output_outcome(Error::ok(), options.format, options.file, 12),
            "wrote collapsed output (12 samples) to /tmp/x.collapsed");
  EXPECT_EQ(
      output_outcome(Error("cannot write /tmp/x.collapsed: No space left on device"), options.format, options.file, 12),
      "ERROR: cannot write /tmp/x.collapsed: No space left on device");
}

}  // namespace
}  // namespace jvmkit::prof
