// The CPU time of jvmkit's delivery thread, read from /proc, for the stack-walk benchmark agents.
// The thread is a JVMTI agent thread named JVMKIT_WALK_THREAD_NAME; its kernel comm is the name cut
// at 15 characters. Not signal context (opens files, allocates).
#pragma once

#include <dirent.h>
#include <sys/types.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include <jvmkit/stack_walk.h>

namespace jvmkit::bench {

// The tid of the delivery thread, or 0 when it is not running (yet).
inline pid_t find_delivery_thread() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return 0;
  pid_t found = 0;
  while (dirent* e = readdir(dir)) {
    std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
    std::string name;
    std::getline(comm, name);
    if (name == std::string(JVMKIT_WALK_THREAD_NAME).substr(0, 15)) found = static_cast<pid_t>(std::atol(e->d_name));
  }
  closedir(dir);
  return found;
}

// A thread's scheduler accounting (/proc/.../schedstat, exact to the ns, unlike the 10 ms ticks of
// /proc/.../stat): time on a CPU, and time spent runnable but waiting for one.
struct SchedStat {
  int64_t cpu_ns = -1;
  int64_t wait_ns = -1;
};

inline SchedStat thread_schedstat(pid_t tid) {
  SchedStat s;
  if (tid == 0) return s;
  std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/schedstat");
  long long cpu = -1, wait = -1;
  if (stat >> cpu >> wait) {
    s.cpu_ns = cpu;
    s.wait_ns = wait;
  }
  return s;
}

// CPU time of thread TID in nanoseconds; -1 when unreadable.
inline int64_t thread_cpu_ns(pid_t tid) { return thread_schedstat(tid).cpu_ns; }

inline int64_t delivery_thread_cpu_ns() { return thread_cpu_ns(find_delivery_thread()); }

// "1.23 0.98 0.75": the 1, 5 and 15 minute load averages, printed beside every figure.
inline std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

}  // namespace jvmkit::bench
