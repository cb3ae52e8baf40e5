// Agent_OnLoad and the end of the native-frames test agent (stack_walk_native_agent).
//
// Options (comma separated, key=value; an unknown key fails the load):
//   interval_us=N          how often every thread is signalled (default 1000)
//   expect=CHECK/CHECK     workload checks to run at the end, '/'-separated (default none):
//                            deflate     the main thread compresses (jvmkit.test.walk.DeflateMain):
//                                        its samples in DeflateMain.compress with native frames
//                                        above Java frames join at Deflater.deflateBytesBytes,
//                                        without a marker; its samples hold zlib's frames
//                                        (libz.so.1, or libzip.so that embeds it)
//                            vm_threads  HotSpot's own threads (jvmkit.test.walk.VmThreadsMain):
//                                        C2 and C1 compiler threads, GC workers and the VM thread
//                                        get traces, never failures, that reach their first frame
//                            upcall      C between Java frames (jvmkit.test.walk.UpcallMain, library
//                                        in -Djvmkit.upcall.lib): the main thread's samples in leaf
//                                        read the whole chain in order, and leaf's time splits as
//                                        the library measured it (native_upcall.cpp)
//                            late        a library loaded while sampling (jvmkit.test.walk.LateMain,
//                                        library in -Djvmkit.late.lib): samples there end in
//                                        unprepared_library markers until it is prepared, and are
//                                        complete after (native_late.cpp)
//   min_samples=N          at least N traces delivered in all (default 500)
//   min_join_pct=N         deflate: share that joins at deflateBytesBytes (default 95)
//   min_zlib_pct=N         deflate: share of the main thread's samples in zlib (default 50)
//   min_main_native=N      deflate: at least N such samples in DeflateMain.compress (default 300)
//   min_per_kind=N         vm_threads: at least N traces of each kind of thread (default 50)
//   min_first_frame_pct=N  vm_threads: share of them that reach the first frame (default 90)
//   min_leaf_samples=N     upcall: at least N main-thread samples in leaf's reach (default 1000)
//   min_exact_pct=N        upcall: share of them that read the chain exactly (default 99)
//   max_tv_pct=N           upcall: leaf's shares at most N/100 from the truth, total variation (default 5)
//   ready_after_ms=N       late: samples this long after the load must be complete (default 500)
//   min_complete_pct=N     late: share of those that are complete (default 99)
//   min_late_samples=N     late: at least N samples in the library after ready_after_ms (default 1000)
// Always checked: every trace's shape and every callback (native_traces.cpp), one outcome per
// accepted request, and the library's counters against what the callbacks saw (native_stats.cpp).
// Any failed check is printed as a FAIL line; the process then exits with status 1.
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>

#include "native_agent.hpp"

namespace nativetest {

jvmtiEnv* g_jvmti = nullptr;

namespace {
JavaVM* g_vm = nullptr;
}  // namespace

JNIEnv* jni_env() {
  JNIEnv* jni = nullptr;
  return g_vm != nullptr && g_vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_8) == JNI_OK ? jni : nullptr;
}

namespace {

std::map<std::string, std::string> g_options;
std::atomic<int> g_failures{0};

const std::set<std::string>& known_options() {
  static const std::set<std::string> keys = {
      "interval_us",     "expect",         "min_samples",         "min_join_pct",     "min_zlib_pct",
      "min_main_native", "min_per_kind",   "min_first_frame_pct", "min_leaf_samples", "min_exact_pct",
      "max_tv_pct",      "ready_after_ms", "min_complete_pct",    "min_late_samples"};
  return keys;
}

// False, after saying which, on an item that is not key=value with a known key.
bool parse_options(const char* text) {
  const std::string s = text ? text : "";
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t comma = s.find(',', pos);
    const std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const size_t eq = item.find('=');
    if (eq == std::string::npos || known_options().count(item.substr(0, eq)) == 0) {
      std::fprintf(stderr, "native_agent: bad option '%s'\n", item.c_str());
      return false;
    }
    g_options[item.substr(0, eq)] = item.substr(eq + 1);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return true;
}

[[noreturn]] void finish(bool ok) {
  ok = ok && failures() == 0;
  std::fprintf(stderr, "native_agent: %s (%d failed checks)\n", ok ? "PASS" : "FAIL", failures());
  std::fflush(stderr);
  std::fflush(stdout);
  _exit(ok ? 0 : 1);
}

void JNICALL on_vm_init(jvmtiEnv*, JNIEnv*, jthread) { start_sampler(option_long("interval_us", 1000)); }

// Sampling stops first; Disable then waits for every accepted request's outcome, so the totals
// below are final.
void JNICALL on_vm_death(jvmtiEnv*, JNIEnv*) {
  stop_sampler();
  const jvmtiError err = DisableRequestStackTrace(g_jvmti);
  if (err != JVMTI_ERROR_NONE) fail("DisableRequestStackTrace returned %d", err);
  const SamplerTotals sampler = sampler_totals();
  bool ok = check_accounting(sampler);
  ok = check_outcomes(sampler.accepted) && ok;
  print_summary();
  print_trace_check_failures();
  const long min_samples = option_long("min_samples", 500);
  if (traces_delivered() < min_samples) {
    fail("only %lld traces delivered (want >= %ld)", (long long)traces_delivered(), min_samples);
  }
  if (expects("deflate")) ok = check_deflate() && ok;
  if (expects("vm_threads")) ok = check_vm_threads() && ok;
  if (expects("upcall")) ok = check_upcall() && ok;
  if (expects("late")) ok = check_late() && ok;
  finish(ok);
}

// Native frames prepared before Enable returns (WAIT): the first samples find every object loaded
// at start-up prepared.
bool enable_native_walker(JavaVM* vm) {
  jvmtiError err = JvmkitSetJavaVM(vm);
  if (err == JVMTI_ERROR_NONE) err = JvmkitSetNativeFrames(JVMKIT_NATIVE_ON | JVMKIT_NATIVE_WAIT);
  if (err != JVMTI_ERROR_NONE) {
    std::fprintf(stderr, "native_agent: JvmkitSetJavaVM / JvmkitSetNativeFrames returned %d\n", err);
    return false;
  }
  err = EnableRequestStackTrace(g_jvmti);
  if (err != JVMTI_ERROR_NONE) {
    std::fprintf(stderr, "native_agent: EnableRequestStackTrace in Agent_OnLoad returned %d\n", err);
    return false;
  }
  return true;
}

}  // namespace

std::string option(const char* key, const char* fallback) {
  const auto it = g_options.find(key);
  return it == g_options.end() ? fallback : it->second;
}

long option_long(const char* key, long fallback) {
  const auto it = g_options.find(key);
  return it == g_options.end() ? fallback : std::strtol(it->second.c_str(), nullptr, 10);
}

bool expects(const char* check) {
  return ("/" + option("expect", "") + "/").find("/" + std::string(check) + "/") != std::string::npos;
}

void fail(const char* fmt, ...) {
  if (g_failures.fetch_add(1) >= 30) return;  // the first ones say enough
  va_list args;
  va_start(args, fmt);
  std::fprintf(stderr, "FAIL: ");
  std::vfprintf(stderr, fmt, args);
  std::fprintf(stderr, "\n");
  va_end(args);
}

void count_failure() { g_failures.fetch_add(1); }

int failures() { return g_failures.load(); }

}  // namespace nativetest

using namespace nativetest;

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) {
  if (!parse_options(options)) return JNI_ERR;
  g_vm = vm;
  if (vm->GetEnv(reinterpret_cast<void**>(&g_jvmti), JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  if (!install_signal_handler()) return JNI_ERR;
  jvmtiEventCallbacks cb;
  std::memset(&cb, 0, sizeof(cb));
  cb.VMInit = on_vm_init;
  cb.VMDeath = on_vm_death;
  g_jvmti->SetEventCallbacks(&cb, sizeof(cb));
  g_jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, nullptr);
  g_jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, nullptr);
  return enable_native_walker(vm) ? JNI_OK : JNI_ERR;
}
