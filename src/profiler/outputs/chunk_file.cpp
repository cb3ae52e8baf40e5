#include "profiler/outputs/chunk_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "profiler/outputs/whole_files.hpp"

namespace jvmkit::prof {

ChunkFile::~ChunkFile() { close(); }

Error ChunkFile::open_fd(const std::string& path, int flags) {
  close();
  path_ = path;
  size_ = chunks_ = samples_ = 0;
  // Read and write: the chunks are read back when the file leaves its path. A file only its owner
  // may write (and not read) is written without that.
  fd_ = open(path.c_str(), flags | O_RDWR | O_CLOEXEC, 0644);
  if (fd_ < 0 && errno == EACCES) fd_ = open(path.c_str(), flags | O_WRONLY | O_CLOEXEC, 0644);
  if (fd_ < 0) return Error("cannot write " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd_, &st) == 0) {
    dev_ = st.st_dev;
    ino_ = st.st_ino;
  }
  return Error::ok();
}

Error ChunkFile::create(const std::string& path) { return open_fd(path, O_CREAT | O_TRUNC); }

Error ChunkFile::open_reserved(const std::string& path) { return open_fd(path, O_TRUNC | O_NOFOLLOW); }

Error ChunkFile::append(std::string_view chunk, int64_t samples) {
  if (fd_ < 0) return Error("cannot write " + path_ + ": the file is closed");
  Error e = write_all(fd_, chunk, path_);
  if (!e) {
    size_ += static_cast<int64_t>(chunk.size());
    chunks_++;
    samples_ += samples;
    return e;
  }
  // A full disk takes a part of the chunk: cut it off, so that the file ends with a whole chunk.
  struct stat st {};
  if (fstat(fd_, &st) == 0 && st.st_size != size_ && ftruncate(fd_, size_) != 0) {
    e = Error(e.message() + "; the part of a chunk at its end could not be cut off (" + std::strerror(errno) +
              "): readers stop before it");
  }
  close();
  return e;
}

bool ChunkFile::at_path() const {
  struct stat st {};
  return fd_ >= 0 && stat(path_.c_str(), &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_;
}

Error ChunkFile::read_back(std::string* bytes) const {
  bytes->assign(static_cast<size_t>(size_), '\0');
  size_t done = 0;
  while (done < bytes->size()) {
    const ssize_t n = pread(fd_, bytes->data() + done, bytes->size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error("cannot read " + path_ + " back: " + std::strerror(n < 0 ? errno : EIO));
    done += static_cast<size_t>(n);
  }
  return Error::ok();
}

void ChunkFile::close() {
  if (fd_ < 0) return;
  // A file without a chunk is no recording: nothing is left at the path (unless it is another's).
  if (chunks_ == 0 && at_path()) unlink(path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

void ChunkFile::abandon() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  chunks_ = samples_ = size_ = 0;
}

}  // namespace jvmkit::prof
