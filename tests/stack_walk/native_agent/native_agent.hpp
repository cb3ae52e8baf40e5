// The JVM-test agent of native frames (jvmkit/stack_walk_native.h): it samples every thread of the
// JVM by wall clock with a real-time signal, asks JvmkitRequestStackTraceNative for each sample,
// checks every trace against the API's promises, and at VMDeath checks the totals and the
// workload's expectations (option expect) and exits non-zero on any failure. Options: native_agent.cpp.
#pragma once

#include <jni.h>
#include <jvmkit/stack_walk_native.h>
#include <jvmti.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace nativetest {

// --- options and reporting (native_agent.cpp) ---
std::string option(const char* key, const char* fallback);
long option_long(const char* key, long fallback);
// Whether option expect (a '/'-separated list) names CHECK.
bool expects(const char* check);
// Records a failed check: printed at once (the first ones), counted; the test fails at the end.
void fail(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
// Counts a failed check without printing it (one already printed says what).
void count_failure();
int failures();
extern jvmtiEnv* g_jvmti;
// The calling thread's JNIEnv (the delivery thread's, in the callbacks).
JNIEnv* jni_env();

// --- the sampler (native_sampler.cpp): a plain pthread that signals every thread of the process but
// itself and jvmkit's own threads each interval; the handler asks for the native trace ---
bool install_signal_handler();
void start_sampler(long interval_us);
void stop_sampler();
struct SamplerTotals {
  int64_t rounds = 0;        // intervals in which the threads were signalled
  int64_t sent = 0;          // signals sent (tgkill succeeded)
  int64_t handled = 0;       // handler runs
  int64_t accepted = 0;      // requests that returned JVMTI_ERROR_NONE
  int64_t by_error[3] = {};  // NOT_AVAILABLE, UNATTACHED_THREAD, OUT_OF_MEMORY (pool full)
  int64_t other_errors = 0;  // any other error: a failed check
};
SamplerTotals sampler_totals();

// user_data of a sample: the signalled thread's id (checked against JvmkitCurrentTraceThread at
// delivery) and a sequence number (each accepted request must get exactly one outcome).
constexpr int64_t kMaxSequence = int64_t{1} << 22;
inline void* make_user_data(pid_t tid, int64_t seq) {
  return reinterpret_cast<void*>((static_cast<uint64_t>(tid) << 32) | static_cast<uint64_t>(seq));
}
inline pid_t ud_tid(void* ud) { return static_cast<pid_t>(reinterpret_cast<uint64_t>(ud) >> 32); }
inline int64_t ud_seq(void* ud) { return static_cast<int64_t>(reinterpret_cast<uint64_t>(ud) & 0xffffffffu); }
// Whether the handler saw request SEQ accepted (sequence numbers below kMaxSequence only).
bool sequence_accepted(int64_t seq);
// The PC the signal of request SEQ interrupted (kept for the last 65,536 requests), for reports.
uintptr_t sampled_pc(int64_t seq);
// When the handler of request SEQ ran (CLOCK_MONOTONIC, the clock of System.nanoTime, in ns), or -1
// when the last 65,536 requests no longer hold it.
int64_t sampled_time_ns(int64_t seq);

// --- the callbacks (native_traces.cpp) ---
jvmtiStackTraceCallbacks checking_callbacks();
jvmkitNativeFrameCallback native_frame_callback();
// Every accepted request got exactly one outcome, every other none (after Disable).
bool check_outcomes(int64_t accepted);
// How often each check of a trace's shape failed.
void print_trace_check_failures();

// Whose trace it is, from the thread's name: the Java name for a Java thread, the kernel's (comm)
// for HotSpot's own threads.
enum ThreadKind { kMain, kC2Compiler, kC1Compiler, kGcWorker, kVmThread, kOtherJava, kOtherVm, kThreadKinds };
const char* thread_kind_name(ThreadKind kind);

// One delivered trace's frames, in delivery order.
struct Frame {
  bool java = false;
  jvmtiFrameType type = JVMTI_FRAME_INTERPRETER;  // Java: the frame type; native: the kind
  jlong pc = 0;
  const char* library = nullptr;  // valid until Disable
  jlong library_offset = 0;
  const char* symbol = nullptr;  // valid until Disable; NULL when no symbol holds the PC
  jint flags = 0;                // JVMKIT_NATIVE_FRAME_*
  jvmkitNativeEnd end = JVMKIT_NATIVE_END_REASON_COUNT;
  jmethodID method = nullptr;
};
struct Trace {
  void* user_data = nullptr;
  ThreadKind kind = kOtherVm;
  std::string thread_name;
  bool has_thread = false;  // beginStackTrace's thread was not NULL
  bool biased = false;
  std::vector<Frame> frames;
  int native_frames = 0;  // markers not counted; all of them, also those below Java frames
  int java_frames = 0;
  int markers = 0;                                              // above the first Java frame (the top part's marker)
  jvmkitNativeEnd marker_end = JVMKIT_NATIVE_END_REASON_COUNT;  // that marker's reason
  int top_native = 0;                                           // native frames above the first Java frame
  std::vector<jvmkitNativeEnd> all_markers;  // every marker, also those ending a part below Java frames
  bool last_was_marker = false;
  bool last_was_java = false;
};
// One line for a frame: "native libz.so.1+0x4a10", "java   java.util.zip.Deflater.deflateBytesBytes type 3".
std::string describe_frame(const Frame& frame);
// "0x7f..., in <its /proc/self/maps line>", for reports.
std::string mapping_of(uintptr_t pc);
// The last path component of a library path.
const char* basename_of(const char* path);
// "java.util.zip.Deflater.deflateBytesBytes", cached per method.
const std::string& method_name(jmethodID method);

// --- what was seen (native_stats.cpp) ---
void record_trace(const Trace& trace);
// PC: where the failed request's signal came (shown for HotSpot's own threads, a few); SEQ: the
// request's sequence number.
void record_failure(ThreadKind kind, jvmkitFailureReason reason, uintptr_t pc, int64_t seq);
// The library counts against JvmkitGetNativeCounters, the outcomes against the stack-walk counters.
bool check_accounting(const SamplerTotals& sampler);
void print_summary();
bool check_deflate();
bool check_vm_threads();
int64_t traces_delivered();

// --- the upcall workload (native_upcall.cpp): C between Java frames, in their exact order ---
void record_upcall(const Trace& trace);
void record_upcall_failure(uintptr_t pc);
bool check_upcall();

// --- a library loaded while sampling (native_late.cpp) ---
void record_late(const Trace& trace);
void record_late_failure(int64_t seq, uintptr_t pc);
bool check_late();

// --- helpers of the workload checks (native_upcall.cpp) ---
// The object that holds PC, by the dynamic loader (dladdr): an oracle independent of jvmkit's.
std::string loader_object_of(uintptr_t pc);
// A JVMTI system property (-D on the command line), or "" when not set.
std::string system_property(const char* key);
// "    #0 native libfoo.so+0x10 leaf\n" ... for each frame of a trace.
std::string trace_text(const Trace& trace);

}  // namespace nativetest
