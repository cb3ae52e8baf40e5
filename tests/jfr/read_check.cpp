// Reads a recording with jvmkit's reader (src/jfr/reader.hpp) and prints what it read in the
// canonical text of java/tests/jfr JfrDump, cut to the fields both readers have, so that a script
// can compare the two readers on the same file (jdk_recording.sh):
//
//   event TYPE start=EPOCH_NS duration=NS thread=OS_TID/JAVA_TID class=NAME weight=N
//     truncated=BOOL                                        (events with a stack)
//     frame CLASS.METHODDESCRIPTOR line=N bci=N type=TYPE
//   count TYPE N                                            (per event type, by name)
//   events=N
//
// thread=null for an event without one, class= empty for none. An error of the reader ends the
// output with "error: MESSAGE" (status 1).
//
//   jfr_read_check FILE          the text above
//   jfr_read_check --time FILE   reads FILE (at least 1 s, again and again) and prints the bytes
//                                and events it read per second
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "jfr/reader.hpp"

namespace {

using jvmkit::jfr::ReadEvent;
using jvmkit::jfr::ReadFrame;
using jvmkit::jfr::ReadStats;

int print(const std::string& path) {
  std::map<std::string, int64_t, std::less<>> counts;
  std::string out;
  auto flush = [&] {
    std::fwrite(out.data(), 1, out.size(), stdout);
    out.clear();
  };
  ReadStats stats;
  const jvmkit::Error error = jvmkit::jfr::read_recording(
      path,
      [&](const ReadEvent& e) {
        counts[std::string(e.type)]++;
        out += "event ";
        out += e.type;
        out += " start=" + std::to_string(e.start_ns) + " duration=" + std::to_string(e.duration_ns) + " thread=";
        out +=
            e.thread == nullptr ? "null" : std::to_string(e.thread->os_tid) + "/" + std::to_string(e.thread->java_tid);
        out += " class=";
        out += e.object_class;
        out += " weight=" + std::to_string(e.weight) + "\n";
        if (!e.frames.empty()) out += std::string("  truncated=") + (e.truncated ? "true" : "false") + "\n";
        for (const ReadFrame& f : e.frames) {
          out += "  frame ";
          out += f.class_name;
          out += ".";
          out += f.method;
          out += f.descriptor;
          out += " line=" + std::to_string(f.line) + " bci=" + std::to_string(f.bci) + " type=";
          out += f.type;
          out += "\n";
        }
        if (out.size() > 1 << 16) flush();
        return true;
      },
      &stats);
  for (const auto& [type, n] : counts) out += "count " + type + " " + std::to_string(n) + "\n";
  out += "events=" + std::to_string(stats.events) + "\n";
  if (error) out += "error: " + error.message() + "\n";
  flush();
  return error ? 1 : 0;
}

int time_reading(const std::string& path) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  ReadStats stats;
  int64_t frames = 0;
  double seconds = 0;
  do {
    if (jvmkit::Error e = jvmkit::jfr::read_recording(
            path,
            [&](const ReadEvent& e) {
              frames += static_cast<int64_t>(e.frames.size());
              return true;
            },
            &stats)) {
      std::fprintf(stderr, "error: %s\n", e.message().c_str());
      return 1;
    }
    seconds = std::chrono::duration<double>(Clock::now() - start).count();
  } while (seconds < 1.0);
  std::printf("%.1f MB/s, %.2f M events/s (%lld bytes in %lld chunks, largest %zu; %lld events, %lld frames, %.2f s)\n",
              static_cast<double>(stats.bytes) / seconds / 1e6, static_cast<double>(stats.events) / seconds / 1e6,
              static_cast<long long>(stats.bytes), static_cast<long long>(stats.chunks), stats.max_chunk,
              static_cast<long long>(stats.events), static_cast<long long>(frames), seconds);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--time") == 0) return time_reading(argv[2]);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s [--time] FILE\n", argv[0]);
    return 2;
  }
  return print(argv[1]);
}
