#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "convert/samples.hpp"
#include "jfr/reader.hpp"

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
  if (e.type == "jvmkit.WallClockSample") return "wall";
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
    frames_.clear();
    for (const jfr::ReadFrame& f : e.frames) frames_.push_back({name_of(f), frame_type(f.type), f.line});
    s.frames = frames_;
    s.truncated = e.truncated;
    s.leaf_class = e.object_class;
    if (e.type == "jdk.ThreadPark" && e.object_class.empty()) s.leaf_class = "[no blocker]";
    if (event == "lock") {
      s.weight = e.duration_ns;
    } else if (event == "cpu" || event == "wall") {
      auto it = periods_.find(std::string(e.type));
      s.weight = it != periods_.end() ? it->second : 0;
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
    auto it = names_.find(key_);
    if (it == names_.end()) it = names_.emplace(key_, key_).first;
    return it->second;
  }

  const SampleFunction& f_;
  std::unordered_map<std::string, int64_t> periods_;  // by event type
  std::unordered_map<std::string, std::string> names_;
  std::string key_;
  std::vector<SampleFrame> frames_;
};

// "name_[j]" -> ("name", kJit): the profiler's frame-type suffixes.
SampleFrame collapsed_frame(std::string_view text) {
  SampleFrame f;
  f.name = text;
  if (text.size() > 4 && text.substr(text.size() - 4, 2) == "_[" && text.back() == ']') {
    const char c = text[text.size() - 2];
    bool known = true;
    switch (c) {
      case 'j':
        f.type = FrameType::kJit;
        break;
      case 'i':
        f.type = FrameType::kInlined;
        break;
      case '0':
        f.type = FrameType::kInterpreted;
        break;
      case 'n':
        f.type = FrameType::kNative;
        break;
      case 'k':
        f.type = FrameType::kClass;
        break;
      case 'K':
        f.type = FrameType::kKernel;
        break;
      default:
        known = false;
    }
    if (known) f.name = text.substr(0, text.size() - 4);
  }
  if (f.name.size() > 2 && f.name.front() == '[' && f.name.back() == ']' &&
      f.name.find(" tid=") != std::string_view::npos) {
    f.type = FrameType::kThread;
  }
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
