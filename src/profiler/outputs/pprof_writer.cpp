// pprof: profile.proto (github.com/google/pprof/blob/main/proto/profile.proto), gzip-compressed.
// One Function per method name (+ file), one Location per (function, line), one Sample per
// distinct stack of locations (leaf first, as pprof wants). Java frames belong to the one Mapping
// that names the program; native frames to a Mapping per object (libz.so.1, libjvm.so).
#include <zlib.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "profiler/outputs/proto_encoder.hpp"
#include "profiler/outputs/writers.hpp"

namespace jvmkit::prof {
namespace {

// profile.proto field numbers.
namespace pf {
constexpr uint32_t kSampleType = 1, kSample = 2, kMapping = 3, kLocation = 4, kFunction = 5, kStringTable = 6,
                   kTimeNanos = 9, kDurationNanos = 10, kPeriodType = 11, kPeriod = 12, kDefaultSampleType = 14;
}
namespace vt {  // ValueType
constexpr uint32_t kType = 1, kUnit = 2;
}
namespace sp {  // Sample
constexpr uint32_t kLocationId = 1, kValue = 2, kLabel = 3;
}
namespace lb {  // Label
constexpr uint32_t kKey = 1, kStr = 2;
}
namespace mp {  // Mapping
constexpr uint32_t kId = 1, kFilename = 5, kHasFunctions = 7, kHasFilenames = 8, kHasLineNumbers = 9,
                   kHasInlineFrames = 10;
}
namespace loc {  // Location / Line
constexpr uint32_t kId = 1, kMappingId = 2, kLine = 4;
constexpr uint32_t kLineFunctionId = 1, kLineLine = 2;
}  // namespace loc
namespace fn {  // Function
constexpr uint32_t kId = 1, kName = 2, kSystemName = 3, kFilename = 4;
}

class StringTable {
 public:
  StringTable() { index(""); }
  int64_t index(const std::string& s) {
    auto [it, inserted] = ids_.try_emplace(s, static_cast<int64_t>(strings_.size()));
    if (inserted) strings_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  std::unordered_map<std::string, int64_t> ids_;
  std::vector<std::string> strings_;
};

std::string gzip(const std::string& raw) {
  z_stream zs{};
  // windowBits 15 + 16: a gzip header and trailer rather than zlib's.
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return "";
  std::string out(deflateBound(&zs, raw.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  zs.avail_in = static_cast<uInt>(raw.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return rc == Z_STREAM_END ? out : "";
}

ProtoEncoder value_type(StringTable& strings, const std::string& type, const std::string& unit) {
  ProtoEncoder e;
  e.int64_field(vt::kType, strings.index(type));
  e.int64_field(vt::kUnit, strings.index(unit));
  return e;
}

}  // namespace

std::string pprof_bytes(std::span<const EventProfile> events, const RunInfo& info) {
  StringTable strings;
  ProtoEncoder out;
  for (const EventProfile& e : events) {
    out.message_field(pf::kSampleType, value_type(strings, e.count_type, "count"));
    out.message_field(pf::kSampleType, value_type(strings, e.value_type, e.value_unit));
  }

  // One Mapping, the program: pprof's tools name the profile after it ("Main binary filename not
  // available" without one). Every location is symbolized already, with files and lines.
  constexpr uint64_t kMappingId = 1;
  ProtoEncoder mapping;
  mapping.varint_field(mp::kId, kMappingId);
  mapping.int64_field(mp::kFilename, strings.index(info.program));
  mapping.varint_field(mp::kHasFunctions, 1);
  mapping.varint_field(mp::kHasFilenames, 1);
  mapping.varint_field(mp::kHasLineNumbers, 1);
  mapping.varint_field(mp::kHasInlineFrames, 1);
  out.message_field(pf::kMapping, mapping);

  // Native frames (cstack=native): a Mapping per object (its path), named symbols already.
  std::map<std::string, uint64_t> object_mappings;
  auto mapping_of = [&](const std::string& object) {
    auto [it, inserted] = object_mappings.try_emplace(object, kMappingId + 1 + object_mappings.size());
    if (inserted) {
      ProtoEncoder m;
      m.varint_field(mp::kId, it->second);
      m.int64_field(mp::kFilename, strings.index(object));
      m.varint_field(mp::kHasFunctions, 1);
      out.message_field(pf::kMapping, m);
    }
    return it->second;
  };

  // Functions and locations are shared by the events' profiles: keyed by name and file, and by
  // function and line.
  std::map<std::pair<std::string, std::string>, uint64_t> function_ids;  // (name, file) -> id
  std::unordered_map<uint64_t, uint64_t> function_mappings;              // function id -> its mapping
  std::map<std::pair<uint64_t, int32_t>, uint64_t> location_ids;         // (function, line) -> id
  // Samples: one per distinct location stack, request-context labels and event (nodes differing
  // only in frame type merge). A stack's label frame becomes the sample's labels (key, str), one
  // per label, as string-table indices.
  using SampleKey = std::tuple<size_t, std::vector<uint64_t>, std::vector<std::pair<int64_t, int64_t>>>;
  std::map<SampleKey, std::pair<int64_t, int64_t>> samples;  // -> count, weight
  for (size_t e = 0; e < events.size(); e++) {
    const Profile& profile = *events[e].profile;
    const auto& methods = profile.methods();
    const auto& nodes = profile.nodes();
    std::vector<uint64_t> function_of_method(methods.size(), 0);
    std::vector<uint64_t> location_of_node(nodes.size(), 0);
    for (size_t m = 0; m < methods.size(); m++) {
      if (profile.labels_of(static_cast<uint32_t>(m)) != nullptr) continue;  // sample labels, not frames
      auto key = std::make_pair(methods[m].name, methods[m].file);
      auto [it, inserted] = function_ids.try_emplace(key, function_ids.size() + 1);
      function_of_method[m] = it->second;
      if (inserted) {
        function_mappings[it->second] =
            methods[m].object != 0 ? mapping_of(profile.objects()[methods[m].object]) : kMappingId;
        ProtoEncoder f;
        f.varint_field(fn::kId, it->second);
        f.int64_field(fn::kName, strings.index(methods[m].name));
        f.int64_field(fn::kSystemName, strings.index(methods[m].name));
        f.int64_field(fn::kFilename, strings.index(methods[m].file));
        out.message_field(pf::kFunction, f);
      }
    }
    for (size_t i = 1; i < nodes.size(); i++) {
      if (nodes[i].frame.type == FrameType::kLabels) continue;
      uint64_t function = function_of_method[nodes[i].frame.method];
      auto key = std::make_pair(function, nodes[i].frame.line);
      auto [it, inserted] = location_ids.try_emplace(key, location_ids.size() + 1);
      location_of_node[i] = it->second;
      if (inserted) {
        ProtoEncoder line;
        line.varint_field(loc::kLineFunctionId, function);
        line.int64_field(loc::kLineLine, nodes[i].frame.line);
        ProtoEncoder l;
        l.varint_field(loc::kId, it->second);
        l.varint_field(loc::kMappingId, function_mappings[function]);
        l.message_field(loc::kLine, line);
        out.message_field(pf::kLocation, l);
      }
    }
    std::vector<uint64_t> stack;
    std::vector<std::pair<int64_t, int64_t>> labels;
    for (size_t i = 1; i < nodes.size(); i++) {
      if (nodes[i].self == 0) continue;
      stack.clear();
      labels.clear();
      for (uint32_t n = static_cast<uint32_t>(i); n != Profile::kRoot; n = nodes[n].parent) {
        if (nodes[n].frame.type != FrameType::kLabels) {
          stack.push_back(location_of_node[n]);
        } else if (const std::vector<Label>* set = profile.labels_of(nodes[n].frame.method)) {
          for (const Label& l : *set) labels.emplace_back(strings.index(l.key), strings.index(l.value));
        }
      }
      auto& [count, weight] = samples[{e, stack, labels}];
      count += nodes[i].self;
      weight += events[e].weighted ? nodes[i].self_weight : nodes[i].self * events[e].interval;
    }
  }
  std::vector<int64_t> values(2 * events.size(), 0);
  for (const auto& [key, value] : samples) {
    std::fill(values.begin(), values.end(), 0);
    const auto& [event, stack, labels] = key;
    values[2 * event] = value.first;
    values[2 * event + 1] = value.second;
    ProtoEncoder s;
    s.packed_field(sp::kLocationId, stack);
    s.packed_field(sp::kValue, values);
    for (const auto& [label_key, label_value] : labels) {
      ProtoEncoder l;
      l.int64_field(lb::kKey, label_key);
      l.int64_field(lb::kStr, label_value);
      s.message_field(sp::kLabel, l);
    }
    out.message_field(pf::kSample, s);
  }
  out.int64_field(pf::kTimeNanos, info.start_time_ns);
  out.int64_field(pf::kDurationNanos, info.duration_ns);
  if (!events.empty()) {
    const EventProfile& first = events[0];
    out.message_field(pf::kPeriodType, value_type(strings, first.value_type, first.value_unit));
    out.int64_field(pf::kPeriod, first.interval);
    out.int64_field(pf::kDefaultSampleType, strings.index(first.value_type));
  }
  // The string table goes last: every index above has been handed out by now.
  for (const std::string& s : strings.strings()) out.bytes_field(pf::kStringTable, s);
  return gzip(out.bytes());
}

std::string pprof_bytes(const Profile& profile, const RunInfo& info) {
  const EventProfile single = event_profile(profile, info);
  return pprof_bytes(std::span<const EventProfile>(&single, 1), info);
}

}  // namespace jvmkit::prof
