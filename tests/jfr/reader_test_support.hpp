// What the reader's tests keep of what they read, and how they read it: the callback's views die
// with the callback, so a test compares copies. Shared by the tests on ChunkWriter's recordings
// (reader_test.cpp) and on chunks of the JDK's layout (reader_jdk_layout_test.cpp). Test code only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "jfr/reader.hpp"

namespace jvmkit::jfr::test {

// The wall-clock start of every chunk the tests make, by either writer: what an event's time is
// read against.
inline constexpr int64_t kStartNanos = 1'764'000'000'123'456'789;

// --- What a test reads back: a copy of each event, whose views die with the callback ---

struct Frame {
  std::string klass, method, descriptor;
  int32_t line = 0;
  int32_t bci = -1;
  std::string type;
  bool operator==(const Frame&) const = default;
};

struct Event {
  std::string type;
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  std::string thread;  // "OS_TID/JAVA_TID/NAME", "" for none
  std::vector<Frame> frames;
  bool truncated = false;
  std::string object_class;
  int64_t weight = 0;
  std::string event_name, setting_type, setting_name, setting_value;
  bool operator==(const Event&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Event& e);

inline std::string thread_text(int64_t os_tid, int64_t java_tid, std::string_view name) {
  return std::to_string(os_tid) + "/" + std::to_string(java_tid) + "/" + std::string(name);
}

Event copy(const ReadEvent& e);

struct Read {
  Error error;
  std::vector<Event> events;
  ReadStats stats;
};

std::string temp_file(const std::string& name);

Read read_file(const std::string& path, size_t max_chunk = size_t{1} << 31, size_t stop_after = SIZE_MAX);

// A file in memory, named by its /proc path: the tests that read thousands of variants of a file
// do not wait for a disk.
class MemoryFile {
 public:
  MemoryFile();
  ~MemoryFile();
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;

  const std::string& path(std::string_view bytes) const;

 private:
  int fd_;
  std::string path_;
};

Read read_bytes(std::string_view bytes, size_t max_chunk = size_t{1} << 31, size_t stop_after = SIZE_MAX);

// The byte offset an error names ("... at byte N"), -1 when it names none.
int64_t error_offset(const Error& e);

}  // namespace jvmkit::jfr::test
