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

}  // namespace jvmkit::prof
