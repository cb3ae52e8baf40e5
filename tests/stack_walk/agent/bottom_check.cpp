// The bottom-frame check (option require_bottom=Class.method/Class.method...): on every tracked
// thread, once a trace has ended in one of those frames, every later trace delivered unbiased must
// end in one too. A thread attached through JNI (the main thread, a native thread calling Java) has
// no Thread.run at its bottom; its real bottom is the method the native code called, which a test
// program names here. A trace cut short ends anywhere else.
//
// Also the JNI entry points the programs of this check use: Agent.runAttached (a native thread,
// attached through JNI, runs a Runnable) and Agent.bottomChecked (how many traces were checked).
#include <pthread.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "agent.hpp"

namespace walktest {

namespace {

std::vector<std::string> g_bottoms;  // "Class.method", Class the simple name
std::atomic<int64_t> g_printed{0};

// "Class.method" of METHOD, Class its simple name (no package, no enclosing class).
std::string qualified_name(jmethodID method) {
  char* name = nullptr;
  char* sig = nullptr;
  jclass holder = nullptr;
  std::string out = "?";
  if (g_jvmti->GetMethodName(method, &name, nullptr, nullptr) == JVMTI_ERROR_NONE &&
      g_jvmti->GetMethodDeclaringClass(method, &holder) == JVMTI_ERROR_NONE &&
      g_jvmti->GetClassSignature(holder, &sig, nullptr) == JVMTI_ERROR_NONE) {
    std::string cls(sig);  // "Lpkg/Outer$Inner;"
    cls = cls.substr(0, cls.size() - 1);
    const size_t cut = cls.find_last_of("/$");
    out = (cut == std::string::npos ? cls.substr(1) : cls.substr(cut + 1)) + "." + name;
  }
  if (name) g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(name));
  if (sig) g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(sig));
  if (holder) jni_env()->DeleteLocalRef(holder);
  return out;
}

}  // namespace

void set_required_bottoms(const std::string& spec) {
  size_t pos = 0;
  while (pos < spec.size()) {
    const size_t slash = spec.find('/', pos);
    g_bottoms.push_back(spec.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos));
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
}

void check_bottom_of_trace(Tracked& tracked, const std::vector<jmethodID>& frames, bool biased) {
  if (g_bottoms.empty() || biased || frames.empty()) return;
  const std::string name = qualified_name(frames.back());
  const bool right = std::find(g_bottoms.begin(), g_bottoms.end(), name) != g_bottoms.end();
  if (right) tracked.reached_bottom.store(true);
  if (!tracked.reached_bottom.load()) return;
  tracked.bottom_checked++;
  if (right) return;
  tracked.wrong_bottom++;
  if (g_printed++ >= 8) return;
  std::fprintf(stderr, "  trace of %s ends in %s, %zu frames:\n", tracked.name, name.c_str(), frames.size());
  for (jmethodID m : frames) std::fprintf(stderr, "    %s\n", qualified_name(m).c_str());
}

bool check_bottoms(long min_checked) {
  if (g_bottoms.empty()) return true;
  bool ok = true;
  for (int i = 0; i < std::min(g_tracked_count.load(), kMaxTracked); i++) {
    Tracked& t = g_tracked[i];
    std::fprintf(stderr, "  thread %-24s unbiased traces checked for their bottom frame %lld, wrong %lld\n", t.name,
                 (long long)t.bottom_checked.load(), (long long)t.wrong_bottom.load());
    if (t.wrong_bottom.load() != 0) {
      violation("thread %s: %lld unbiased traces do not end in its bottom frame", t.name,
                (long long)t.wrong_bottom.load());
      ok = false;
    }
    if (t.bottom_checked.load() < min_checked) {
      violation("thread %s: only %lld traces checked (want >= %ld)", t.name, (long long)t.bottom_checked.load(),
                min_checked);
      ok = false;
    }
  }
  return ok;
}

int64_t bottom_checked(const char* prefix) {
  int64_t sum = 0;
  for (int i = 0; i < std::min(g_tracked_count.load(), kMaxTracked); i++) {
    if (std::strncmp(g_tracked[i].name, prefix, std::strlen(prefix)) == 0) sum += g_tracked[i].bottom_checked.load();
  }
  return sum;
}

}  // namespace walktest

using namespace walktest;

namespace {

struct Attached {
  const char* name;
  jobject runnable;  // global ref
};

// A native thread that attaches itself (named), runs the Runnable, and detaches.
void* attached_main(void* arg) {
  Attached* a = static_cast<Attached*>(arg);
  JNIEnv* jni = nullptr;
  JavaVMAttachArgs args{JNI_VERSION_1_8, const_cast<char*>(a->name), nullptr};
  if (g_vm->AttachCurrentThread(reinterpret_cast<void**>(&jni), &args) != JNI_OK) {
    violation("runAttached: AttachCurrentThread failed");
    return nullptr;
  }
  jclass c = jni->GetObjectClass(a->runnable);
  jni->CallVoidMethod(a->runnable, jni->GetMethodID(c, "run", "()V"));
  if (jni->ExceptionCheck()) {
    jni->ExceptionDescribe();
    violation("runAttached: the Runnable threw");
  }
  jni->DeleteLocalRef(c);
  jni->DeleteGlobalRef(a->runnable);
  g_vm->DetachCurrentThread();
  return nullptr;
}

}  // namespace

extern "C" {

// Runs r.run() on a new native thread attached through JNI as NAME; returns when it has detached.
JNIEXPORT void JNICALL Java_jvmkit_test_walk_Agent_runAttached(JNIEnv* jni, jclass, jstring name, jobject r) {
  const char* chars = jni->GetStringUTFChars(name, nullptr);
  std::string copy(chars);
  jni->ReleaseStringUTFChars(name, chars);
  Attached a{copy.c_str(), jni->NewGlobalRef(r)};
  pthread_t thread;
  if (pthread_create(&thread, nullptr, attached_main, &a) != 0) {
    violation("runAttached: pthread_create failed");
    return;
  }
  pthread_join(thread, nullptr);
}

// Unbiased traces checked for their bottom frame so far, on the tracked threads named PREFIX...
JNIEXPORT jlong JNICALL Java_jvmkit_test_walk_Agent_bottomChecked(JNIEnv* jni, jclass, jstring prefix) {
  const char* chars = jni->GetStringUTFChars(prefix, nullptr);
  const int64_t n = bottom_checked(chars);
  jni->ReleaseStringUTFChars(prefix, chars);
  return n;
}

}  // extern "C"
