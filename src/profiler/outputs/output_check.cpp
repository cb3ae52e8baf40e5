#include "profiler/outputs/output_check.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "profiler/outputs/file_pattern.hpp"
#include "profiler/outputs/writers.hpp"

namespace jvmkit::prof {
namespace {

// Why DIR cannot hold a new file, from the errno of a failed stat or create in it.
std::string directory_reason(const std::string& dir, int err) {
  switch (err) {
    case ENOENT:
      return "directory " + dir + " does not exist";
    case ENOTDIR:
      return dir + " is not a directory";
    case EACCES:
    case EPERM:
      return "directory " + dir + " is not writable (" + std::strerror(err) + ")";
    case EROFS:
      return "directory " + dir + " is on a read-only file system";
    default:
      return "cannot create a file in directory " + dir + ": " + std::strerror(err);
  }
}

// Creates and removes a file of a name nobody uses in DIR: the one test of writability that
// answers for the user, the permissions, ACLs, read-only mounts and security modules alike.
Error probe_directory(const std::string& dir) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; attempt++) {
    const std::string probe = (dir == "/" ? std::string() : dir) + "/.jvmkit-probe-" + std::to_string(getpid()) + "-" +
                              std::to_string(counter.fetch_add(1));
    const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
      close(fd);
      unlink(probe.c_str());
      return Error::ok();
    }
    // ENOENT here, the directory being there: a file system that makes no files (/proc).
    if (errno == ENOENT) return Error("cannot create a file in directory " + dir + ": " + std::strerror(errno));
    if (errno != EEXIST) return Error(directory_reason(dir, errno));
  }
  return Error("cannot create a file in directory " + dir + ": every probe name is taken");
}

}  // namespace

std::string directory_of(std::string_view path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  // "/a//b/p.html": the directory is "/a//b"; "//p.html" and "/p.html": "/".
  size_t end = slash;
  while (end > 0 && path[end - 1] == '/') end--;
  return end == 0 ? "/" : std::string(path.substr(0, end));
}

std::vector<std::string> output_files(const Options& options, int pid, int64_t start_wall_ns) {
  const std::string file = expand_file_pattern(options.file, pid, start_wall_ns);
  if (options.format != OutputFormat::kCollapsed || options.events.size() <= 1) return {file};
  std::vector<std::string> out;
  for (const EventSpec* event : options.events) out.push_back(event_file_name(file, event->name));
  return out;
}

Error check_writable(const std::string& path) {
  const std::string dir = directory_of(path);
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) return Error(directory_reason(dir, errno));
  if (!S_ISDIR(st.st_mode)) return Error(dir + " is not a directory");
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Error(path + " is a directory");
    // An existing regular file is replaced by the writers: it must open for writing. Opening it
    // without O_TRUNC leaves it as it is. (Devices and pipes are not opened: a pipe would block.)
    if (S_ISREG(st.st_mode)) {
      const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) return Error(path + " is not writable (" + std::strerror(errno) + ")");
      close(fd);
    }
  }
  return probe_directory(dir);
}

Error check_output(std::string_view label, const Options& options, int pid, int64_t start_wall_ns) {
  for (const std::string& file : output_files(options, pid, start_wall_ns)) {
    if (Error e = check_writable(file)) return Error(std::string(label) + ": " + e.message());
  }
  return Error::ok();
}

}  // namespace jvmkit::prof
