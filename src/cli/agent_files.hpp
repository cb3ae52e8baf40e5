// Where the jvmkit tool finds the agent library, and the files it shares with a running JVM: the
// agent copy a JVM of another user or in another container loads, the reply the agent writes, and
// the profile the JVM writes into its own /tmp for the tool to copy to the user's path
// (docs/profiler/cli.md, "The jvmkit tool").
//
// Everything in the JVM's /tmp is reached through one directory descriptor of it, opened through
// /proc/<pid>/root, and by name without following symbolic links: another user can write there.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "base/error.hpp"

namespace jvmkit::cli {

constexpr std::string_view kAgentFileName = "libjvmkit_prof.so";

// The agent this tool loads: ENV_OVERRIDE ($JVMKIT_PROF_AGENT; null or empty when not set), else
// next to the tool, whose resolved path is SELF: <dir>/../lib/libjvmkit_prof.so (installed), then
// <dir>/libjvmkit_prof.so (build tree). *AGENT is absolute, with symbolic links resolved.
Error find_agent(const char* env_override, const std::string& self, std::string* agent);

// This executable's path (/proc/self/exe), and the working directory.
std::string self_path();
std::string current_directory();

// Whether the process PID sees the same file system as this one: the same mount namespace and root.
bool shares_file_system(pid_t pid);

// A file descriptor, closed when it goes.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();

  int get() const { return fd_; }
  int release();

 private:
  int fd_ = -1;
};

// A JVM's /tmp, as this process reaches it.
class TargetTmp {
 public:
  // Opens ROOT/tmp, ROOT being the JVM's root (/proc/<pid>/root; "/" or a test's folder).
  static Error open(const std::string& root, TargetTmp* out);

  // A name for a new file in it, "jvmkit-KIND-<our pid>-<random>EXTENSION", that does not exist
  // yet. The JVM sees the file as /tmp/<name>.
  std::string new_name(std::string_view kind, std::string_view extension) const;

  // Reads the file NAME and removes it. False (and TEXT empty) when there is no such file.
  bool take_text(const std::string& name, std::string* text) const;

  // Copies the file NAME to DESTINATION (a path of this process, created or replaced as this
  // process's user) and removes it.
  Error move_out(const std::string& name, const std::string& destination) const;

  // Removes the file NAME if it is there.
  void remove(const std::string& name) const;

  // Whether a regular file NAME is there (a symbolic link is not followed, and is not one).
  bool has_file(const std::string& name) const;

  // Puts the agent library (its bytes: AGENT) at /tmp/jvmkit-VERSION/libjvmkit_prof.so for a JVM
  // that cannot load this tool's own copy: the folder owned by UID, mode 0755, the file 0644. An
  // identical file there is used as it is; a different one is replaced (by renaming a new file over
  // it: a JVM that has the old one loaded keeps it intact). A folder there owned by someone other
  // than root or UID, writable by others, or not a folder is refused. *JVM_PATH: the file's path as
  // the JVM sees it.
  Error place_agent(const std::string& agent, uid_t uid, gid_t gid, std::string_view version,
                    std::string* jvm_path) const;

 private:
  std::string root_;
  UniqueFd fd_;
};

}  // namespace jvmkit::cli
