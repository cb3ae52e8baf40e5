#include "profiler/thread_list.hpp"

#include <dirent.h>

#include <cstdio>
#include <cstdlib>

namespace jvmkit::prof {

std::vector<pid_t> list_process_threads() {
  std::vector<pid_t> tids;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return tids;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    tids.push_back(static_cast<pid_t>(std::atoi(entry->d_name)));
  }
  closedir(dir);
  return tids;
}

std::string thread_os_name(pid_t tid) {
  std::string path = "/proc/self/task/" + std::to_string(tid) + "/comm";
  FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return "";
  char buf[64] = {0};
  std::string name = std::fgets(buf, sizeof(buf), f) != nullptr ? buf : "";
  std::fclose(f);
  while (!name.empty() && name.back() == '\n') name.pop_back();
  return name;
}

std::vector<pid_t> threads_started(const std::vector<pid_t>& now, std::set<pid_t>* listed,
                                   const std::function<bool(pid_t)>& skip) {
  std::set<pid_t> seen;
  std::vector<pid_t> started;
  for (pid_t tid : now) {
    if (listed->count(tid) != 0) {
      seen.insert(tid);
      continue;
    }
    const std::string name = thread_os_name(tid);
    if (name == "java" || name.empty()) continue;
    seen.insert(tid);
    if (name.rfind("jvmkit", 0) == 0 || (skip && skip(tid))) continue;
    started.push_back(tid);
  }
  *listed = std::move(seen);
  return started;
}

}  // namespace jvmkit::prof
