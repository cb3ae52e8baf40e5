// Owners of elfutils handles and file descriptors, so that every early return releases them.
//
// Not signal context: elfutils allocates. A handle belongs to one thread at a time (libelf and
// libdwfl handles are not thread-safe).
#pragma once

#include <elfutils/libdwfl.h>
#include <libelf.h>
#include <unistd.h>

#include <memory>
#include <utility>

namespace jvmkit::native {

struct ElfEnd {
  void operator()(Elf* elf) const noexcept { elf_end(elf); }
};
using ElfHandle = std::unique_ptr<Elf, ElfEnd>;

struct DwflEnd {
  void operator()(Dwfl* dwfl) const noexcept { dwfl_end(dwfl); }
};
using DwflHandle = std::unique_ptr<Dwfl, DwflEnd>;

// A file descriptor closed when it goes out of scope, unless release()d to a new owner.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) noexcept : fd_(fd) {}
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.release()) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) close(fd_);
  }

  int get() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }
  int release() noexcept { return std::exchange(fd_, -1); }

 private:
  int fd_ = -1;
};

// libelf's version handshake, which must precede elf_begin/elf_memory. Idempotent.
inline void init_libelf() noexcept {
  static const bool done = elf_version(EV_CURRENT) != EV_NONE;
  (void)done;
}

}  // namespace jvmkit::native
