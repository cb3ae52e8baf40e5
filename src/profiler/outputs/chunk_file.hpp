// ChunkFile: a file of whole JFR chunks, written one chunk at a time at its end (jfr_output.hpp).
//
// A JFR file is a concatenation of self-contained chunks, so a file that holds the first chunks of
// a recording, or any run of them, is a whole recording. A ChunkFile keeps itself so: a chunk that
// cannot be written whole (a full disk writes a part of it, then fails) is cut off again, back to
// the last whole chunk, and the file is closed; a file that then holds no chunk is removed. A file
// whose path no longer names it (its directory removed, or another file put in its place while it
// was open) is noticed after each chunk: its chunks, which reach nobody there, can be read back
// through the open descriptor and written elsewhere.
//
// Not thread-safe: JfrOutput's mutex guards it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "base/error.hpp"

namespace jvmkit::prof {

class ChunkFile {
 public:
  ChunkFile() = default;
  ~ChunkFile();
  ChunkFile(const ChunkFile&) = delete;
  ChunkFile& operator=(const ChunkFile&) = delete;

  // Opens PATH for a new recording: created, or emptied when it exists (the file asked for).
  Error create(const std::string& path);
  // Opens PATH, an empty file reserved for this writer (a fallback file): no link is followed.
  Error open_reserved(const std::string& path);

  bool is_open() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }
  int64_t chunks() const { return chunks_; }
  int64_t samples() const { return samples_; }

  // Writes CHUNK (holding SAMPLES samples) at the end of the file. On a failure the file is cut
  // back to its whole chunks (the Error says so when that fails too) and closed.
  Error append(std::string_view chunk, int64_t samples);
  // Whether the path still names the open file.
  bool at_path() const;
  // The file's whole chunks, read back through its descriptor (for a file no longer at its path).
  Error read_back(std::string* bytes) const;
  // Closes the file; one that holds no chunk is removed when it is still at its path.
  void close();
  // Closes the file and forgets it (the file stays where it is, or is gone): its chunks were read
  // back to be written elsewhere.
  void abandon();

 private:
  Error open_fd(const std::string& path, int flags);

  int fd_ = -1;
  std::string path_;
  dev_t dev_ = 0;  // the open file's identity, for at_path
  ino_t ino_ = 0;
  int64_t size_ = 0;  // the bytes of its whole chunks
  int64_t chunks_ = 0;
  int64_t samples_ = 0;
};

}  // namespace jvmkit::prof
