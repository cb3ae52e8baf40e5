#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "convert/samples.hpp"
#include "jfr/reader.hpp"
#include "profiler/recording/thread_root_name.hpp"

namespace jvmkit::convert {

namespace {

using prof::FrameType;

FrameType frame_type(std::string_view jfr_type) {
  if (jfr_type == "Interpreted") return FrameType::kInterpreted;
  if (jfr_type == "Inlined") return FrameType::kInlined;
  if (jfr_type == "Native") return FrameType::kNative;
  if (jfr_type == "C++") return FrameType::kNativeCode;
  if (jfr_type == "Kernel") return FrameType::kKernel;
  return FrameType::kJit;
}

// A setting's duration ("10 ms", "20ms", "1 s") in ns; 0 when it is none.
int64_t setting_ns(std::string_view value) {
  size_t digits = 0;
  while (digits < value.size() && (value[digits] >= '0' && value[digits] <= '9')) digits++;
  if (digits == 0) return 0;
  const int64_t n = std::stoll(std::string(value.substr(0, digits)));
  std::string_view unit = value.substr(digits);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (unit == "ns") return n;
  if (unit == "us") return n * 1'000;
  if (unit == "ms") return n * 1'000'000;
  if (unit == "s") return n * 1'000'000'000;
  return 0;
}

// The converter's event of a recording's event type; "" for types it does not convert.
std::string_view event_of(const jfr::ReadEvent& e) {
  if (e.type == "jdk.ExecutionSample") return "cpu";
  // profiler.WallClockSample: jvmkit's (and async-profiler's); jvmkit.WallClockSample: jvmkit's
  // until 2026-12-07.
  if (e.type == "profiler.WallClockSample" || e.type == "jvmkit.WallClockSample") return "wall";
  if (e.type == "jvmkit.PerfEventSample") return e.event_name;
  if (e.type == "jdk.ObjectAllocationSample") return "alloc";
  if (e.type == "jdk.JavaMonitorEnter" || e.type == "jdk.ThreadPark") return "lock";
  return "";
}

// Turns a recording's events into samples: frame names made once per distinct class and method.
class JfrSamples {
 public:
  explicit JfrSamples(const SampleFunction& f) : f_(f) {}

  bool on_event(const jfr::ReadEvent& e) {
    if (e.type == "jdk.ActiveSetting") {
      if (e.setting_name == "period") periods_[std::string(e.setting_type)] = setting_ns(e.setting_value);
      return true;
    }
    const std::string_view event = event_of(e);
    if (event.empty() || e.frames.empty()) return true;
    Sample s;
    s.event = event;
    s.time_ns = e.start_ns;
    s.timed = true;
    if (e.thread != nullptr) {
      s.os_tid = e.thread->os_tid;
      s.java_tid = e.thread->java_tid;
      s.thread = e.thread->name;
    }
    // A stack seen before in this chunk: the frames made of it then.
    if (e.chunk != chunk_) {
      chunk_ = e.chunk;
      stacks_.clear();
    }
    auto [cached, added] = stacks_.try_emplace(e.stack_id);
    if (added) {
      for (const jfr::ReadFrame& f : e.frames)
        cached->second.frames.push_back({name_of(f), frame_type(f.type), f.line});
      cached->second.id = stack_id(cached->second.frames, e.truncated);
    }
    s.frames = cached->second.frames;
    // The same stack in every chunk has one id: the profiles' cache of stacks outlives a chunk.
    s.stack_id = cached->second.id;
    s.truncated = e.truncated;
    // Interned: a leaf class is part of the profiles' cache key, by address.
    s.leaf_class = e.object_class.empty() ? std::string_view() : intern(e.object_class);
    if (e.type == "jdk.ThreadPark" && e.object_class.empty()) s.leaf_class = intern("[no blocker]");
    if (event == "lock") {
      s.weight = e.duration_ns;
    } else if (event == "cpu" || event == "wall") {
      // An async-profiler wall-clock sample may stand for several ticks of the clock.
      s.count = std::max<int64_t>(e.samples, 1);
      auto it = periods_.find(std::string(e.type));
      s.weight = it != periods_.end() ? it->second * s.count : 0;
    } else {
      s.weight = e.weight;
    }
    return f_(s);
  }

 private:
  // "class.method", kept for the whole conversion (a recording names a bounded set of methods).
  std::string_view name_of(const jfr::ReadFrame& f) {
    key_.assign(f.class_name);
    if (!key_.empty()) key_.push_back('.');
    key_.append(f.method);
    return intern(key_);
  }

  std::string_view intern(std::string_view text) {
    std::string& kept = names_[std::string(text)];
    if (kept.empty()) kept = text;
    return kept;
  }

  // The id of a stack by its content: interned names (by address), types, lines, truncation.
  uint64_t stack_id(const std::vector<SampleFrame>& frames, bool truncated) {
    content_.assign(1, truncated ? 't' : 'w');
    for (const SampleFrame& f : frames) {
      const auto name = reinterpret_cast<uintptr_t>(f.name.data());
      content_.append(reinterpret_cast<const char*>(&name), sizeof(name));
      content_.push_back(static_cast<char>(f.type));
      content_.append(reinterpret_cast<const char*>(&f.line), sizeof(f.line));
    }
    return stack_ids_.try_emplace(content_, stack_ids_.size() + 1).first->second;
  }

  const SampleFunction& f_;
  std::unordered_map<std::string, int64_t> periods_;  // by event type
  std::unordered_map<std::string, std::string> names_;
  std::string key_;
  uint64_t chunk_ = UINT64_MAX;
  struct Stack {
    std::vector<SampleFrame> frames;
    uint64_t id = 0;  // by content, the same in every chunk
  };
  std::unordered_map<uint64_t, Stack> stacks_;  // this chunk's, by the reader's stack id
  std::unordered_map<std::string, uint64_t> stack_ids_;
  std::string content_;
};

// "name_[j]" -> ("name", kJit): the suffixes the profiler's collapsed output writes
// (prof::frame_type_suffix), read back; "[name tid=N]" is a thread's root frame.
SampleFrame collapsed_frame(std::string_view text) {
  SampleFrame f;
  f.name = text;
  for (int t = 0; t <= static_cast<int>(FrameType::kKernel); t++) {
    const std::string_view suffix = prof::frame_type_suffix(static_cast<FrameType>(t));
    if (!suffix.empty() && text.size() > suffix.size() && text.ends_with(suffix)) {
      f.type = static_cast<FrameType>(t);
      f.name = text.substr(0, text.size() - suffix.size());
      break;
    }
  }
  if (prof::is_thread_root_name(f.name)) f.type = FrameType::kThread;
  return f;
}

}  // namespace

bool is_jfr_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in.gcount() == 4 && std::memcmp(magic, "FLR\0", 4) == 0;
}

Error read_samples(const std::string& path, std::string_view event, const SampleFunction& f) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error("cannot read " + path + ": " + std::strerror(errno));
  unsigned char head[4] = {};
  in.read(reinterpret_cast<char*>(head), 4);
  if (in.gcount() == 4 && std::memcmp(head, "FLR\0", 4) == 0) return read_jfr_samples(path, f);
  // gzip, or a protobuf whose first field is 1 (sample_type) as length-delimited: pprof.
  if ((head[0] == 0x1f && head[1] == 0x8b) || head[0] == 0x0a) return read_pprof_samples(path, f);
  return read_collapsed_samples(path, event.empty() ? "cpu" : event, f);
}

Error read_jfr_samples(const std::string& path, const SampleFunction& f) {
  JfrSamples samples(f);
  return jfr::read_recording(path, [&](const jfr::ReadEvent& e) { return samples.on_event(e); });
}

Error read_collapsed_samples(const std::string& path, std::string_view event, const SampleFunction& f) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error("cannot read " + path + ": " + std::strerror(errno));
  std::string line;
  std::vector<SampleFrame> root_first;
  std::vector<SampleFrame> leaf_first;
  int64_t offset = 0;
  for (int64_t number = 1; std::getline(in, line); number++, offset += static_cast<int64_t>(line.size()) + 1) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.rfind(' ');
    char* end = nullptr;
    const long long count = space == std::string::npos ? -1 : std::strtoll(line.c_str() + space + 1, &end, 10);
    if (space == std::string::npos || space == 0 || end == line.c_str() + space + 1 || *end != '\0' || count < 0) {
      return Error(path + ": line " + std::to_string(number) + " (byte " + std::to_string(offset) +
                   ") is not \"frame;frame;... count\"");
    }
    root_first.clear();
    std::string_view stack(line.data(), space);
    for (size_t start = 0; start <= stack.size();) {
      const size_t semi = std::min(stack.find(';', start), stack.size());
      root_first.push_back(collapsed_frame(stack.substr(start, semi - start)));
      start = semi + 1;
    }
    Sample s;
    s.event = event;
    if (!root_first.empty() && root_first.front().type == FrameType::kThread) s.thread = root_first.front().name;
    if (root_first.back().type == FrameType::kClass) {
      s.leaf_class = root_first.back().name;
      root_first.pop_back();
    }
    leaf_first.assign(root_first.rbegin(), root_first.rend());
    s.frames = leaf_first;
    s.count = count;
    s.weight = count;
    if (!f(s)) break;
  }
  return Error::ok();
}

}  // namespace jvmkit::convert
