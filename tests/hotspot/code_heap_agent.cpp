// The agent of jvm.hotspot.code_heap: checks hotspot/code_heap.hpp against what HotSpot itself
// reports, in a real JVM.
//
// - Every nmethod CompiledMethodLoad reports (also those GenerateEvents replays at VMInit): its
//   first code byte, a middle one and its last one must all find the same blob, an nmethod, whose
//   code range is exactly the reported one (JVMTI reports nmethod::code_begin() and code_size(),
//   the very fields the look-up reads), with a frame of 1 word to 64 KiB.
// - Every DynamicCodeGenerated stub that lies in the code heaps: not an nmethod.
// - SIGPROF from a CPU-time timer on each thread named "codeheap-busy-*" (a hot loop): the
//   interrupted PC is looked up in the handler; whatever is found must hold the PC; most PCs must
//   be in an nmethod.
// Option heaps=N: the number of code heaps the JVM must have (3 segmented, 1 otherwise).
// Prints its counts at the end (CodeHeapMain.finish); a check that fails is printed as FAIL.
#include <jni.h>
#include <jvmti.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "base/signal_safe.hpp"
#include "hotspot/code_heap.hpp"

namespace {

using jvmkit::hotspot::CodeBlobInfo;
using jvmkit::hotspot::CodeHeapLayout;

constexpr uint32_t kMaxNmethodFrameBytes = 64 * 1024;

jvmtiEnv* g_jvmti = nullptr;
int g_expected_heaps = 0;
std::atomic<bool> g_vm_initialized{false};

std::atomic<long> g_failures{0};
std::mutex g_print_mutex;
std::atomic<int> g_printed{0};

// CompiledMethodLoad.
std::atomic<long> g_nmethods{0}, g_nmethods_exact{0}, g_nmethods_frameless_native{0};
// DynamicCodeGenerated.
std::atomic<long> g_stubs{0}, g_stubs_in_heaps{0}, g_stubs_found{0}, g_stubs_before_layout{0};
// The signal handler.
std::atomic<long> g_lookups{0}, g_lookups_in_heaps{0}, g_lookups_found{0}, g_lookups_nmethod{0};
std::atomic<long> g_lookups_bad{0};

void fail(const std::string& what) {
  g_failures++;
  if (g_printed++ < 20) {
    std::lock_guard<std::mutex> lock(g_print_mutex);
    std::printf("FAIL: %s\n", what.c_str());
    std::fflush(stdout);
  }
}

std::string hex(uintptr_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%#lx", static_cast<unsigned long>(value));
  return buffer;
}

// The layout, learnt on first use after the code heaps exist (not signal context).
const CodeHeapLayout* layout() {
  std::string why;
  const CodeHeapLayout* l = jvmkit::hotspot::learn_code_heap_layout(&why);
  if (l == nullptr && g_vm_initialized.load()) fail("code heap layout not learnt: " + why);
  return l;
}

int heap_count(const CodeHeapLayout& l) {
  uintptr_t array;
  std::memcpy(&array, reinterpret_cast<const void*>(l.heaps), sizeof(array));
  int32_t count;
  std::memcpy(&count, reinterpret_cast<const void*>(array + l.array_length), sizeof(count));
  return count;
}

void JNICALL on_compiled_method_load(jvmtiEnv*, jmethodID method, jint code_size, const void* code_addr, jint,
                                     const jvmtiAddrLocationMap*, const void*) {
  const CodeHeapLayout* l = layout();
  if (l == nullptr || code_size <= 0) return;
  g_nmethods++;
  const auto begin = reinterpret_cast<uintptr_t>(code_addr);
  const uintptr_t end = begin + static_cast<uintptr_t>(code_size);
  const std::optional<CodeBlobInfo> first = l->find(begin);
  const std::optional<CodeBlobInfo> middle = l->find(begin + static_cast<uintptr_t>(code_size) / 2);
  const std::optional<CodeBlobInfo> last = l->find(end - 1);
  const std::string where = "nmethod code [" + hex(begin) + ", " + hex(end) + ")";
  if (!first || !middle || !last) return fail(where + ": not found at its first, middle or last byte");
  if (first->blob != middle->blob || first->blob != last->blob) return fail(where + ": different blobs");
  if (!first->is_nmethod) return fail(where + ": not an nmethod");
  if (first->code_begin > begin || first->code_end < end) {
    return fail(where + ": found code [" + hex(first->code_begin) + ", " + hex(first->code_end) + ")");
  }
  if (first->code_begin == begin && first->code_end == end) {
    g_nmethods_exact++;
  } else {
    fail(where + ": found a larger code range [" + hex(first->code_begin) + ", " + hex(first->code_end) + ")");
  }
  // A native method's nmethod may have no frame: the method handle intrinsics (linkToStatic and
  // its kind, native methods) only jump to their target. Every other nmethod has one.
  jboolean native = JNI_FALSE;
  g_jvmti->IsMethodNative(method, &native);
  if (native && first->frame_size_bytes == 0) {
    g_nmethods_frameless_native++;
  } else if (first->frame_size_bytes == 0 || first->frame_size_bytes > kMaxNmethodFrameBytes) {
    fail(where + ": frame size " + std::to_string(first->frame_size_bytes));
  }
}

void JNICALL on_dynamic_code_generated(jvmtiEnv*, const char* name, const void* address, jint length) {
  g_stubs++;
  const CodeHeapLayout* l = layout();
  if (l == nullptr) {
    g_stubs_before_layout++;
    return;
  }
  const auto begin = reinterpret_cast<uintptr_t>(address);
  if (length <= 0 || !l->in_code_heaps(begin)) return;
  // C2's buffers of one compilation ("Compile::scratch_buffer", "Compile::Fill_buffer") are freed
  // when it ends; the service thread may post their event after that.
  if (std::strncmp(name, "Compile::", 9) == 0) return;
  g_stubs_in_heaps++;
  const std::optional<CodeBlobInfo> first = l->find(begin);
  const std::optional<CodeBlobInfo> last = l->find(begin + static_cast<uintptr_t>(length) - 1);
  if (!first || !last) {
    return fail(std::string("stub ") + name + " [" + hex(begin) + ", +" + std::to_string(length) + ") not found");
  }
  g_stubs_found++;
  if (first->is_nmethod || last->is_nmethod) fail(std::string("stub ") + name + " found as an nmethod");
  if (first->blob != last->blob) fail(std::string("stub ") + name + ": its first and last byte in different blobs");
}

JVMKIT_SIGNAL_SAFE void on_sigprof(int, siginfo_t*, void* context) {
  const int saved_errno = errno;
  const auto pc = static_cast<uintptr_t>(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
  const CodeHeapLayout* l = jvmkit::hotspot::known_code_heap_layout();
  if (l != nullptr) {
    g_lookups.fetch_add(1, std::memory_order_relaxed);
    if (l->in_code_heaps(pc)) g_lookups_in_heaps.fetch_add(1, std::memory_order_relaxed);
    const std::optional<CodeBlobInfo> found = l->find(pc);
    if (found) {
      g_lookups_found.fetch_add(1, std::memory_order_relaxed);
      if (found->is_nmethod) g_lookups_nmethod.fetch_add(1, std::memory_order_relaxed);
      const bool bad_frame = found->is_nmethod && found->frame_size_bytes == 0;
      if (pc < found->code_begin || pc >= found->code_end || bad_frame) {
        g_lookups_bad.fetch_add(1, std::memory_order_relaxed);
      }
    }
  }
  errno = saved_errno;
}

thread_local timer_t t_timer;
thread_local bool t_has_timer = false;

// On a busy thread (ThreadStart runs on the new thread): a CPU-time timer that sends it SIGPROF
// every millisecond of its CPU time (the kernel ticks it at HZ).
void JNICALL on_thread_start(jvmtiEnv* jvmti, JNIEnv*, jthread thread) {
  jvmtiThreadInfo info;
  if (jvmti->GetThreadInfo(thread, &info) != JVMTI_ERROR_NONE) return;
  const bool busy = info.name != nullptr && std::strncmp(info.name, "codeheap-busy-", 14) == 0;
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(info.name));
  if (!busy) return;
  sigevent sev;
  std::memset(&sev, 0, sizeof(sev));
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = SIGPROF;
  sev._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));
  if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t_timer) != 0) return fail("timer_create failed");
  itimerspec spec{};
  spec.it_interval.tv_nsec = 1'000'000;
  spec.it_value = spec.it_interval;
  if (timer_settime(t_timer, 0, &spec, nullptr) != 0) return fail("timer_settime failed");
  t_has_timer = true;
}

void JNICALL on_thread_end(jvmtiEnv*, JNIEnv*, jthread) {
  if (!t_has_timer) return;
  timer_delete(t_timer);
  t_has_timer = false;
}

void JNICALL on_vm_init(jvmtiEnv* jvmti, JNIEnv*, jthread) {
  g_vm_initialized = true;
  const CodeHeapLayout* l = layout();
  if (l == nullptr) return;
  if (heap_count(*l) != g_expected_heaps) {
    fail(std::to_string(heap_count(*l)) + " code heaps, expected " + std::to_string(g_expected_heaps));
  }
  // Code made before the events were enabled, or while no layout could be learnt yet.
  if (jvmti->GenerateEvents(JVMTI_EVENT_DYNAMIC_CODE_GENERATED) != JVMTI_ERROR_NONE) fail("GenerateEvents");
  if (jvmti->GenerateEvents(JVMTI_EVENT_COMPILED_METHOD_LOAD) != JVMTI_ERROR_NONE) fail("GenerateEvents");
}

}  // namespace

extern "C" JNIEXPORT jlong JNICALL Java_jvmkit_test_hotspot_CodeHeapMain_lookups(JNIEnv*, jclass) {
  return g_lookups.load();
}

extern "C" JNIEXPORT jint JNICALL Java_jvmkit_test_hotspot_CodeHeapMain_finish(JNIEnv*, jclass) {
  std::printf(
      "nmethods: %ld checked, %ld with exactly the reported code range, %ld native without a frame\n"
      "stubs: %ld reported, %ld before the layout, %ld in the code heaps, %ld of them found (none an nmethod)\n"
      "signal look-ups: %ld, %ld in the code heaps, %ld found, %ld in an nmethod, %ld inconsistent\n",
      g_nmethods.load(), g_nmethods_exact.load(), g_nmethods_frameless_native.load(), g_stubs.load(),
      g_stubs_before_layout.load(), g_stubs_in_heaps.load(), g_stubs_found.load(), g_lookups.load(),
      g_lookups_in_heaps.load(), g_lookups_found.load(), g_lookups_nmethod.load(), g_lookups_bad.load());
  if (g_nmethods.load() < 20) fail("fewer than 20 nmethods checked");
  if (g_stubs_in_heaps.load() < 10) fail("fewer than 10 stubs in the code heaps");
  if (g_stubs_found.load() != g_stubs_in_heaps.load()) fail("stubs in the code heaps not found");
  if (g_lookups.load() < 200) fail("fewer than 200 signal look-ups");
  if (g_lookups_bad.load() != 0) fail("signal look-ups found blobs that do not hold the PC");
  if (g_lookups_nmethod.load() * 2 < g_lookups.load()) fail("fewer than half the sampled PCs in an nmethod");
  std::printf("%s (%ld failed checks)\n", g_failures.load() == 0 ? "PASS" : "FAIL", g_failures.load());
  std::fflush(stdout);
  return static_cast<jint>(g_failures.load());
}

extern "C" JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) {
  if (options == nullptr || std::strncmp(options, "heaps=", 6) != 0) {
    std::fprintf(stderr, "code_heap_agent: option heaps=N is required\n");
    return JNI_ERR;
  }
  g_expected_heaps = std::atoi(options + 6);
  if (vm->GetEnv(reinterpret_cast<void**>(&g_jvmti), JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  jvmtiCapabilities caps{};
  caps.can_generate_compiled_method_load_events = 1;
  if (g_jvmti->AddCapabilities(&caps) != JVMTI_ERROR_NONE) return JNI_ERR;
  jvmtiEventCallbacks callbacks{};
  callbacks.VMInit = on_vm_init;
  callbacks.CompiledMethodLoad = on_compiled_method_load;
  callbacks.DynamicCodeGenerated = on_dynamic_code_generated;
  callbacks.ThreadStart = on_thread_start;
  callbacks.ThreadEnd = on_thread_end;
  if (g_jvmti->SetEventCallbacks(&callbacks, sizeof(callbacks)) != JVMTI_ERROR_NONE) return JNI_ERR;
  for (jvmtiEvent event : {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_COMPILED_METHOD_LOAD, JVMTI_EVENT_DYNAMIC_CODE_GENERATED,
                           JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END}) {
    if (g_jvmti->SetEventNotificationMode(JVMTI_ENABLE, event, nullptr) != JVMTI_ERROR_NONE) return JNI_ERR;
  }
  struct sigaction sa;
  std::memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGPROF, &sa, nullptr) != 0) return JNI_ERR;
  return JNI_OK;
}
