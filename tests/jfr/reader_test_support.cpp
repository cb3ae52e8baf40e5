// The copies the reader's tests keep of what they read, and the reading into them (see
// reader_test_support.hpp).
#include "reader_test_support.hpp"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

namespace jvmkit::jfr::test {

std::ostream& operator<<(std::ostream& out, const Event& e) {
  out << e.type << " start=" << e.start_ns << " duration=" << e.duration_ns << " thread=" << e.thread
      << " class=" << e.object_class << " weight=" << e.weight << " event=" << e.event_name << " setting=("
      << e.setting_type << "," << e.setting_name << "," << e.setting_value << ") truncated=" << e.truncated;
  for (const Frame& f : e.frames)
    out << "\n  " << f.klass << "." << f.method << f.descriptor << " " << f.line << " " << f.bci << " " << f.type;
  return out;
}

Event copy(const ReadEvent& e) {
  Event out{std::string(e.type), e.start_ns, e.duration_ns};
  if (e.thread != nullptr) out.thread = thread_text(e.thread->os_tid, e.thread->java_tid, e.thread->name);
  for (const ReadFrame& f : e.frames) {
    out.frames.push_back({std::string(f.class_name), std::string(f.method), std::string(f.descriptor), f.line, f.bci,
                          std::string(f.type)});
  }
  out.truncated = e.truncated;
  out.object_class = e.object_class;
  out.weight = e.weight;
  out.event_name = e.event_name;
  out.setting_type = e.setting_type;
  out.setting_name = e.setting_name;
  out.setting_value = e.setting_value;
  return out;
}

std::string temp_file(const std::string& name) {
  return testing::TempDir() + "jfr_reader_" + std::to_string(getpid()) + "_" + name;
}

Read read_file(const std::string& path, size_t max_chunk, size_t stop_after) {
  Read r;
  r.error = read_recording(
      path,
      [&](const ReadEvent& e) {
        r.events.push_back(copy(e));
        return r.events.size() < stop_after;
      },
      &r.stats, max_chunk);
  return r;
}

MemoryFile::MemoryFile()
    : fd_(memfd_create("jfr_reader_test", MFD_CLOEXEC)), path_("/proc/self/fd/" + std::to_string(fd_)) {}

MemoryFile::~MemoryFile() { close(fd_); }

const std::string& MemoryFile::path(std::string_view bytes) const {
  EXPECT_EQ(ftruncate(fd_, 0), 0);
  EXPECT_EQ(pwrite(fd_, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
  return path_;
}

Read read_bytes(std::string_view bytes, size_t max_chunk, size_t stop_after) {
  const MemoryFile file;
  return read_file(file.path(bytes), max_chunk, stop_after);
}

int64_t error_offset(const Error& e) {
  const std::string& m = e.message();
  const size_t at = m.rfind("at byte ");
  if (at == std::string::npos) return -1;
  return std::stoll(m.substr(at + 8));
}

}  // namespace jvmkit::jfr::test
