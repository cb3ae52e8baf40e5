#include "profiler/recording/native_frames.hpp"

#include <cstdio>
#include <cstring>

#include "native/demangle.hpp"

namespace jvmkit::prof {
namespace {

// "libz.so.1" of "/usr/lib/x86_64-linux-gnu/libz.so.1"; "[vdso]" stays "[vdso]".
std::string_view base_name(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string hex(int64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

// An object the library could not place: no file, so no offset that would mean anything.
bool is_placeless(std::string_view library) { return library.empty() || library == "[unknown]"; }

}  // namespace

std::string native_frame_name(const NativeFrameInfo& frame) {
  if (frame.type == FrameType::kSynthetic) return kMarkerNames[frame.marker < kMarkerReasons ? frame.marker : 0];
  if (frame.type == FrameType::kKernel) {
    // Unnamed (kallsyms hidden, the report says so): one name, not a name per address.
    return frame.symbol != nullptr ? std::string(frame.symbol) : "[kernel]";
  }
  if (frame.symbol != nullptr) return native::strip_parameters(frame.symbol);
  const std::string_view library = frame.library != nullptr ? frame.library : "";
  // A stub of HotSpot's without a name, or code of nothing known: the PC alone would make a name
  // per sample.
  if (is_placeless(library)) return "[unknown]";
  if (library == "[code cache]") return "[code cache]";
  return std::string(base_name(library)) + "+" + hex(frame.library_offset);
}

std::string native_frame_file(const NativeFrameInfo& frame) {
  if (frame.type == FrameType::kSynthetic || frame.library == nullptr) return "";
  return std::string(base_name(frame.library));
}

size_t NativeMethods::KeyHash::operator()(const Key& k) const {
  uint64_t h = reinterpret_cast<uintptr_t>(k.symbol) * 0x9E3779B97F4A7C15ull;
  h ^= reinterpret_cast<uintptr_t>(k.library) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
  h ^= static_cast<uint64_t>(k.offset) * 0xBF58476D1CE4E5B9ull + static_cast<uint8_t>(k.type);
  return static_cast<size_t>(h ^ (h >> 31));
}

void NativeMethods::reset(Profile* profile) {
  profile_ = profile;
  by_pointer_.clear(/*free=*/true);
  by_name_.clear();
  have_marker_.fill(false);
}

uint32_t NativeMethods::add(std::string name, std::string file, std::string_view object) {
  std::string key = name;
  key += '\0';
  key += object;
  auto found = by_name_.find(key);
  if (found != by_name_.end()) return found->second;
  const uint32_t id = profile_->add_method(std::move(name), std::move(file), object);
  // A refused method ([overflow]) is not cached: the tables stay bounded by the profile's limits.
  if (!profile_->is_overflow_method(id)) by_name_.emplace(std::move(key), id);
  return id;
}

uint32_t NativeMethods::method(const NativeFrameInfo& frame) {
  if (frame.type == FrameType::kSynthetic) {
    const size_t reason = frame.marker < kMarkerReasons ? frame.marker : 0;
    if (have_marker_[reason]) return markers_[reason];
    const uint32_t id = profile_->add_method(kMarkerNames[reason], "");
    if (profile_->is_overflow_method(id)) return id;
    markers_[reason] = id;
    have_marker_[reason] = true;
    return id;
  }
  // Without a symbol the name holds the offset (the PC, for the kernel).
  const int64_t offset = frame.symbol != nullptr            ? 0
                         : frame.type == FrameType::kKernel ? frame.pc
                                                            : frame.library_offset;
  const Key key{frame.symbol, frame.library, offset, frame.type};
  if (const uint32_t* found = by_pointer_.find(key)) return *found;
  const uint32_t id =
      add(native_frame_name(frame), native_frame_file(frame), frame.library != nullptr ? frame.library : "");
  if (!profile_->is_overflow_method(id)) by_pointer_.insert(key, id);
  return id;
}

}  // namespace jvmkit::prof
