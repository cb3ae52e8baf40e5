#include "cli/agent_files.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "base/clock.hpp"

namespace jvmkit::cli {

namespace {

std::string errno_text() { return std::strerror(errno); }

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string resolved(const std::string& path) {
  char buffer[PATH_MAX];
  return realpath(path.c_str(), buffer) != nullptr ? std::string(buffer) : path;
}

std::string read_link(const std::string& path) {
  char buffer[PATH_MAX];
  const ssize_t n = readlink(path.c_str(), buffer, sizeof(buffer) - 1);
  return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : std::string();
}

// Everything FD holds from its current position.
bool read_all(int fd, std::string* out) {
  out->clear();
  char buffer[65536];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    out->append(buffer, static_cast<size_t>(n));
  }
}

bool write_all(int fd, std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

std::string random_hex() {
  uint64_t bits = 0;
  if (getrandom(&bits, sizeof(bits), GRND_NONBLOCK) != static_cast<ssize_t>(sizeof(bits))) {
    bits = static_cast<uint64_t>(clock_ns(CLOCK_REALTIME)) ^ (static_cast<uint64_t>(getpid()) << 32);
  }
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; i++) out += kDigits[(bits >> (4 * i)) & 0xF];
  return out;
}

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) close(fd_);
}

int UniqueFd::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

Error find_agent(const char* env_override, const std::string& self, std::string* agent) {
  if (env_override != nullptr && env_override[0] != '\0') {
    const std::string path(env_override);
    if (!is_regular_file(path)) return Error("JVMKIT_PROF_AGENT=" + path + ": no such file");
    *agent = resolved(path);
    return Error::ok();
  }
  const std::string dir = self.substr(0, self.rfind('/'));
  for (const std::string& candidate :
       {dir + "/../lib/" + std::string(kAgentFileName), dir + "/" + std::string(kAgentFileName)}) {
    if (is_regular_file(candidate)) {
      *agent = resolved(candidate);
      return Error::ok();
    }
  }
  return Error("cannot find " + std::string(kAgentFileName) + " next to " + self + " (looked in " + dir +
               "/../lib and " + dir + "); set JVMKIT_PROF_AGENT");
}

std::string self_path() { return read_link("/proc/self/exe"); }

std::string current_directory() {
  char buffer[PATH_MAX];
  if (getcwd(buffer, sizeof(buffer)) != nullptr) return buffer;
  const char* pwd = std::getenv("PWD");
  return pwd != nullptr ? pwd : "/";
}

bool shares_file_system(pid_t pid) {
  const std::string proc = "/proc/" + std::to_string(pid);
  const std::string ours = read_link("/proc/self/ns/mnt");
  const std::string theirs = read_link(proc + "/ns/mnt");
  if (!ours.empty() && !theirs.empty() && ours != theirs) return false;
  struct stat our_root {
  }, their_root{};
  if (stat("/", &our_root) != 0 || stat((proc + "/root").c_str(), &their_root) != 0) return false;
  return our_root.st_dev == their_root.st_dev && our_root.st_ino == their_root.st_ino;
}

Error TargetTmp::open(const std::string& root, TargetTmp* out) {
  // The root itself is followed (/proc/<pid>/root is a link by design); /tmp under it is not.
  UniqueFd root_fd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (root_fd.get() < 0) return Error("cannot open the JVM's file system (" + root + "): " + errno_text());
  UniqueFd tmp(openat(root_fd.get(), "tmp", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (tmp.get() < 0) return Error("cannot open the JVM's /tmp (" + root + "/tmp): " + errno_text());
  out->root_ = root;
  out->fd_ = std::move(tmp);
  return Error::ok();
}

std::string TargetTmp::new_name(std::string_view kind, std::string_view extension) const {
  for (;;) {
    std::string name = "jvmkit-" + std::string(kind) + "-" + std::to_string(getpid()) + "-" + random_hex();
    name += extension;
    struct stat st {};
    if (fstatat(fd_.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT) return name;
  }
}

bool TargetTmp::take_text(const std::string& name, std::string* text) const {
  text->clear();
  UniqueFd fd(openat(fd_.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) return false;
  const bool ok = read_all(fd.get(), text);
  unlinkat(fd_.get(), name.c_str(), 0);
  return ok;
}

Error TargetTmp::move_out(const std::string& name, const std::string& destination) const {
  UniqueFd in(openat(fd_.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (in.get() < 0) return Error("the JVM wrote no file /tmp/" + name + " (in " + root_ + "): " + errno_text());
  struct stat st {};
  if (fstat(in.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    remove(name);
    return Error("/tmp/" + name + " in the JVM's file system is not a regular file");
  }
  std::string bytes;
  if (!read_all(in.get(), &bytes))
    return Error("cannot read /tmp/" + name + " in the JVM's file system: " + errno_text());
  UniqueFd out(::open(destination.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666));
  if (out.get() < 0) {
    return Error("cannot write " + destination + ": " + errno_text() + " (the profile stays in the JVM's /tmp/" + name +
                 ")");
  }
  if (!write_all(out.get(), bytes)) return Error("cannot write " + destination + ": " + errno_text());
  remove(name);
  return Error::ok();
}

void TargetTmp::remove(const std::string& name) const { unlinkat(fd_.get(), name.c_str(), 0); }

bool TargetTmp::has_file(const std::string& name) const {
  struct stat st {};
  return fstatat(fd_.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

Error TargetTmp::place_agent(const std::string& agent, uid_t uid, gid_t gid, std::string_view version,
                             std::string* jvm_path) const {
  std::string bytes;
  {
    UniqueFd in(::open(agent.c_str(), O_RDONLY | O_CLOEXEC));
    if (in.get() < 0 || !read_all(in.get(), &bytes)) return Error("cannot read " + agent + ": " + errno_text());
  }
  const std::string dir_name = "jvmkit-" + std::string(version);
  const std::string shown = "/tmp/" + dir_name + " (in " + root_ + ")";
  const bool created = mkdirat(fd_.get(), dir_name.c_str(), 0755) == 0;
  if (!created && errno != EEXIST) return Error("cannot create " + shown + ": " + errno_text());
  UniqueFd dir(openat(fd_.get(), dir_name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (dir.get() < 0) return Error(shown + " is not a folder (or is a symbolic link): " + errno_text() + "; refused");
  // Root may hand files to the JVM's user; anyone else creates them as the JVM's user already.
  const bool hand_over = geteuid() == 0;
  if (created && ((hand_over && fchown(dir.get(), uid, gid) != 0) || fchmod(dir.get(), 0755) != 0)) {
    return Error("cannot set the owner and mode of " + shown + ": " + errno_text());
  }
  struct stat st {};
  if (fstat(dir.get(), &st) != 0) return Error("cannot read " + shown + ": " + errno_text());
  if (st.st_uid != 0 && st.st_uid != uid) {
    return Error(shown + " belongs to uid " + std::to_string(st.st_uid) + ", neither root nor the JVM's user (uid " +
                 std::to_string(uid) + "); refused: remove it");
  }
  if ((st.st_mode & S_IWOTH) != 0) return Error(shown + " is writable by others; refused: remove it");
  *jvm_path = "/tmp/" + dir_name + "/" + std::string(kAgentFileName);

  const std::string file = std::string(kAgentFileName);
  {
    UniqueFd existing(openat(dir.get(), file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    struct stat est {};
    std::string existing_bytes;
    if (existing.get() >= 0 && fstat(existing.get(), &est) == 0 && S_ISREG(est.st_mode) &&
        (est.st_uid == 0 || est.st_uid == uid) && (est.st_mode & (S_IWGRP | S_IWOTH)) == 0 &&
        read_all(existing.get(), &existing_bytes) && existing_bytes == bytes) {
      return Error::ok();
    }
  }
  const std::string fresh = file + ".new-" + std::to_string(getpid()) + "-" + random_hex();
  UniqueFd out(openat(dir.get(), fresh.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (out.get() < 0) return Error("cannot create a file in " + shown + ": " + errno_text());
  const bool written =
      (!hand_over || fchown(out.get(), uid, gid) == 0) && fchmod(out.get(), 0644) == 0 && write_all(out.get(), bytes);
  if (!written || renameat(dir.get(), fresh.c_str(), dir.get(), file.c_str()) != 0) {
    const std::string why = errno_text();
    unlinkat(dir.get(), fresh.c_str(), 0);
    return Error("cannot put the agent into " + shown + ": " + why);
  }
  return Error::ok();
}

}  // namespace jvmkit::cli
