// Writes recordings that cover every type the JFR writer knows, and next to each the text that
// java/tests/jfr JfrDump must print when the JDK's reader reads it back (jdk_reader.sh compares).
//   write_sample DIR   ->  DIR/all_types.jfr DIR/all_types.expected
//                          DIR/cut.jfr (the same file with its second chunk cut short: a JVM killed
//                          while writing) DIR/cut.expected (the first chunk's events)
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "jfr/chunk_writer.hpp"
#include "jfr/metadata.hpp"

namespace {

using jvmkit::jfr::ChunkWriter;
using jvmkit::jfr::FrameKind;
using jvmkit::jfr::StackFrame;
using jvmkit::jfr::ThreadInfo;

constexpr int64_t kStartNanos = 1'764'000'000'123'456'789;  // 2025-11-24, an arbitrary wall clock
constexpr int64_t kStartTicks = 5'000'000'000;

// What a frame is, spelled out: the expected text is made from this, not from the writer's bytes.
struct FrameSpec {
  std::string klass;  // "" for a frame outside any class
  std::string method;
  std::string descriptor;
  int line;
  int bci;
  FrameKind kind;
};

struct ThreadSpec {
  int64_t os_tid;
  std::string os_name;
  int64_t java_tid;
  std::string java_name;
};

std::string thread_text(const ThreadSpec& t) {
  return std::to_string(t.os_tid) + "/" + std::to_string(t.java_tid) + "/" + (t.java_tid < 0 ? "null" : t.java_name) +
         "/" + t.os_name;
}

class Sample {
 public:
  explicit Sample(ChunkWriter* w) : w_(w) {}

  uint64_t thread(const ThreadSpec& t) {
    return w_->add_thread(ThreadInfo{t.os_tid, t.os_name, t.java_tid, t.java_name, false});
  }

  uint64_t stack(const std::vector<FrameSpec>& frames, bool truncated, std::string* text) {
    std::vector<StackFrame> out;
    *text = "  truncated=" + std::string(truncated ? "true" : "false") + "\n";
    for (const FrameSpec& f : frames) {
      const uint64_t klass = f.klass.empty() ? 0 : w_->add_class(f.klass);
      out.push_back({w_->add_method(klass, f.method, f.descriptor), f.line, f.bci, f.kind});
      // Code outside any class reads back as a method of the class "" with descriptor "()".
      *text += "  frame " + f.klass + "." + f.method + (f.descriptor.empty() ? "()" : f.descriptor) +
               " line=" + std::to_string(f.line) + " bci=" + std::to_string(f.bci) +
               " type=" + jvmkit::jfr::frame_kind_name(f.kind) + "\n";
    }
    return w_->add_stack(out, truncated);
  }

 private:
  ChunkWriter* w_;
};

// A park's timeout and deadline, which jvmkit does not know: the JDK's "none", Long.MIN_VALUE.
const std::string kNoParkTimes = " timeout=-9223372036854775808 until=-9223372036854775808 address=0";

std::string event_line(const std::string& type, int64_t ticks, int64_t duration, const std::string& fields) {
  return "event " + type + " start=" + std::to_string(kStartNanos + ticks - kStartTicks) +
         " duration=" + std::to_string(duration) + fields + "\n";
}

// One chunk starting at START (ticks), its keys from *NEXT_KEY on; appends its expected text to
// EXPECTED. The second chunk adds its threads in the other order: a key reused across chunks for
// another thread would read as the first chunk's thread.
std::string chunk(int64_t start, bool final, int index, uint64_t* next_key, std::string* expected) {
  ChunkWriter w(kStartNanos + start - kStartTicks, start, *next_key);
  Sample s(&w);
  const ThreadSpec main_thread{4242, "java", 1, "main"};
  const ThreadSpec worker{4243, "pool-1-thread-1", 23, "Ünïcødé ☃ worker"};
  const ThreadSpec gc{4250, "G1 Conc#0", -1, ""};
  const uint64_t t_gc = index == 0 ? 0 : s.thread(gc);
  const uint64_t t_worker = index == 0 ? 0 : s.thread(worker);
  const uint64_t t_main = s.thread(main_thread);
  const uint64_t t_worker_ = index == 0 ? s.thread(worker) : t_worker;
  const uint64_t t_gc_ = index == 0 ? s.thread(gc) : t_gc;

  std::string java_text, mixed_text, deep_text, gc_text;
  const uint64_t java_stack = s.stack({{"java.lang.String", "hashCode", "()I", 1503, 10, FrameKind::kInlined},
                                       {"java.util.HashMap", "hash", "(Ljava/lang/Object;)I", 338, 9, FrameKind::kJit},
                                       {"demo.Main", "main", "([Ljava/lang/String;)V", 12, 4, FrameKind::kInterpreted}},
                                      false, &java_text);
  const uint64_t mixed_stack = s.stack({{"", "__memmove_avx_unaligned_erms", "", 0, -1, FrameKind::kCpp},
                                        {"", "do_syscall_64", "", 0, -1, FrameKind::kKernel},
                                        {"java.lang.Object", "hashCode", "()I", 0, -1, FrameKind::kNative},
                                        {"Ünïcødé.Клас", "méthode", "()V", 7, 0, FrameKind::kJit}},
                                       false, &mixed_text);
  std::vector<FrameSpec> deep;
  for (int i = 0; i < 300; i++) deep.push_back({"demo.Recursion", "down", "(I)I", 10 + i % 3, i % 7, FrameKind::kJit});
  const uint64_t deep_stack = s.stack(deep, true, &deep_text);
  const uint64_t gc_stack =
      s.stack({{"", "G1ConcurrentMark::mark_from_roots", "", 0, -1, FrameKind::kCpp}}, false, &gc_text);

  const std::string main_text = thread_text(main_thread);
  const std::string worker_text = thread_text(worker);
  int64_t t = start + 1000 + index;
  // A request context: labels, and an OpenTelemetry trace and span.
  w.execution_sample(t, t_main, java_stack,
                     {"endpoint=/checkout,tenant=ünï", "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"});
  *expected += event_line("jdk.ExecutionSample", t, 0, " sampledThread=" + main_text + " state=STATE_DEFAULT") +
               java_text +
               event_line("jvmkit.SampleContext", t, 0,
                          " eventThread=" + main_text +
                              " sampleType=jdk.ExecutionSample contextLabels=endpoint=/checkout,tenant=ünï"
                              " traceId=4bf92f3577b34da6a3ce929d0e0e4736 spanId=00f067aa0ba902b7");
  t += 1'000'000;
  w.execution_sample(t, t_worker_, mixed_stack);
  *expected +=
      event_line("jdk.ExecutionSample", t, 0, " sampledThread=" + worker_text + " state=STATE_DEFAULT") + mixed_text;
  t += 7;
  w.execution_sample(t, t_gc_, gc_stack);
  *expected +=
      event_line("jdk.ExecutionSample", t, 0, " sampledThread=" + thread_text(gc) + " state=STATE_DEFAULT") + gc_text;
  t += 1'000'000;
  w.wall_clock_sample(t, t_main, deep_stack);
  *expected +=
      event_line("profiler.WallClockSample", t, 0, " sampledThread=" + main_text + " state=STATE_UNKNOWN samples=1") +
      deep_text;
  t += 1'000'000;
  w.perf_event_sample(t, t_worker_, java_stack, "page-faults", 1000);
  *expected +=
      event_line("jvmkit.PerfEventSample", t, 0, " sampledThread=" + worker_text + " event=page-faults weight=1000") +
      java_text;
  t += 1'000'000;
  w.allocation_sample(t, t_main, java_stack, w.add_class("int[]"), 524'288);
  *expected +=
      event_line("jdk.ObjectAllocationSample", t, 0, " eventThread=" + main_text + " objectClass=int[] weight=524288") +
      java_text;
  t += 1'000'000;
  w.monitor_enter(t, 2'500'000, t_worker_, java_stack, w.add_class("java.lang.Object"), {"endpoint=/cart", "", ""});
  *expected +=
      event_line("jdk.JavaMonitorEnter", t, 2'500'000,
                 " eventThread=" + worker_text + " monitorClass=java.lang.Object previousOwner=null address=0") +
      java_text +
      event_line("jvmkit.SampleContext", t, 0,
                 " eventThread=" + worker_text +
                     " sampleType=jdk.JavaMonitorEnter contextLabels=endpoint=/cart traceId=null spanId=null");
  t += 1'000'000;
  w.thread_park(t, 40'000, t_worker_, java_stack, w.add_class("java.util.concurrent.locks.ReentrantLock$NonfairSync"));
  *expected += event_line("jdk.ThreadPark", t, 40'000,
                          " eventThread=" + worker_text +
                              " parkedClass=java.util.concurrent.locks.ReentrantLock$NonfairSync" + kNoParkTimes) +
               java_text;
  t += 1'000'000;
  w.thread_park(t, 50'000, t_main, java_stack, 0);  // no blocker: a null class
  *expected +=
      event_line("jdk.ThreadPark", t, 50'000, " eventThread=" + main_text + " parkedClass=null" + kNoParkTimes) +
      java_text;
  if (index == 0) {
    w.active_recording(start, {1, "jvmkit", "/tmp/x.jfr", 1000, 1'764'000'000'123, 0});
    *expected += event_line("jdk.ActiveRecording", start, 0,
                            " eventThread=null id=1 name=jvmkit destination=/tmp/x.jfr maxAge=0 flushInterval=1000"
                            " maxSize=0 recordingStart=1764000000123 recordingDuration=0");
    w.active_setting(start, jvmkit::jfr::kExecutionSample, "period", "10 ms");
    *expected += event_line("jdk.ActiveSetting", start, 0, " eventThread=null id=100 name=period value=10 ms");
  }
  std::string bytes = w.finish(t + 1, final);
  *next_key = w.next_key();
  return bytes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  std::string expected_all, expected_first;
  uint64_t next_key = 1;
  const std::string first = chunk(kStartTicks, false, 0, &next_key, &expected_all);
  expected_first = expected_all;
  const std::string second = chunk(kStartTicks + 2'000'000'000, true, 1, &next_key, &expected_all);
  std::ofstream(dir + "/all_types.jfr", std::ios::binary) << first << second;
  std::ofstream(dir + "/all_types.expected", std::ios::binary) << expected_all;
  // Cut in the middle of the second chunk's events: its header is whole, the rest is not.
  std::ofstream(dir + "/cut.jfr", std::ios::binary) << first << second.substr(0, 200);
  std::ofstream(dir + "/cut.expected", std::ios::binary) << expected_first;
  return 0;
}
