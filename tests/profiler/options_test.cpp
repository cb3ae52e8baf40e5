// Option parsing: defaults per event, every option, and the exact message of each kind of error.
#include "profiler/options.hpp"

#include <gtest/gtest.h>
#include <signal.h>

namespace jvmkit::prof {
namespace {

Options parse_ok(const char* text) {
  Options o;
  Error e = parse_options(text, 42, &o);
  EXPECT_FALSE(e) << e.message();
  return o;
}

std::string parse_error(const char* text) {
  Options o;
  Error e = parse_options(text, 42, &o);
  EXPECT_TRUE(e) << "expected an error for '" << text << "'";
  return e.message();
}

TEST(Options, DefaultsAreCpuTenMillisecondsHtmlRealTimeSignal) {
  for (const char* text : {static_cast<const char*>(nullptr), ""}) {
    Options o = parse_ok(text);
    EXPECT_EQ(o.event->name, "cpu");
    EXPECT_EQ(o.interval, 10'000'000);
    EXPECT_EQ(o.format, OutputFormat::kHtml);
    EXPECT_EQ(o.file, "jvmkit-profile-42.html");
    EXPECT_EQ(o.signal, SIGRTMIN + 6);
    EXPECT_EQ(o.threads, ThreadGrouping::kNone);
    EXPECT_FALSE(o.annotate);
  }
}

TEST(Options, EveryOptionIsParsed) {
  Options o = parse_ok("event=wall,interval=5ms,file=/tmp/x.pb.gz,threads,ann,signal=36");
  EXPECT_EQ(o.event->name, "wall");
  EXPECT_EQ(o.interval, 5'000'000);
  EXPECT_EQ(o.file, "/tmp/x.pb.gz");
  EXPECT_EQ(o.format, OutputFormat::kPprof);
  EXPECT_EQ(o.threads, ThreadGrouping::kThread);
  EXPECT_EQ(parse_ok("threads=virtual").threads, ThreadGrouping::kThread);
  EXPECT_EQ(parse_ok("threads=carrier").threads, ThreadGrouping::kCarrier);
  EXPECT_EQ(parse_ok("threads,threads=none").threads, ThreadGrouping::kNone);
  EXPECT_TRUE(o.annotate);
  EXPECT_EQ(o.signal, 36);
}

TEST(Options, IntervalUnits) {
  EXPECT_EQ(parse_ok("interval=1ms").interval, 1'000'000);
  EXPECT_EQ(parse_ok("interval=250us").interval, 250'000);
  EXPECT_EQ(parse_ok("interval=2s").interval, 2'000'000'000);
  EXPECT_EQ(parse_ok("interval=100000ns").interval, 100'000);
  EXPECT_EQ(parse_ok("interval=100000").interval, 100'000);  // bare number: ns, as async-profiler
  EXPECT_EQ(parse_ok("event=page-faults,interval=10").interval, 10);
}

TEST(Options, DefaultIntervalPerEvent) {
  EXPECT_EQ(parse_ok("event=wall").interval, 20'000'000);
  EXPECT_EQ(parse_ok("event=itimer").interval, 10'000'000);
  EXPECT_EQ(parse_ok("event=cycles").interval, 10'000'000);
  EXPECT_EQ(parse_ok("event=page-faults").interval, 1);
}

TEST(Options, ItimerDefaultsToSigprof) { EXPECT_EQ(parse_ok("event=itimer").signal, SIGPROF); }

TEST(Options, FormatFromExtensionAndExplicitFormatWins) {
  EXPECT_EQ(parse_ok("file=a.html").format, OutputFormat::kHtml);
  EXPECT_EQ(parse_ok("file=a.htm").format, OutputFormat::kHtml);
  EXPECT_EQ(parse_ok("file=a.pprof").format, OutputFormat::kPprof);
  EXPECT_EQ(parse_ok("file=a.pb").format, OutputFormat::kPprof);
  EXPECT_EQ(parse_ok("file=a.collapsed").format, OutputFormat::kCollapsed);
  EXPECT_EQ(parse_ok("file=a.txt").format, OutputFormat::kCollapsed);
  EXPECT_EQ(parse_ok("file=a.html,format=collapsed").format, OutputFormat::kCollapsed);
  Options o = parse_ok("format=pprof");
  EXPECT_EQ(o.file, "jvmkit-profile-42.pb.gz");
  EXPECT_EQ(parse_ok("format=collapsed").file, "jvmkit-profile-42.collapsed");
  EXPECT_EQ(parse_ok("file=a.jfr").format, OutputFormat::kJfr);
  EXPECT_EQ(parse_ok("format=jfr").file, "jvmkit-profile-42.jfr");
}

TEST(Options, EveryEventNameIsKnown) {
  for (const char* name : {"cpu", "wall", "itimer", "cpu-clock", "task-clock", "page-faults", "context-switches",
                           "cycles", "instructions", "cache-misses", "branch-misses"}) {
    std::string text = std::string("event=") + name;
    EXPECT_EQ(parse_ok(text.c_str()).event->name, name);
  }
}

// The event names of a run, in table order.
std::string names(const Options& o) { return events_text(o); }

TEST(Options, JvmEventsAloneHaveNoSignalEvent) {
  Options o = parse_ok("event=alloc");
  EXPECT_EQ(o.event, nullptr);
  EXPECT_EQ(names(o), "alloc");
  EXPECT_EQ(o.alloc_bytes, 512 * 1024);
  o = parse_ok("event=lock");
  EXPECT_EQ(names(o), "lock");
  EXPECT_EQ(o.lock_ns, 10'000);
  // The options alone choose their event, without cpu.
  EXPECT_EQ(names(parse_ok("alloc")), "alloc");
  EXPECT_EQ(names(parse_ok("lock=1ms")), "lock");
  EXPECT_EQ(parse_ok("lock=1ms").lock_ns, 1'000'000);
}

TEST(Options, SeveralEventsInOneRun) {
  // event=cpu,alloc,lock: the names after the first are items of the list.
  Options o = parse_ok("event=cpu,alloc,lock,interval=1ms");
  ASSERT_NE(o.event, nullptr);
  EXPECT_EQ(o.event->name, "cpu");
  EXPECT_EQ(names(o), "cpu,alloc,lock");
  EXPECT_EQ(o.interval, 1'000'000);
  EXPECT_TRUE(o.has(EngineKind::kAlloc));
  EXPECT_TRUE(o.has(EngineKind::kLock));
  // Repeated event=, in any order, with sizes: table order, each once.
  o = parse_ok("event=lock,event=wall,alloc=4m,event=alloc");
  EXPECT_EQ(names(o), "wall,alloc,lock");
  EXPECT_EQ(o.event->name, "wall");
  EXPECT_EQ(o.alloc_bytes, 4 << 20);
  EXPECT_EQ(o.interval_of(*find_event("alloc")), 4 << 20);
  EXPECT_EQ(o.interval_of(*find_event("lock")), 10'000);
  EXPECT_EQ(o.interval_of(*find_event("wall")), 20'000'000);
  // cpu with the JVM events given as options.
  EXPECT_EQ(names(parse_ok("event=cpu,alloc=1k,lock=20us")), "cpu,alloc,lock");
  EXPECT_EQ(parse_ok("event=cpu,alloc=1k").alloc_bytes, 1024);
  EXPECT_TRUE(parse_ok("event=alloc,live").live);
  EXPECT_FALSE(parse_ok("event=alloc").live);
}

TEST(Options, SizesAndThresholds) {
  int64_t bytes = 0;
  EXPECT_FALSE(parse_size("512k", &bytes));
  EXPECT_EQ(bytes, 512 * 1024);
  EXPECT_FALSE(parse_size("2M", &bytes));
  EXPECT_EQ(bytes, 2 << 20);
  EXPECT_FALSE(parse_size("1g", &bytes));
  EXPECT_EQ(bytes, int64_t{1} << 30);
  EXPECT_FALSE(parse_size("1000", &bytes));
  EXPECT_EQ(bytes, 1000);
  EXPECT_EQ(parse_ok("alloc=0").alloc_bytes, 0);  // every allocation
  EXPECT_EQ(parse_ok("lock=0").lock_ns, 0);       // every wait
  EXPECT_EQ(parse_ok("lock=250").lock_ns, 250);   // a bare number is ns, as for interval
}

TEST(Options, JvmEventErrors) {
  EXPECT_EQ(parse_error("alloc=12q"), "alloc=12q: unknown unit 'q' (use k, m or g, or bytes as a bare number)");
  EXPECT_EQ(parse_error("alloc=k"), "alloc=k: not a size (expected e.g. 512k, 4m, 1000)");
  EXPECT_EQ(parse_error("alloc=2g"), "alloc=2g: too large (JVMTI takes at most 2g - 1 bytes)");
  EXPECT_EQ(parse_error("alloc="), "alloc=: needs a value");
  EXPECT_EQ(parse_error("lock=5xs"), "lock=5xs: unknown unit 'xs' (use ns, us, ms or s)");
  EXPECT_EQ(parse_error("event=cpu,wall"),
            "event=cpu,wall: one signal event per run (cpu and wall were given); alloc and lock go with any of them");
  EXPECT_EQ(parse_error("event=alloc,interval=1ms"),
            "interval=1ms: no signal event to sample at it (alloc: alloc takes alloc=SIZE, lock takes lock=DURATION)");
  EXPECT_EQ(parse_error("live"), "live: only with the alloc event");
  EXPECT_EQ(parse_error("event=cpu,bogus"),
            "bogus: unknown option (known: event, interval, file, format, threads, ann, labels, signal, loop, keep, "
            "chunktime, "
            "depth, "
            "max_stacks, alloc, lock, live, cstack, start, stop, dump, status, reply)");
}

TEST(Options, ErrorsNameTheOptionAndTheProblem) {
  EXPECT_EQ(parse_error("event=bogus"),
            "event=bogus: unknown event (known: cpu, wall, itimer, cpu-clock, task-clock, page-faults, "
            "context-switches, cycles, instructions, cache-misses, branch-misses, alloc, lock)");
  EXPECT_EQ(parse_error("interval=10xs"), "interval=10xs: unknown unit 'xs' (use ns, us, ms or s)");
  EXPECT_EQ(parse_error("interval=ms"), "interval=ms: not a number (expected e.g. 10ms, 500us, 1000000)");
  EXPECT_EQ(parse_error("interval=0"), "interval=0: too small (the minimum is 10us)");
  EXPECT_EQ(parse_error("interval=5us"), "interval=5us: too small (the minimum is 10us)");
  EXPECT_EQ(parse_error("interval=99999999999999999999"), "interval=99999999999999999999: number out of range");
  EXPECT_EQ(parse_error("interval=9999999999999s"), "interval=9999999999999s: number out of range");
  EXPECT_EQ(parse_error("event=cycles,interval=10ms"),
            "interval=10ms: event cycles counts events: give a plain count, no unit");
  EXPECT_EQ(parse_error("event=page-faults,interval=0"), "interval=0: must be at least 1");
  EXPECT_EQ(parse_error("interval"), "interval: needs a value");
  EXPECT_EQ(parse_error("file="), "file=: needs a value");
  EXPECT_EQ(parse_error("format=svg"), "format=svg: unknown format (use collapsed, html, pprof or jfr)");
  EXPECT_EQ(parse_error("threads=yes"),
            "threads=yes: unknown value (use threads, threads=virtual, threads=carrier or threads=none)");
  EXPECT_EQ(parse_error("ann=1"), "ann=1: takes no value");
  EXPECT_EQ(parse_error("signal=abc"), "signal=abc: not a signal number");
  EXPECT_EQ(parse_error("signal=11"),
            "signal=11: signal not usable for sampling: the JVM uses it or it cannot be "
            "caught (use 27 (SIGPROF), or a real-time signal " +
                std::to_string(SIGRTMIN) + ".." + std::to_string(SIGRTMAX) + ")");
  EXPECT_EQ(
      parse_error("colour=red"),
      "colour=red: unknown option (known: event, interval, file, format, threads, ann, labels, signal, loop, keep, "
      "chunktime, depth, "
      "max_stacks, alloc, lock, live, cstack, start, stop, dump, status, reply)");
  EXPECT_EQ(parse_error("threads,,ann"), "empty option in 'threads,,ann' (two commas, or a trailing comma)");
  EXPECT_EQ(parse_error("threads,"), "empty option in 'threads,' (two commas, or a trailing comma)");
}

// cstack=no|native: native frames for the signal event only; an unknown value names the option and
// the values there are. Without cstack=, mixed stacks wherever there is a signal event.
TEST(Options, CStack) {
  EXPECT_EQ(parse_ok("").cstack, CStack::kNative);
  EXPECT_FALSE(parse_ok("").cstack_given);
  EXPECT_EQ(parse_ok("event=wall").cstack, CStack::kNative);
  EXPECT_EQ(parse_ok("event=cpu,alloc").cstack, CStack::kNative);
  EXPECT_EQ(parse_ok("event=alloc").cstack, CStack::kNo);
  EXPECT_EQ(parse_ok("event=alloc,lock").cstack, CStack::kNo);
  EXPECT_TRUE(parse_ok("cstack=no").cstack_given);
  EXPECT_EQ(parse_ok("cstack=no").cstack, CStack::kNo);
  EXPECT_EQ(parse_ok("cstack=native").cstack, CStack::kNative);
  EXPECT_EQ(parse_ok("event=wall,cstack=native").cstack, CStack::kNative);
  EXPECT_EQ(parse_ok("event=itimer,cstack=native").cstack, CStack::kNative);
  EXPECT_EQ(parse_ok("event=cpu-clock,cstack=native").cstack, CStack::kNative);
  EXPECT_EQ(parse_ok("event=cpu,alloc,lock,cstack=native").cstack, CStack::kNative);
  EXPECT_EQ(parse_ok("cstack=native,cstack=no").cstack, CStack::kNo);  // the last one holds
  EXPECT_EQ(parse_error("cstack=kernel"), "cstack=kernel: unknown value (known: no, native)");
  EXPECT_EQ(parse_error("cstack=Native"), "cstack=Native: unknown value (known: no, native)");
  EXPECT_EQ(parse_error("cstack"), "cstack: needs a value");
  EXPECT_EQ(parse_error("cstack="), "cstack=: needs a value");
  EXPECT_EQ(
      parse_error("event=alloc,cstack=native"),
      "cstack=native: only with a signal event (cpu, wall, itimer or a perf event): alloc takes Java frames only");
  EXPECT_EQ(parse_ok("event=alloc,cstack=no").cstack, CStack::kNo);
}

TEST(Options, SignalsThatMayBeUsed) {
  EXPECT_EQ(parse_ok("signal=27").signal, SIGPROF);
  EXPECT_EQ(parse_ok("signal=10").signal, SIGUSR1);
  std::string rtmax = "signal=" + std::to_string(SIGRTMAX);
  EXPECT_EQ(parse_ok(rtmax.c_str()).signal, SIGRTMAX);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGQUIT, SIGUSR2, SIGKILL, SIGSTOP, SIGTRAP, SIGPIPE, 0}) {
    std::string text = "signal=" + std::to_string(sig);
    Options o;
    EXPECT_TRUE(parse_options(text.c_str(), 1, &o)) << text;
  }
}

TEST(Options, ControlAndContinuousOptions) {
  Options o = parse_ok(nullptr);
  EXPECT_EQ(o.action, Action::kStart);
  EXPECT_EQ(o.depth, 2048);
  EXPECT_EQ(o.loop_ns, 0);
  EXPECT_FALSE(o.file_given);
  o = parse_ok("stop,reply=/tmp/r1,file=/var/tmp/x.collapsed");
  EXPECT_EQ(o.action, Action::kStop);
  EXPECT_EQ(o.reply, "/tmp/r1");
  EXPECT_TRUE(o.file_given);
  EXPECT_EQ(o.format, OutputFormat::kCollapsed);
  o = parse_ok("loop=60s,keep=3,file=/var/tmp/app-%p-%t.pb.gz,depth=8192,max_stacks=5000");
  EXPECT_EQ(o.loop_ns, 60'000'000'000);
  EXPECT_EQ(o.keep, 3);
  EXPECT_EQ(o.depth, 8192);
  EXPECT_EQ(o.max_stacks, 5000);
  EXPECT_EQ(o.format, OutputFormat::kPprof);
  EXPECT_EQ(o.chunk_ns, 1'000'000'000);
  EXPECT_EQ(parse_ok("file=x.jfr,chunktime=250ms").chunk_ns, 250'000'000);
  EXPECT_EQ(parse_ok("status").action, Action::kStatus);
  EXPECT_EQ(parse_ok("dump").action, Action::kDump);
}

TEST(Options, ControlAndContinuousErrors) {
  EXPECT_EQ(parse_error("start,stop"), "stop: only one of start, stop, dump, status may be given (already start)");
  EXPECT_EQ(parse_error("stop=1"), "stop=1: takes no value");
  EXPECT_EQ(parse_error("reply=tmp/r"), "reply=tmp/r: must be an absolute path");
  EXPECT_EQ(parse_error("loop=500ms,file=/x-%t.html"), "loop=500ms: too short (the shortest window is 1s)");
  EXPECT_EQ(parse_error("loop=10s,file=/x.html"),
            "loop: needs file= with %t in it (the window's start time), or every window would overwrite the last");
  EXPECT_EQ(parse_error("loop=10s"),
            "loop: needs file= with %t in it (the window's start time), or every window would overwrite the last");
  EXPECT_EQ(parse_error("keep=3"), "keep=3: only with loop=");
  EXPECT_EQ(parse_error("keep=0,loop=1s,file=/%t"), "keep=0: out of range (1..1000000)");
  EXPECT_EQ(parse_error("depth=0"), "depth=0: out of range (1..65536)");
  EXPECT_EQ(parse_error("depth=65537"), "depth=65537: out of range (1..65536)");
  EXPECT_EQ(parse_error("depth=deep"), "depth=deep: not a number");
  EXPECT_EQ(parse_error("max_stacks=10"), "max_stacks=10: out of range (1000..2147483648)");
  EXPECT_EQ(parse_error("chunktime=50ms"), "chunktime=50ms: too short (the shortest is 100ms)");
  EXPECT_EQ(parse_error("chunktime=soon"), parse_error("loop=soon").replace(0, 4, "chunktime"));
}

TEST(Options, ReplyIsFoundInAListThatDoesNotParse) {
  EXPECT_EQ(reply_option("stop,colour=red,reply=/tmp/r1"), "/tmp/r1");
  EXPECT_EQ(reply_option("reply=tmp/r1"), "");
  EXPECT_EQ(reply_option("start,,reply="), "");
  EXPECT_EQ(reply_option(""), "");
}

TEST(Options, ParseDuration) {
  int64_t ns = 0;
  EXPECT_FALSE(parse_duration("3ms", &ns));
  EXPECT_EQ(ns, 3'000'000);
  EXPECT_TRUE(parse_duration("-3ms", &ns));
  EXPECT_TRUE(parse_duration("3 ms", &ns));
  EXPECT_TRUE(parse_duration("", &ns));
}

}  // namespace
}  // namespace jvmkit::prof
