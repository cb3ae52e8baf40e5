// Profiles of Java frames only, with every frame type and writer option a profile had before
// native frames existed: the output they give is kept byte for byte in tests/profiler/golden/,
// written by the writers as they were before native frames were added (java_only_output_test.cpp
// compares). A run without cstack=native makes only such profiles.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/outputs/writers.hpp"
#include "profiler/recording/profile.hpp"

namespace jvmkit::prof::golden {

// A cpu profile: interpreted, JIT, inlined and native-method frames under two thread roots, a
// [truncated] stack, names with separators, quotes, markup and non-ASCII characters.
inline Profile cpu_profile() {
  Profile p;
  const uint32_t t1 = p.add_method("[main tid=7]", "");
  const uint32_t t2 = p.add_method("[worker-1 tid=9]", "");
  const uint32_t main = p.add_method("app.Main.main", "Main.java");
  const uint32_t loop = p.add_method("app.Main.loop", "Main.java");
  const uint32_t hash = p.add_method("java.lang.String.hashCode", "String.java");
  const uint32_t latin = p.add_method("java.lang.StringLatin1.hashCode", "StringLatin1.java");
  const uint32_t deflate = p.add_method("java.util.zip.Deflater.deflateBytesBytes", "Deflater.java");
  const uint32_t odd = p.add_method("app.Odd;name\nwith \"quotes\" </script> \xc3\xa9\xf0\x9d\x91\xa5", "Odd.java");
  const uint32_t run = p.add_method("app.Worker.run", "Worker.java");
  for (int i = 0; i < 5; i++) {
    p.add_sample({{latin, FrameType::kInlined, 40},
                  {hash, FrameType::kJit, 12},
                  {loop, FrameType::kJit, 20 + i % 2},
                  {main, FrameType::kInterpreted, 5},
                  {t1, FrameType::kThread, 0}});
  }
  p.add_sample({{hash, FrameType::kInterpreted, 12},
                {loop, FrameType::kJit, 22},
                {main, FrameType::kInterpreted, 5},
                {t1, FrameType::kThread, 0}});
  for (int i = 0; i < 3; i++) {
    p.add_sample({{deflate, FrameType::kNative, 0}, {run, FrameType::kJit, 8}, {t2, FrameType::kThread, 0}});
  }
  p.add_sample({{odd, FrameType::kJit, 1}, {run, FrameType::kJit, 9}, {t2, FrameType::kThread, 0}});
  p.add_sample({{loop, FrameType::kJit, 20}, p.truncated_frame(), {t1, FrameType::kThread, 0}});
  return p;
}

// A profile whose bound was reached: samples past it merge into [overflow].
inline Profile overflow_profile() {
  ProfileLimits limits;
  limits.max_nodes = 4;
  Profile p(limits);
  const uint32_t main = p.add_method("app.Main.main", "Main.java");
  const uint32_t a = p.add_method("app.Main.a", "Main.java");
  const uint32_t b = p.add_method("app.Main.b", "Main.java");
  const uint32_t c = p.add_method("app.Main.c", "Main.java");
  p.add_sample({{a, FrameType::kJit, 1}, {main, FrameType::kInterpreted, 2}});
  p.add_sample({{b, FrameType::kJit, 1}, {main, FrameType::kInterpreted, 2}});
  p.add_sample({{c, FrameType::kJit, 1}, {main, FrameType::kInterpreted, 2}});
  p.add_sample({{c, FrameType::kJit, 1}, {b, FrameType::kJit, 1}, {main, FrameType::kInterpreted, 2}});
  return p;
}

// An alloc profile: class leaf frames, weights in bytes.
inline Profile alloc_profile() {
  Profile p;
  const uint32_t main = p.add_method("app.Main.main", "Main.java");
  const uint32_t fill = p.add_method("app.Main.fill", "Main.java");
  const uint32_t bytes = p.add_method("byte[]", "");
  const uint32_t string = p.add_method("java.lang.String", "");
  p.add_sample({{bytes, FrameType::kClass, 0}, {fill, FrameType::kJit, 3}, {main, FrameType::kInterpreted, 1}},
               4 << 20);
  p.add_sample({{bytes, FrameType::kClass, 0}, {fill, FrameType::kJit, 3}, {main, FrameType::kInterpreted, 1}},
               600'000);
  p.add_sample({{string, FrameType::kClass, 0}, {main, FrameType::kInterpreted, 2}}, 524'288);
  return p;
}

inline RunInfo run_info() {
  RunInfo info;
  info.title = "jvmkit profile of app.Main";
  info.event = "cpu, interval 10 ms";
  info.value_type = "cpu";
  info.value_unit = "nanoseconds";
  info.interval = 10'000'000;
  info.start_time_ns = 1'796'337'001'000'000'000;  // 2026-12-03T22:30:01Z
  info.duration_ns = 60'000'000'000;
  info.program = "app.Main";
  return info;
}

inline EventProfile cpu_event(const Profile& p) {
  EventProfile e;
  e.profile = &p;
  e.event = "cpu";
  e.description = "cpu, interval 10 ms";
  e.value_type = "cpu";
  e.value_unit = "nanoseconds";
  e.interval = 10'000'000;
  return e;
}

inline EventProfile alloc_event(const Profile& p) {
  EventProfile e;
  e.profile = &p;
  e.event = "alloc";
  e.description = "alloc, a sample every 512 KiB";
  e.count_type = "alloc_objects";
  e.value_type = "alloc_space";
  e.value_unit = "bytes";
  e.interval = 512 * 1024;
  e.weighted = true;
  return e;
}

// Every output of the writers for the profiles above, by golden file name. pprof's are the
// uncompressed protobuf (the gzip around it is zlib's, whose version is not ours to pin).
struct Output {
  std::string name;
  std::string bytes;
};

template <typename Gunzip>
std::vector<Output> java_only_outputs(Gunzip gunzip) {
  const Profile cpu = cpu_profile();
  const Profile overflow = overflow_profile();
  const Profile alloc = alloc_profile();
  RunInfo info = run_info();
  RunInfo window = info;
  window.window = true;
  const EventProfile both[] = {cpu_event(cpu), alloc_event(alloc)};
  std::vector<Output> out;
  out.push_back({"cpu.collapsed", collapsed_text(cpu, false)});
  out.push_back({"cpu.ann.collapsed", collapsed_text(cpu, true)});
  out.push_back({"cpu.window.collapsed", collapsed_text(cpu, true, &window)});
  out.push_back({"overflow.ann.collapsed", collapsed_text(overflow, true)});
  out.push_back({"alloc.ann.collapsed", collapsed_text(alloc, true, nullptr, true)});
  out.push_back({"cpu.html", html_text(cpu, info)});
  out.push_back({"cpu_alloc.html", html_text(both, window)});
  out.push_back({"cpu.pb", gunzip(pprof_bytes(cpu, info))});
  out.push_back({"cpu_alloc.pb", gunzip(pprof_bytes(both, window))});
  out.push_back({"overflow.pb", gunzip(pprof_bytes(overflow, info))});
  return out;
}

}  // namespace jvmkit::prof::golden
