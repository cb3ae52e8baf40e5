#include "profiler/jfr_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "profiler/file_pattern.hpp"
#include "profiler/jfr_chunk.hpp"

namespace jvmkit::prof {

namespace {

// Writes all of BYTES to FD (write(2) may write less than asked, e.g. on a full disk).
Error write_all(int fd, const std::string& bytes, const std::string& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error("cannot write " + path + ": " + std::strerror(n < 0 ? errno : ENOSPC));
    done += static_cast<size_t>(n);
  }
  return Error::ok();
}

}  // namespace

JfrOutput::JfrOutput(const Options& options, std::string fallback_dir, int64_t anchor_wall_ns, int64_t anchor_mono_ns)
    : options_(options),
      fallback_dir_(std::move(fallback_dir)),
      anchor_wall_ns_(anchor_wall_ns),
      anchor_mono_ns_(anchor_mono_ns),
      chunk_start_mono_ns_(anchor_mono_ns) {}

JfrOutput::~JfrOutput() {
  if (fd_ >= 0) close(fd_);
}

std::string JfrOutput::chunk_of(const std::vector<const Profile*>& profiles, const std::vector<TimedSample>& samples,
                                const std::vector<SampleThread>& threads, int64_t end_mono_ns, bool final) {
  JfrChunkSpan span;
  span.anchor_wall_ns = anchor_wall_ns_;
  span.anchor_mono_ns = anchor_mono_ns_;
  span.start_mono_ns = chunk_start_mono_ns_;
  span.end_mono_ns = end_mono_ns;
  span.recording_start_wall_ns = anchor_wall_ns_;
  span.final = final;
  span.next_key = &next_key_;
  return jfr_chunk(options_, path_, span, profiles, samples, threads);
}

void JfrOutput::write_chunk(Recording& recording, int64_t now_mono_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ < 0 && !open_file(chunk_start_mono_ns_)) return;
  std::string chunk;
  int64_t samples = 0;
  recording.take_chunk([&](const std::vector<const Profile*>& profiles, const std::vector<TimedSample>& taken,
                           const std::vector<SampleThread>& threads) {
    chunk = chunk_of(profiles, taken, threads, now_mono_ns, false);
    samples = static_cast<int64_t>(taken.size());
  });
  write(chunk, samples);
  chunk_start_mono_ns_ = now_mono_ns;
}

void JfrOutput::end_file(const Recording::Window& window, int64_t end_mono_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ < 0 && !open_file(chunk_start_mono_ns_)) return;
  std::vector<const Profile*> profiles;
  for (const auto& p : window.profiles) profiles.push_back(p.get());
  write(chunk_of(profiles, window.samples, window.threads, end_mono_ns, true),
        static_cast<int64_t>(window.samples.size()));
  chunk_start_mono_ns_ = end_mono_ns;
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  path_.clear();
  next_key_ = 1;
}

// Opens the file of a recording (or window) that starts at START_MONO_NS: the pattern's file, or
// a fallback file when that cannot be opened.
bool JfrOutput::open_file(int64_t start_mono_ns) {
  const int64_t start_wall = anchor_wall_ns_ + (start_mono_ns - anchor_mono_ns_);
  path_ = expand_file_pattern(options_.file, static_cast<int>(getpid()), start_wall);
  next_key_ = 1;
  fd_ = open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ >= 0) {
    result_.files.push_back({path_, WrittenFile::kAllEvents});
    return true;
  }
  if (!result_.error) result_.error = Error("cannot write " + path_ + ": " + std::strerror(errno));
  Options fallback;
  result_.fallback = true;
  if (Error e = reserve_fallback(options_, fallback_dir_, static_cast<int>(getpid()), start_wall, &fallback)) {
    result_.fallback_error = e;
    path_.clear();
    return false;
  }
  path_ = fallback.file;
  fd_ = open(path_.c_str(), O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
  if (fd_ < 0) {
    result_.fallback_error = Error("cannot write " + path_ + ": " + std::strerror(errno));
    path_.clear();
    return false;
  }
  result_.files.push_back({path_, WrittenFile::kAllEvents});
  return true;
}

void JfrOutput::write(const std::string& chunk, int64_t samples) {
  if (fd_ < 0) return;
  if (Error e = write_all(fd_, chunk, path_)) {
    // The chunks before stay readable; the rest of the recording goes to a fallback file.
    if (!result_.error) result_.error = e;
    close(fd_);
    fd_ = -1;
    if (!open_file(chunk_start_mono_ns_) || write_all(fd_, chunk, path_)) return;
  }
  chunks_++;
  samples_written_ += samples;
}

int64_t JfrOutput::samples_written() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return samples_written_;
}

OutputResult JfrOutput::take_result() {
  std::lock_guard<std::mutex> lock(mutex_);
  OutputResult out = std::move(result_);
  result_ = OutputResult();
  // The file being written stays the result's next time too: it holds the chunks to come.
  if (fd_ >= 0) result_.files.push_back({path_, WrittenFile::kAllEvents});
  return out;
}

}  // namespace jvmkit::prof
