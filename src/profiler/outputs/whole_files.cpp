#include "profiler/outputs/whole_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "profiler/outputs/output_check.hpp"

namespace jvmkit::prof {
namespace {

Error cannot_write(const std::string& path, int err) {
  return Error("cannot write " + path + ": " + std::strerror(err));
}

// Where the bytes of PATH go: PATH, or the file a symbolic link PATH points to (renaming over the
// link would replace it with a file). A dangling link is replaced like any name.
std::string target_of(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
  char resolved[PATH_MAX];
  return realpath(path.c_str(), resolved) != nullptr ? std::string(resolved) : path;
}

// A new temporary file next to TARGET, created (O_EXCL, no link followed) with TARGET's mode when
// TARGET exists; its descriptor, or -1 with errno set.
int create_temporary(const std::string& target, std::string* name) {
  static std::atomic<unsigned> counter{0};
  const std::string dir = directory_of(target);
  const size_t slash = target.rfind('/');
  // The name of the file it will be, cut so that the temporary name stays within NAME_MAX.
  const std::string base = target.substr(slash == std::string::npos ? 0 : slash + 1).substr(0, 200);
  struct stat st {};
  const bool exists = stat(target.c_str(), &st) == 0;
  for (int attempt = 0; attempt < 100; attempt++) {
    *name = (dir == "/" ? std::string() : dir) + "/." + base + ".jvmkit-" + std::to_string(getpid()) + "-" +
            std::to_string(counter.fetch_add(1)) + ".tmp";
    const int fd = open(name->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST) continue;
    // The file keeps the permissions it had: a profile replaced is not made readable to others.
    if (fd >= 0 && exists) fchmod(fd, st.st_mode & 07777);
    return fd;
  }
  errno = EEXIST;
  return -1;
}

// Writes BYTES to FD and closes it (always); the first failure.
Error write_and_close(int fd, std::string_view bytes, const std::string& path) {
  Error e = write_all(fd, bytes, path);
  if (close(fd) != 0 && !e) e = cannot_write(path, errno);
  return e;
}

// A path that exists and is not a regular file (a device such as /dev/stdout, a pipe) is written
// as it is: it has no content to replace.
bool written_directly(const std::string& target) {
  struct stat st {};
  return stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

}  // namespace

Error write_all(int fd, std::string_view bytes, const std::string& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return cannot_write(path, n < 0 ? errno : ENOSPC);
    done += static_cast<size_t>(n);
  }
  return Error::ok();
}

Error write_whole_files(std::span<const FileBytes> files, std::vector<std::string>* renamed) {
  renamed->clear();
  // The temporary name of each file ("" for a file written directly), all written before any
  // rename: a profile of several files is in place whole, or not at all (unless a rename fails).
  std::vector<std::string> temporaries(files.size());
  std::vector<std::string> targets(files.size());
  auto remove_temporaries = [&](size_t from) {
    for (size_t i = from; i < files.size(); i++) {
      if (!temporaries[i].empty()) unlink(temporaries[i].c_str());
    }
  };
  for (size_t i = 0; i < files.size(); i++) {
    const FileBytes& f = files[i];
    targets[i] = target_of(f.path);
    if (written_directly(targets[i])) continue;
    const int fd = create_temporary(targets[i], &temporaries[i]);
    if (fd < 0) {
      const int err = errno;
      temporaries[i].clear();
      remove_temporaries(0);
      return cannot_write(f.path, err);
    }
    if (Error e = write_and_close(fd, f.bytes, f.path)) {
      remove_temporaries(0);
      return e;
    }
  }
  for (size_t i = 0; i < files.size(); i++) {
    if (temporaries[i].empty()) {
      const int fd = open(targets[i].c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
      if (fd < 0) {
        remove_temporaries(i + 1);
        return cannot_write(files[i].path, errno);
      }
      if (Error e = write_and_close(fd, files[i].bytes, files[i].path)) {
        remove_temporaries(i + 1);
        return e;
      }
    } else if (rename(temporaries[i].c_str(), targets[i].c_str()) != 0) {
      const int err = errno;
      remove_temporaries(i);
      return cannot_write(files[i].path, err);
    }
    renamed->push_back(files[i].path);
  }
  return Error::ok();
}

}  // namespace jvmkit::prof
