// mode=probe: the trace a current-thread request delivers, compared with JVMTI GetStackTrace taken
// at the same moment. Java calls Agent.probe() (a native method) from many places, among them
// frames the VM entered itself (static initialisers, ClassLoader.loadClass run by class
// resolution, reflection through the native accessor, JNI callbacks); probe() takes
// GetStackTrace, then signals its own thread, whose handler requests the unbiased trace with the
// check's number as user_data. Delivery compares the two frame by frame (method; bci for Java
// frames): a trace cut short at a VM-to-Java call shows as a mismatch in the frame count.
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent.hpp"
#include "base/thread_id.hpp"
#include "tests/support/queue_signal.hpp"
#include "tests/support/signal_handler.hpp"

namespace walktest {

namespace {

constexpr int kMaxDepth = 1024;

struct Frame {
  jmethodID method;
  jlocation location;
};

std::mutex g_mutex;
std::unordered_map<int64_t, std::vector<Frame>> g_expected;  // by check number
std::atomic<int64_t> g_next_check{1};
std::atomic<int64_t> g_refused_by_error[128] = {};
std::atomic<int64_t> g_requested{0}, g_refused{0}, g_compared{0}, g_mismatched{0}, g_failed{0};
int g_printed = 0;

// The trace being delivered (callbacks run on one thread).
std::vector<Frame> g_delivered;

int probe_signal() { return SIGRTMIN + 4; }

void probe_handler(int, siginfo_t* info, void* ucontext);

jvmtiStackTraceCallbacks probe_callbacks();

std::string describe(jmethodID method) {
  char* name = nullptr;
  jclass holder = nullptr;
  std::string out = "?";
  if (g_jvmti->GetMethodName(method, &name, nullptr, nullptr) == JVMTI_ERROR_NONE &&
      g_jvmti->GetMethodDeclaringClass(method, &holder) == JVMTI_ERROR_NONE) {
    char* sig = nullptr;
    if (g_jvmti->GetClassSignature(holder, &sig, nullptr) == JVMTI_ERROR_NONE) {
      out = std::string(sig) + "." + name;
      g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(sig));
    }
  }
  if (name) g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(name));
  if (holder) {
    JNIEnv* jni = nullptr;
    g_vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6);
    jni->DeleteLocalRef(holder);
  }
  return out;
}

bool is_native(jmethodID method) {
  jboolean native = JNI_FALSE;
  g_jvmti->IsMethodNative(method, &native);
  return native == JNI_TRUE;
}

// Index of the first frame where the traces differ, or -1 when they agree.
int first_difference(const std::vector<Frame>& expected, const std::vector<Frame>& got) {
  const size_t n = std::min(expected.size(), got.size());
  for (size_t i = 0; i < n; i++) {
    if (expected[i].method != got[i].method) return static_cast<int>(i);
    // A native frame has no bci (GetStackTrace says -1).
    if (!is_native(expected[i].method) && expected[i].location != got[i].location) return static_cast<int>(i);
  }
  return expected.size() == got.size() ? -1 : static_cast<int>(n);
}

void print_mismatch(int64_t check, const std::vector<Frame>& expected, const std::vector<Frame>& got, int at) {
  std::fprintf(stderr, "  check %lld: traces differ at frame %d (GetStackTrace %zu frames, delivered %zu)\n",
               (long long)check, at, expected.size(), got.size());
  const size_t n = std::max(expected.size(), got.size());
  for (size_t i = 0; i < n && i < 40; i++) {
    std::string e = i < expected.size() ? describe(expected[i].method) + "@" + std::to_string(expected[i].location)
                                        : std::string("-");
    std::string g = i < got.size() ? describe(got[i].method) + "@" + std::to_string(got[i].location) : std::string("-");
    std::fprintf(stderr, "    #%zu %s %-70s | %s\n", i, static_cast<int>(i) == at ? "*" : " ", e.c_str(), g.c_str());
  }
}

void JNICALL on_begin(jthread, jboolean, void*) { g_delivered.clear(); }

jint JNICALL on_frame(jvmtiFrameType, jmethodID method, jlocation location, void*) {
  g_delivered.push_back(Frame{method, location});
  return JVMKIT_FRAME_CONTINUE;
}

void JNICALL on_end(jthread, void* ud) {
  const int64_t check = static_cast<int64_t>(reinterpret_cast<intptr_t>(ud));
  std::vector<Frame> expected;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_expected.find(check);
    if (it == g_expected.end()) {
      violation("probe check %lld delivered but never taken", (long long)check);
      return;
    }
    expected = std::move(it->second);
    g_expected.erase(it);
  }
  g_compared++;
  const int at = first_difference(expected, g_delivered);
  if (at >= 0) {
    g_mismatched++;
    if (g_printed++ < 5) print_mismatch(check, expected, g_delivered, at);
  }
}

void JNICALL on_failure(jthread, void* ud) {
  g_failed++;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_expected.erase(static_cast<int64_t>(reinterpret_cast<intptr_t>(ud)));
}

jvmtiStackTraceCallbacks probe_callbacks() { return jvmtiStackTraceCallbacks{on_begin, on_end, on_frame, on_failure}; }

void probe_handler(int, siginfo_t* info, void* ucontext) {
  const int saved = errno;
  const jvmtiError err = RequestStackTrace(g_jvmti, nullptr, ucontext, probe_callbacks(), info->si_value.sival_ptr);
  if (err != JVMTI_ERROR_NONE) {
    g_refused.fetch_add(1, std::memory_order_relaxed);
    g_refused_by_error[err >= 0 && err < 128 ? err : 0].fetch_add(1, std::memory_order_relaxed);
  }
  errno = saved;
}

}  // namespace

void install_probe_handler() { jvmkit::testing::install_siginfo_handler(probe_signal(), probe_handler); }

bool check_probes(long min_checks) {
  const int64_t pending = [] {
    std::lock_guard<std::mutex> lock(g_mutex);
    return static_cast<int64_t>(g_expected.size());
  }();
  std::fprintf(
      stderr,
      "PROBE: %lld checks requested, %lld refused, %lld compared with GetStackTrace, %lld differ, %lld failed, "
      "%lld undelivered\n",
      (long long)g_requested.load(), (long long)g_refused.load(), (long long)g_compared.load(),
      (long long)g_mismatched.load(), (long long)g_failed.load(), (long long)pending);
  for (int e = 0; e < 128; e++) {
    if (g_refused_by_error[e].load() != 0) {
      std::fprintf(stderr, "  refused with error %d: %lld\n", e, (long long)g_refused_by_error[e].load());
    }
  }
  bool ok = true;
  if (g_mismatched.load() != 0) {
    violation("%lld delivered traces differ from GetStackTrace", (long long)g_mismatched.load());
    ok = false;
  }
  if (g_compared.load() < min_checks) {
    violation("only %lld checks compared (need %ld)", (long long)g_compared.load(), min_checks);
    ok = false;
  }
  return ok;
}

}  // namespace walktest

using namespace walktest;

extern "C" {

// Takes GetStackTrace of the current thread, then the unbiased trace of the same moment.
JNIEXPORT void JNICALL Java_jvmkit_test_walk_Agent_probe(JNIEnv*, jclass) {
  if (mode() != "probe") return;  // the probe signal has no handler in other modes
  jvmtiFrameInfo frames[kMaxDepth];
  jint count = 0;
  if (g_jvmti->GetStackTrace(nullptr, 0, kMaxDepth, frames, &count) != JVMTI_ERROR_NONE || count >= kMaxDepth) return;
  const int64_t check = g_next_check.fetch_add(1);
  std::vector<Frame> expected;
  expected.reserve(static_cast<size_t>(count));
  for (jint i = 0; i < count; i++) expected.push_back(Frame{frames[i].method, frames[i].location});
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_expected.emplace(check, std::move(expected));
  }
  g_requested++;
  sigval value;
  value.sival_ptr = reinterpret_cast<void*>(static_cast<intptr_t>(check));
  // Delivered to this thread before the call returns: the handler runs on this very stack.
  if (!jvmkit::testing::queue_signal(jvmkit::current_tid(), probe_signal(), value)) {
    violation("probe: could not signal the current thread");
  }
}

// Calls r.run() through JNI: Java entered again from native code.
JNIEXPORT void JNICALL Java_jvmkit_test_walk_Agent_callBack(JNIEnv* jni, jclass, jobject r) {
  jclass c = jni->GetObjectClass(r);
  jmethodID run = jni->GetMethodID(c, "run", "()V");
  jni->CallVoidMethod(r, run);
  jni->DeleteLocalRef(c);
}

}  // extern "C"
