#include <sys/syscall.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "agent.hpp"
#include "base/thread_id.hpp"

namespace walktest {

jvmtiEnv* g_jvmti = nullptr;
JavaVM* g_vm = nullptr;
Tracked g_tracked[kMaxTracked];
std::atomic<int> g_tracked_count{0};

namespace {
std::atomic<int> g_violations{0};
std::map<std::string, std::string>& options_map() {
  static std::map<std::string, std::string> m;
  return m;
}
}  // namespace

void parse_options(const char* text) {
  std::string s = text ? text : "";
  size_t pos = 0;
  while (pos < s.size()) {
    size_t comma = s.find(',', pos);
    std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t eq = item.find('=');
    if (eq != std::string::npos) options_map()[item.substr(0, eq)] = item.substr(eq + 1);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
}

std::string option(const char* key, const char* fallback) {
  auto it = options_map().find(key);
  return it == options_map().end() ? fallback : it->second;
}

long option_long(const char* key, long fallback) {
  auto it = options_map().find(key);
  return it == options_map().end() ? fallback : std::strtol(it->second.c_str(), nullptr, 10);
}

void violation(const char* fmt, ...) {
  int n = g_violations.fetch_add(1);
  if (n >= 20) return;  // the first ones say enough
  va_list args;
  va_start(args, fmt);
  std::fprintf(stderr, "VIOLATION: ");
  std::vfprintf(stderr, fmt, args);
  std::fprintf(stderr, "\n");
  va_end(args);
}

int violations() { return g_violations.load(); }

void finish(bool ok) {
  ok = ok && violations() == 0;
  std::fprintf(stderr, "stack_walk test: %s (%d violations)\n", ok ? "PASS" : "FAIL", violations());
  std::fflush(stderr);
  std::fflush(stdout);
  _exit(ok ? 0 : 1);
}

void track_current_thread(JNIEnv* jni, jthread thread) {
  jvmtiThreadInfo info;
  std::memset(&info, 0, sizeof(info));
  if (g_jvmti->GetThreadInfo(thread, &info) != JVMTI_ERROR_NONE || info.name == nullptr) return;
  std::string prefixes = option("track", "worker-");
  bool match = false;
  size_t pos = 0;
  while (pos <= prefixes.size()) {
    size_t colon = prefixes.find(':', pos);
    std::string p = prefixes.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
    if (!p.empty() && std::strncmp(info.name, p.c_str(), p.size()) == 0) match = true;
    if (colon == std::string::npos) break;
    pos = colon + 1;
  }
  pid_t self = jvmkit::current_tid();
  for (int i = 0; i < std::min(g_tracked_count.load(), kMaxTracked); i++) {
    if (g_tracked[i].tid.load() == self) match = false;  // already tracked (main: VMInit and ThreadStart)
  }
  if (match) {
    int index = g_tracked_count.fetch_add(1);
    if (index < kMaxTracked) {
      Tracked& t = g_tracked[index];
      std::snprintf(t.name, sizeof(t.name), "%s", info.name);
      t.thread = jni->NewGlobalRef(thread);
      t.tid.store(self);
    }
  }
  g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(info.name));
  if (info.thread_group) jni->DeleteLocalRef(info.thread_group);
  if (info.context_class_loader) jni->DeleteLocalRef(info.context_class_loader);
}

void untrack_current_thread() {
  pid_t self = jvmkit::current_tid();
  int n = std::min(g_tracked_count.load(), kMaxTracked);
  for (int i = 0; i < n; i++) {
    pid_t expected = self;
    g_tracked[i].tid.compare_exchange_strong(expected, 0);
  }
}

Tracked* find_tracked_by_name_prefix(const char* prefix, int nth) {
  int n = std::min(g_tracked_count.load(), kMaxTracked);
  for (int i = 0; i < n; i++) {
    if (std::strncmp(g_tracked[i].name, prefix, std::strlen(prefix)) == 0 && nth-- == 0) return &g_tracked[i];
  }
  return nullptr;
}

}  // namespace walktest
