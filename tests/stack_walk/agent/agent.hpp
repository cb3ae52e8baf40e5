// The JVM-test agent of the stack walker: one agent, several modes (option mode=...). It samples
// Java threads with a real-time signal, calls RequestStackTrace from the handler, checks every
// callback against the API's promises, and at VMDeath checks the totals and exits non-zero with a
// message on any violation.
#pragma once

#include <jni.h>
#include <jvmti.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include <jvmkit/stack_walk.h>

namespace walktest {

// --- options and reporting ---
std::string option(const char* key, const char* fallback);
long option_long(const char* key, long fallback);
// Records a violation (printed at once, counted; the test fails at the end).
void violation(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
int violations();
[[noreturn]] void finish(bool ok);

const std::string& mode();  // option mode
extern jvmtiEnv* g_jvmti;   // the agent's own environment (the "caller's env" of the API)
extern JavaVM* g_vm;

// --- threads the sampler targets ---
constexpr int kMaxTracked = 64;
struct Tracked {
  std::atomic<pid_t> tid{0};
  char name[64] = {};
  jobject thread = nullptr;               // global ref
  std::atomic<int64_t> last_seq[2] = {};  // by stream: 0 signal (unbiased), 1 biased requests
  std::atomic<int64_t> delivered{0};
  std::atomic<int64_t> failed{0};
  std::atomic<int64_t> failed_by_reason[JVMKIT_FAILURE_REASON_COUNT] = {};  // JvmkitCurrentFailureReason
  // Of those, the samples that repeated the thread's previous moment (ud_repeat).
  std::atomic<int64_t> repeats_delivered{0};
  std::atomic<int64_t> repeats_failed_by_reason[JVMKIT_FAILURE_REASON_COUNT] = {};
  std::atomic<bool> reached_required{false};  // a trace with the require_method frame was delivered
  std::atomic<int64_t> missing_required{0};   // later delivered traces without that frame
  std::atomic<bool> reached_bottom{false};    // an unbiased trace ended in a require_bottom frame
  std::atomic<int64_t> bottom_checked{0};     // later unbiased traces checked for their bottom frame
  std::atomic<int64_t> wrong_bottom{0};       // ... that end elsewhere
};
extern Tracked g_tracked[kMaxTracked];
extern std::atomic<int> g_tracked_count;
// Registers the current thread if its name starts with one of the prefixes of option "track".
void track_current_thread(JNIEnv* jni, jthread thread);
void untrack_current_thread();
Tracked* find_tracked_by_name_prefix(const char* prefix, int nth);

// --- user_data: which tracked thread, which stream, which sequence number, and whether the
// sample repeats the thread's previous moment (see mark_repeat) ---
inline void* make_user_data(int index, int stream, int64_t seq) {
  return reinterpret_cast<void*>((static_cast<uint64_t>(index) << 48) | (static_cast<uint64_t>(stream) << 47) |
                                 static_cast<uint64_t>(seq));
}
inline int ud_index(void* ud) { return static_cast<int>(reinterpret_cast<uint64_t>(ud) >> 48); }
inline int ud_stream(void* ud) { return static_cast<int>((reinterpret_cast<uint64_t>(ud) >> 47) & 1); }
inline int64_t ud_seq(void* ud) { return static_cast<int64_t>(reinterpret_cast<uint64_t>(ud) & ((1ull << 46) - 1)); }
// A signal sample taken at the same PC and stack pointer as the thread's previous one, with the
// thread not run in between (its CPU time grew by less than a handler's cost): a thread that waited
// for a CPU while the sampler (real-time priority) kept signalling it handles the queued signals
// back to back at one moment. Counted apart where failures are judged per moment (sampler.cpp).
inline void* mark_repeat(void* ud) { return reinterpret_cast<void*>(reinterpret_cast<uint64_t>(ud) | (1ull << 46)); }
inline bool ud_repeat(void* ud) { return (reinterpret_cast<uint64_t>(ud) >> 46) & 1; }

// --- the sampler (a native thread sending SIGRTMIN+3 to tracked threads) ---
void install_signal_handler();
void start_sampler(long rate_hz);
void stop_sampler();
struct SamplerTotals {
  int64_t sent = 0;
  int64_t handled = 0;
  int64_t returned_ok = 0;
  int64_t returned_error = 0;
  int64_t returned_not_available = 0;
};
SamplerTotals sampler_totals();
int64_t sampler_send_failures();
// Samples marked as repeating their thread's previous moment (mark_repeat), and a histogram of the
// CPU time a thread ran between two samples at the same PC and stack pointer (printed).
void print_repeats();
// Starts COUNT native threads, one after another, each of which signals itself before touching
// libjvm; checks that the handler's RequestStackTrace refused every one as unattached. Under the
// LD_PRELOAD trap this also proves that the refusal allocated nothing: a thread's first read of
// libjvm's thread-locals mallocs (hotspot/java_thread.hpp, Attachment).
bool check_newborn_threads(long count);

// --- the callbacks and what they saw ---
jvmtiStackTraceCallbacks checking_callbacks();
struct Seen {
  int64_t begins, ends, failures, frames, unbiased_begins, biased_begins;
  int64_t identity_checked, identity_mismatches, invalid_methods, order_errors;
  int64_t top_in_hot[2], top_total[2];                      // by stream, for the bias test
  int64_t frames_of_payload;                                // frames of jvmkit.test.walk.Payload (unload test)
  int64_t frames_by_type[4];                                // by jvmtiFrameType
  int64_t failures_by_reason[JVMKIT_FAILURE_REASON_COUNT];  // as JvmkitCurrentFailureReason said
  int64_t failures_without_reason;                          // failure callbacks where it said none
  int64_t truncated_begins;                                 // traces JvmkitCurrentTraceTruncated flagged
};
Seen seen();
// Expected top frames by workload (option expect_top, see expected_tops.hpp); the check prints each
// workload's share and where the other samples went, and fails below MIN_PERMILLE.
void set_expected_tops(const std::string& spec);
bool check_expected_tops(long min_permille, long min_samples);
// Top-frame method name the bias test counts as "hot" (option hot=...).
void set_hot_method_name(const std::string& name);
void set_resolve_every_frame(bool on);
// With resolve_every_frame: counts frames whose method has this name.
void set_expected_method_name(const std::string& name);
int64_t expected_method_frames();
struct VirtualSeen {
  int64_t traces;                // traces taken while a virtual thread was mounted
  int64_t named;                 // ... reported for the virtual thread itself
  int64_t enter_special_frames;  // frames of Continuation.enterSpecial (resolve_every_frame)
};
VirtualSeen virtual_seen();
// Every unbiased trace must contain a frame of this method (option require_method); traces
// without one are counted per tracked thread (Tracked::missing_required).
void set_required_method_name(const std::string& name);
// Frame-type truth (option truth=...) and its confusion matrices (printed, checked against
// min_top_permille / min_all_permille).
void set_truth(const std::string& spec);
void set_call_sites(const std::string& spec);
bool check_frame_types();
// Prints the recovery counters; checks max_failed_permille and min_recovered (options).
bool check_recovery();
// The depth check (mode=depth, depth_check.cpp): traces with a frame of DEPTH_METHOD hold at most
// MAX_FRAMES frames; a truncated one exactly MAX_FRAMES and no ROOT_METHOD frame, any other one ends
// in ROOT_METHOD. check_depths prints what was seen and checks the options expect_complete,
// min_truncated, max_truncated (see tests/stack_walk/CMakeLists.txt).
void set_depth_check(const std::string& depth_method, const std::string& root_method, long max_frames);
bool check_depths();
// Traces of the depth check so far in STREAM (0 unbiased, 1 biased): complete ones of exactly FRAMES
// frames or, for FRAMES beyond the limit, those truncated at the limit (what a stack of FRAMES gives).
int64_t depth_traces(long frames, int stream);
void parse_options(const char* text);
// Runs the bad-input table (mode=bad_input); returns false on a failed row.
bool run_bad_input_table(JNIEnv* jni);

// Samples of a tracked thread that did not repeat its previous moment (ud_repeat): delivered and
// failed ones. fewest_moments: the least of them over the tracked threads named PREFIX*, 0 if none.
int64_t moments_of(const Tracked& t);
int64_t repeats_of(const Tracked& t);
int64_t fewest_moments(const char* prefix);

// Checks that every tracked thread whose name starts with prefix got at least min_delivered traces
// (and, with the option require_method, that its traces contain that method); prints each thread.
bool check_threads(const char* prefix, long min_delivered);

// mode=probe (probe.cpp): the handler of the probe signal, and the final check (every compared
// trace equal to GetStackTrace's but at most ALLOWED_MISMATCHES, at least MIN_CHECKS of them).
void install_probe_handler();
bool check_probes(long min_checks, int64_t allowed_mismatches = 0);
// mode=at_call (probe.cpp): the JVMTI events whose callbacks request the trace of their moment
// without a ucontext (capabilities and callbacks added before Agent_OnLoad sets them; enabled
// after), and the final check (check_probes with no more mismatches than requests served later,
// every trace biased, at most MAX_SERVED_LATER_PERMILLE served later, at least MIN_PER_SOURCE
// checks from each source).
void add_at_call_events(jvmtiCapabilities* caps, jvmtiEventCallbacks* callbacks);
bool enable_at_call_events(jint alloc_interval);
// MIN_NESTED: compared traces with a static initializer above their bottom frame (the VM called
// Java again below it).
bool check_at_call(long min_checks, long min_per_source, long min_nested, long max_served_later_permille);

// The bottom-frame check (option require_bottom, bottom_check.cpp): SPEC is "Class.method/...";
// check_bottom_of_trace judges one delivered trace (FRAMES its methods, top first); check_bottoms fails on any wrong
// bottom and on a tracked thread with fewer than MIN_CHECKED traces checked.
void set_required_bottoms(const std::string& spec);
void check_bottom_of_trace(Tracked& tracked, const std::vector<jmethodID>& frames, bool biased);
bool check_bottoms(long min_checked);
JNIEnv* jni_env();
// Moments (signal samples that did not repeat their thread's previous one) whose trace came
// biased: the capture could not prove it complete (a thread without a known bottom frame);
// printed, and limited against all moments by option max_unproven_permille.
int64_t unproven_moments();
// mode=unload: frames of jvmkit.test.walk.Payload delivered so far (any thread may ask).
int64_t payload_frames();
int64_t proven_moments();

// Checks counters against what the callbacks saw; returns false (after printing) on a mismatch.
bool check_accounting(const char* when, bool expect_pending_zero);

}  // namespace walktest
