// Whole files: the profile formats that are written at once (html, collapsed, pprof, each window of
// loop=, a dump) never leave a part of a profile at the path asked for. Each file is written to a
// temporary name in its own directory (.NAME.jvmkit-PID-N.tmp), every write and the close checked,
// and renamed over the path only once whole; on a failure the temporary files are removed. So the
// path holds the whole profile, or what it held before (a full disk, a directory removed or made
// read-only meanwhile), never a page cut at 4 KiB that a pipeline would pick up.
//
// No fsync: the point is a file that is whole when it is seen, not one that survives a crash of
// the machine. A path that is a symbolic link is written where the link points (the link stays);
// one that is not a regular file (/dev/stdout, a pipe) is written directly, as it takes bytes as
// they come.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace jvmkit::prof {

// A file to write: its path and all of its bytes.
struct FileBytes {
  std::string path;
  std::string bytes;
};

// Writes every one of FILES as explained above: all of them to their temporary names first, then
// each renamed into place. RENAMED receives the paths that hold their new bytes, in FILES' order
// (all of them, unless a rename fails: then the ones before it). The Error names the file and why:
// "cannot write /x/p.html: No space left on device".
Error write_whole_files(std::span<const FileBytes> files, std::vector<std::string>* renamed);

// Writes all of BYTES to FD (write(2) may write less than asked; EINTR is retried). The Error
// names PATH: "cannot write PATH: <strerror>"; a write that takes no byte is ENOSPC.
Error write_all(int fd, std::string_view bytes, const std::string& path);

}  // namespace jvmkit::prof
