#include "hotspot/attach.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/clock.hpp"

namespace jvmkit::hotspot {

namespace {

std::string read_file(const std::string& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  *ok = static_cast<bool>(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The effective id from a "Uid:" or "Gid:" line of /proc/<pid>/status (real, effective, ...).
bool effective_id(const std::string& status, const char* field, unsigned* out) {
  std::istringstream lines(status);
  std::string line;
  const size_t n = std::strlen(field);
  while (std::getline(lines, line)) {
    if (line.compare(0, n, field) != 0) continue;
    std::istringstream ids(line.substr(n));
    unsigned real = 0, effective = 0;
    if (!(ids >> real >> effective)) return false;
    *out = effective;
    return true;
  }
  return false;
}

// Whether the process maps HotSpot's libjvm.so (any JDK layout: lib/server, lib/client, ...).
bool maps_libjvm(pid_t pid) {
  bool ok = false;
  const std::string maps = read_file("/proc/" + std::to_string(pid) + "/maps", &ok);
  return ok && maps.find("/libjvm.so") != std::string::npos;
}

void sleep_ms(int ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1'000'000L};
  nanosleep(&ts, nullptr);
}

std::string socket_path(const AttachTarget& t) { return t.root + "/tmp/.java_pid" + std::to_string(t.ns_pid); }

// Whether the JVM's attach socket is there. A socket older than the process is another's: a JVM
// that ran with the same pid and was killed before it could remove it (its listener, when it
// starts, replaces it).
bool socket_exists(const AttachTarget& t) {
  struct stat st {};
  if (stat(socket_path(t).c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) return false;
  return t.started_s == 0 || st.st_mtime + 1 >= t.started_s;  // a second's slack: btime is rounded
}

// Removes a socket older than the process (see socket_exists): the JVM's listener replaces it only
// when the file is its user's (/tmp is sticky), so another user's stale socket would keep it from
// starting. Returns why it could not be removed, empty when there was none or it is gone.
std::string remove_stale_socket(const AttachTarget& t) {
  struct stat st {};
  const std::string path = socket_path(t);
  if (stat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode) || socket_exists(t)) return {};
  if (unlink(path.c_str()) == 0 || errno == ENOENT) return {};
  return "a socket left by an earlier process at this pid, " + path + ", could not be removed (" +
         std::strerror(errno) + ")";
}

// When process PID started, in seconds since the epoch: its start in clock ticks after boot
// (/proc/PID/stat, field 22) plus the boot time (/proc/stat btime). 0 when unknown.
int64_t process_start_s(pid_t pid) {
  bool ok = false;
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat", &ok);
  const size_t comm_end = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (!ok || comm_end == std::string::npos) return 0;
  std::istringstream fields(stat.substr(comm_end + 2));
  std::string field;
  unsigned long long ticks = 0;
  for (int i = 3; i <= 22 && fields >> field; i++) {
    if (i == 22) ticks = std::strtoull(field.c_str(), nullptr, 10);
  }
  const std::string system = read_file("/proc/stat", &ok);
  const size_t btime = system.find("\nbtime ");
  const long hz = sysconf(_SC_CLK_TCK);
  if (!ok || btime == std::string::npos || ticks == 0 || hz <= 0) return 0;
  return std::strtoll(system.c_str() + btime + 7, nullptr, 10) +
         static_cast<int64_t>(ticks / static_cast<unsigned long long>(hz));
}

// The hsperfdata file of the JVM (/tmp/hsperfdata_<user>/<pid> in its namespace), if any.
std::string find_perfdata(const AttachTarget& t) {
  const std::string tmp = t.root + "/tmp";
  DIR* dir = opendir(tmp.c_str());
  if (dir == nullptr) return {};
  std::string found;
  while (dirent* e = readdir(dir)) {
    if (std::strncmp(e->d_name, "hsperfdata_", 11) != 0) continue;
    const std::string candidate = tmp + "/" + e->d_name + "/" + std::to_string(t.ns_pid);
    if (access(candidate.c_str(), R_OK) == 0) {
      found = candidate;
      break;
    }
  }
  closedir(dir);
  return found;
}

// Creates the trigger file in the JVM's working directory, else in its /tmp. Returns its path,
// empty if neither could be created.
std::string create_trigger(const AttachTarget& t) {
  const std::string name = "/.attach_pid" + std::to_string(t.ns_pid);
  for (const std::string& dir : {t.cwd, t.root + "/tmp"}) {
    const std::string path = dir + name;
    const int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0660);
    if (fd < 0) continue;
    // HotSpot accepts a trigger owned by the JVM's user or by root; when root attaches to
    // another user's JVM, hand the file over anyway, so it can also remove it.
    if (geteuid() == 0) (void)fchown(fd, t.uid, t.gid);
    close(fd);
    return path;
  }
  return {};
}

// Starts the attach listener (trigger file + SIGQUIT) and waits for its socket.
Error start_listener(const AttachTarget& t, int timeout_ms) {
  const std::string trigger = create_trigger(t);
  if (trigger.empty()) {
    return Error("cannot create the attach trigger file in the JVM's working directory or /tmp (" +
                 std::string(std::strerror(errno)) + ")");
  }
  Error result;
  if (kill(t.pid, SIGQUIT) != 0) {
    result = Error("cannot signal process " + std::to_string(t.pid) + ": " + std::strerror(errno));
  } else {
    const int64_t deadline = monotonic_ns() + static_cast<int64_t>(timeout_ms) * 1'000'000;
    int nap = 20;
    while (!socket_exists(t) && monotonic_ns() < deadline) {
      sleep_ms(nap);
      nap = nap < 200 ? nap * 2 : 200;
    }
    if (!socket_exists(t)) {
      result = Error("the JVM (pid " + std::to_string(t.pid) + ") did not start its attach listener within " +
                     std::to_string(timeout_ms / 1000) +
                     " s: attach may be disabled (-XX:+DisableAttachMechanism or -Xrs), or the JVM is "
                     "not responding");
    }
  }
  unlink(trigger.c_str());
  return result;
}

Error connect_listener(const AttachTarget& t, int* fd_out) {
  const std::string path = socket_path(t);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) return Error("attach socket path too long: " + path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error(std::string("socket: ") + std::strerror(errno));
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    const int err = errno;
    close(fd);
    if (err == EACCES || err == EPERM) {
      return Error("not permitted to connect to the JVM's attach socket " + path + ": run as the JVM's user (uid " +
                   std::to_string(t.uid) + ") or as root");
    }
    return Error("cannot connect to the JVM's attach socket " + path + ": " + std::strerror(err));
  }
  *fd_out = fd;
  return Error::ok();
}

Error write_all(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error(std::string("writing the attach request: ") + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return Error::ok();
}

// Reads until the listener closes the connection or the deadline passes.
Error read_reply(int fd, int timeout_ms, std::string* out) {
  const int64_t deadline = monotonic_ns() + static_cast<int64_t>(timeout_ms) * 1'000'000;
  char buffer[4096];
  for (;;) {
    const int64_t left_ms = (deadline - monotonic_ns()) / 1'000'000;
    if (left_ms <= 0) return Error("the JVM's attach listener did not finish its reply within the timeout");
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left_ms));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error(std::string("reading the attach reply: ") + std::strerror(errno));
    if (n == 0) return Error::ok();
    out->append(buffer, static_cast<size_t>(n));
  }
}

template <typename T>
T read_int(const std::string& b, size_t at, bool little) {
  T v = 0;
  for (size_t i = 0; i < sizeof(T); i++) {
    const auto byte = static_cast<uint8_t>(b[at + (little ? sizeof(T) - 1 - i : i)]);
    v = static_cast<T>((static_cast<uint64_t>(v) << 8) | byte);
  }
  return v;
}

}  // namespace

pid_t ns_pid_from_status(const std::string& status_text) {
  std::istringstream lines(status_text);
  std::string line;
  pid_t pid = 0, ns_pid = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("NSpid:", 0) == 0) {
      std::istringstream ids(line.substr(6));
      long id = 0;
      while (ids >> id) ns_pid = static_cast<pid_t>(id);
    } else if (line.rfind("Pid:", 0) == 0) {
      pid = static_cast<pid_t>(std::strtol(line.c_str() + 4, nullptr, 10));
    }
  }
  return ns_pid != 0 ? ns_pid : pid;
}

bool agent_result_from_load_output(const std::string& output, int* result) {
  const std::string key = "return code: ";
  const size_t at = output.find(key);
  const char* digits = at != std::string::npos ? output.c_str() + at + key.size() : output.c_str();
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(digits, &end, 10);
  if (end == digits || errno != 0) return false;
  *result = static_cast<int>(value);
  return true;
}

bool jvm_capabilities_from_perfdata(const std::string& b, std::string* capabilities) {
  constexpr size_t kPrologue = 32, kEntryHeader = 20;
  if (b.size() < kPrologue || static_cast<uint8_t>(b[0]) != 0xCA || static_cast<uint8_t>(b[1]) != 0xFE ||
      static_cast<uint8_t>(b[2]) != 0xC0 || static_cast<uint8_t>(b[3]) != 0xC0) {
    return false;
  }
  const bool little = b[4] == 1;
  size_t entry = read_int<uint32_t>(b, 24, little);
  const uint32_t count = read_int<uint32_t>(b, 28, little);
  const std::string wanted = "sun.rt.jvmCapabilities";
  for (uint32_t i = 0; i < count && entry + kEntryHeader <= b.size(); i++) {
    const uint32_t length = read_int<uint32_t>(b, entry, little);
    const uint32_t name_offset = read_int<uint32_t>(b, entry + 4, little);
    const uint32_t vector_length = read_int<uint32_t>(b, entry + 8, little);
    const uint32_t data_offset = read_int<uint32_t>(b, entry + 16, little);
    if (length < kEntryHeader || entry + length > b.size()) return false;
    if (entry + name_offset < b.size() &&
        b.compare(entry + name_offset, wanted.size() + 1, std::string(wanted.c_str(), wanted.size() + 1)) == 0) {
      if (entry + data_offset + vector_length > b.size()) return false;
      const std::string data = b.substr(entry + data_offset, vector_length);
      *capabilities = data.substr(0, data.find('\0'));
      return true;
    }
    entry += length;
  }
  return false;
}

Error find_attach_target(pid_t pid, AttachTarget* out) {
  if (pid <= 0) return Error("invalid pid " + std::to_string(pid));
  if (kill(pid, 0) != 0 && errno == ESRCH) return Error("no such process: " + std::to_string(pid));
  bool ok = false;
  const std::string proc = "/proc/" + std::to_string(pid);
  const std::string status = read_file(proc + "/status", &ok);
  if (!ok) return Error("no such process: " + std::to_string(pid));
  AttachTarget t;
  t.pid = pid;
  t.ns_pid = ns_pid_from_status(status);
  unsigned uid = 0, gid = 0;
  if (!effective_id(status, "Uid:", &uid) || !effective_id(status, "Gid:", &gid)) {
    return Error("cannot read the owner of process " + std::to_string(pid));
  }
  t.uid = uid;
  t.gid = gid;
  t.root = proc + "/root";
  t.cwd = proc + "/cwd";
  t.started_s = process_start_s(pid);
  if (geteuid() != 0 && geteuid() != t.uid) {
    return Error("not permitted to attach to process " + std::to_string(pid) + " (uid " + std::to_string(t.uid) +
                 "): run as that user or as root");
  }
  if (!maps_libjvm(pid)) return Error("process " + std::to_string(pid) + " is not a HotSpot JVM (no libjvm.so)");
  const std::string perfdata = find_perfdata(t);
  if (!perfdata.empty()) {
    std::string capabilities;
    if (jvm_capabilities_from_perfdata(read_file(perfdata, &ok), &capabilities) && !capabilities.empty() &&
        capabilities[0] == '0') {
      t.attach_disabled = true;
    }
  }
  if (t.attach_disabled && !socket_exists(t)) {
    return Error("the JVM (pid " + std::to_string(pid) + ") does not accept attach (-XX:+DisableAttachMechanism)");
  }
  *out = t;
  return Error::ok();
}

Error attach_execute(const AttachTarget& target, const std::string& command, const std::array<std::string, 3>& args,
                     int timeout_ms, AttachReply* reply) {
  if (!socket_exists(target)) {
    const std::string stale = remove_stale_socket(target);
    if (Error e = start_listener(target, timeout_ms)) return stale.empty() ? e : Error(e.message() + "; " + stale);
  }
  int fd = -1;
  if (Error e = connect_listener(target, &fd)) return e;
  std::string request("1", 2);  // protocol version 1, NUL included
  request.append(command).push_back('\0');
  for (const std::string& a : args) request.append(a).push_back('\0');
  std::string bytes;
  Error e = write_all(fd, request);
  if (!e) e = read_reply(fd, timeout_ms, &bytes);
  close(fd);
  if (e) return e;
  const size_t newline = bytes.find('\n');
  char* end = nullptr;
  const long status = std::strtol(bytes.c_str(), &end, 10);
  if (end == bytes.c_str() || newline == std::string::npos) {
    return Error("unexpected reply from the JVM's attach listener: '" + bytes.substr(0, 80) + "'");
  }
  reply->status = static_cast<int>(status);
  reply->output = bytes.substr(newline + 1);
  return Error::ok();
}

Error attach_load_agent(const AttachTarget& target, const std::string& path, const std::string& options, int timeout_ms,
                        int* agent_result, std::string* output) {
  AttachReply reply;
  if (Error e = attach_execute(target, "load", {path, "true", options}, timeout_ms, &reply)) return e;
  *output = reply.output;
  if (reply.status != 0) {
    return Error("the JVM could not load " + path + " (status " + std::to_string(reply.status) + "): " + reply.output);
  }
  // A library the JVM could not load: JDK 17 answers with a status of its own, later JDKs with
  // status 0 and the message instead of "return code".
  if (!agent_result_from_load_output(reply.output, agent_result)) {
    std::string message = reply.output;
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return Error("the JVM could not load " + path + ": " + message);
  }
  return Error::ok();
}

}  // namespace jvmkit::hotspot
