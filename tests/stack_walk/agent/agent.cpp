// Agent_OnLoad and the modes of the stack-walk test agent. Each mode is one JVM test:
//   accounting  Enable in Agent_OnLoad; 10 kHz over the tracked threads; at VMDeath: Disable, then
//               exactly-one-outcome arithmetic, user_data, order and thread identity (threads
//               started before Enable: main; after: workers); the caller's env kept its callbacks
//               and capabilities.
//   unload      accounting + every jmethodID resolved inside the callbacks while classes unload.
//   live        Enable/Disable from JNI calls (live phase), see jvmkit.test.walk.LiveMain.
//   bias        the safepoint-bias trap: unbiased (signal) vs biased (GetStackTrace) top frames.
//   bad_input   the table of bad calls, see bad_input.cpp.
//   cycles      Enable/Disable 100 times under 10 kHz sampling, see natives.cpp.
//   probe       signal requests compared with GetStackTrace of the same moment (probe.cpp).
//   at_call     requests without a ucontext from JVMTI callbacks and a JNI method, compared
//               likewise (probe.cpp).
//   depth       the depth limit (option max_depth: JvmkitSetMaxStackDepth before Enable) on
//               jvmkit.test.walk.TruncationMain: truncated traces hold exactly the limit, others
//               reach main; signal and biased (GetStackTrace) requests (see check_depths).
#include <dlfcn.h>
#include <pthread.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "agent.hpp"
#include "biased_sampler.hpp"

namespace walktest {

namespace {

std::string g_mode;
std::atomic<int64_t> g_agent_thread_starts{0};
std::atomic<int64_t> g_agent_vm_inits{0};
jvmtiCapabilities g_caps_before;
bool g_enabled_at_load = false;

bool same_capabilities(const char* when) {
  jvmtiCapabilities now;
  std::memset(&now, 0, sizeof(now));
  g_jvmti->GetCapabilities(&now);
  if (std::memcmp(&now, &g_caps_before, sizeof(now)) != 0) {
    violation("the caller's capabilities changed %s", when);
    return false;
  }
  return true;
}

// Enabled in Agent_OnLoad, a request for the current thread is accepted from VMInit on, also in
// this agent's VMInit callback, which runs before jvmkit's own (environments are called in the
// order they were created). Main has no Java frames yet: the request ends as failure.
std::atomic<int64_t> g_vm_init_requests{0};

void request_in_vm_init() {
  Tracked* main = find_tracked_by_name_prefix("main", 0);
  if (main == nullptr) {
    violation("vminit_request needs track=...:main");
    return;
  }
  const int index = static_cast<int>(main - g_tracked);
  const jvmtiError err =
      RequestStackTrace(g_jvmti, nullptr, nullptr, checking_callbacks(), make_user_data(index, 1, 1));
  std::fprintf(stderr, "request for the current thread in the agent's VMInit callback: JVMTI error %d\n", err);
  if (err != JVMTI_ERROR_NONE) violation("a request for the current thread in VMInit returned %d", err);
  if (err == JVMTI_ERROR_NONE) g_vm_init_requests++;
}

void JNICALL on_vm_init(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  g_agent_vm_inits++;
  track_current_thread(jni, thread);  // main
  if (g_enabled_at_load && option("vminit_request", "no") == "yes") request_in_vm_init();
  if (g_mode == "bad_input") {
    if (!run_bad_input_table(jni)) violation("bad-input table failed");
    return;
  }
  if (g_mode == "at_call") {
    if (!enable_at_call_events(static_cast<jint>(option_long("alloc_interval", 32 * 1024)))) {
      violation("at_call: could not enable the allocation and monitor events");
    }
    return;  // no sampler: every request comes from a callback or Agent.probe()
  }
  if (g_enabled_at_load) start_sampler(option_long("rate", 10000));
  if (g_mode == "bias" || !option("biased_target", "").empty()) start_biased_sampler(jni);
}

void JNICALL on_thread_start(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  g_agent_thread_starts++;
  track_current_thread(jni, thread);
}

void JNICALL on_thread_end(jvmtiEnv*, JNIEnv*, jthread) { untrack_current_thread(); }

// Set as the agent's callback but never enabled on the agent's env: jvmkit enables ClassPrepare on
// its own env, and must not enable it on ours.
std::atomic<int64_t> g_agent_class_prepares{0};
void JNICALL on_class_prepare(jvmtiEnv*, JNIEnv*, jthread, jclass) { g_agent_class_prepares++; }

void final_checks() {
  // While still enabled (the refusal must come from the attachment check, not a closed gate).
  const long newborn = option_long("newborn", 0);
  const bool newborn_ok = newborn == 0 || check_newborn_threads(newborn);
  stop_sampler();
  stop_biased_sampler();
  if (g_enabled_at_load) {
    jvmtiError err = DisableRequestStackTrace(g_jvmti);
    if (err != JVMTI_ERROR_NONE) violation("DisableRequestStackTrace returned %d", err);
    same_capabilities("by Disable");
  }
  jvmkitStackWalkCounters c;
  JvmkitGetStackWalkCounters(&c);
  if (g_mode == "bad_input") {
    // The table checked its own rows; only its control request was accepted, with its own callbacks.
    finish(c.pending == 0 && c.accepted == c.delivered + c.failed);
  }
  if (g_mode == "probe" || g_mode == "at_call") {
    // The probes have their own callbacks: each accepted request was compared or failed.
    const bool probes_ok =
        g_mode == "probe" ? check_probes(option_long("min_checks", 5000))
                          : check_at_call(option_long("min_checks", 1000), option_long("min_per_source", 20),
                                          option_long("min_nested", 0), option_long("max_served_later_permille", 5));
    check_recovery();
    finish(probes_ok && c.pending == 0 && c.accepted == c.delivered + c.failed);
  }
  bool ok = check_accounting(g_mode.c_str(), true) && newborn_ok;
  Seen s = seen();
  SamplerTotals t = sampler_totals();

  if (s.identity_mismatches != 0)
    violation("%lld traces reported for the wrong thread", (long long)s.identity_mismatches);
  if (s.order_errors != 0) violation("%lld traces out of request order", (long long)s.order_errors);
  if (s.invalid_methods != 0) violation("%lld jmethodIDs did not resolve", (long long)s.invalid_methods);
  if (g_agent_vm_inits.load() != 1)
    violation("the agent's own VMInit callback ran %lld times", (long long)g_agent_vm_inits.load());
  if (g_agent_thread_starts.load() < 2) violation("the agent's own ThreadStart callback stopped firing");
  same_capabilities("at the end");
  if (g_agent_class_prepares.load() != 0) {
    violation("ClassPrepare fired %lld times on the caller's env, which never enabled it",
              (long long)g_agent_class_prepares.load());
  }

  print_repeats();
  ok = check_recovery() && ok;
  ok = check_frame_types() && ok;
  if (g_mode == "depth") ok = check_depths() && ok;
  if (option_long("deoptimize_ms", 0) > 0) {
    // The walk meets frames being deoptimized: AsyncGetCallTrace stops above them, and the capture
    // completes the trace from each one's original PC (recovery kind deoptimized); what it cannot
    // complete fails cut_short, never a trace that only looks complete (the depth check).
    const int64_t cut = c.failed_by_reason[JVMKIT_FAILURE_CUT_SHORT];
    jvmkitRecoveryCounters r{};
    JvmkitGetRecoveryCounters(&r);
    const int64_t completed = r.recovered_by_kind[JVMKIT_RECOVERY_DEOPTIMIZED];
    std::fprintf(stderr,
                 "DEOPTIMIZED: the target's frames %lld times; completed below them %lld; failed cut_short %lld\n",
                 (long long)g_deoptimizations.load(), (long long)completed, (long long)cut);
    if (g_deoptimizations.load() < 5) violation("deoptimized only %lld times", (long long)g_deoptimizations.load());
    if (completed < option_long("min_deoptimized_completed", 0)) {
      violation("%lld traces completed below frames being deoptimized (want >= %ld)", (long long)completed,
                option_long("min_deoptimized_completed", 0));
    }
  }
  if (!option("expect_top", "").empty()) {
    ok = check_expected_tops(option_long("min_top_permille", 950), option_long("min_top_samples", 300)) && ok;
  }
  if (g_mode == "accounting" || g_mode == "unload") {
    // Only the handler makes requests in these modes (and VMInit its one): its view must match the
    // library's.
    if (t.returned_ok + g_vm_init_requests.load() != c.accepted)
      violation("handler saw %lld accepted (and VMInit %lld), counters say %lld", (long long)t.returned_ok,
                (long long)g_vm_init_requests.load(), (long long)c.accepted);
    if (t.returned_error + t.returned_not_available != c.rejected)
      violation("handler saw %lld errors, counters say %lld rejected",
                (long long)(t.returned_error + t.returned_not_available), (long long)c.rejected);
    long min_traces = option_long("min_traces", 1000);
    if (s.begins < min_traces) violation("only %lld traces delivered (want >= %ld)", (long long)s.begins, min_traces);
    // Most samples of running Java code must produce a trace.
    long min_pct = option_long("min_delivered_pct", 80);
    if (c.accepted > 0 && c.delivered * 100 < c.accepted * min_pct) {
      violation("fewer than %ld%% of accepted requests delivered", min_pct);
    }
    ok = check_threads(option("check_prefix", "worker-").c_str(), option_long("min_per_thread", 50)) && ok;
    ok = check_bottoms(option_long("min_checked", 0)) && ok;
    // Signal requests come back biased only where the capture could not prove the trace whole.
    const int64_t unproven = unproven_moments(), signal_moments = proven_moments() + unproven;
    std::fprintf(stderr, "  signal traces delivered biased (not proven complete): %lld of %lld moments\n",
                 (long long)unproven, (long long)signal_moments);
    if (unproven * 1000 > signal_moments * option_long("max_unproven_permille", 5)) {
      violation("more than %ld per mille of the signal traces' moments could not be proven complete",
                option_long("max_unproven_permille", 5));
    }
    if (option("check_main", "yes") == "yes") ok = check_threads("main", 5) && ok;
  }

  // Frame types (docs/stack_walk.md "Frame types"): forbid_type / require_type name a type that
  // must never / must at least once be reported (0 interpreter, 1 JIT, 2 inline, 3 native).
  std::fprintf(stderr, "  frames by type: interpreter %lld, jit %lld, inline %lld, native %lld\n",
               (long long)s.frames_by_type[0], (long long)s.frames_by_type[1], (long long)s.frames_by_type[2],
               (long long)s.frames_by_type[3]);
  long forbid = option_long("forbid_type", -1), require = option_long("require_type", -1);
  if (forbid >= 0 && forbid < 4 && s.frames_by_type[forbid] != 0) {
    violation("%lld frames reported with type %ld, which this run cannot have", (long long)s.frames_by_type[forbid],
              forbid);
  }
  if (require >= 0 && require < 4 && s.frames_by_type[require] == 0) violation("no frame of type %ld", require);
  // Under the signal-safety trap (LD_PRELOAD), the capture path must actually have run through it.
  if (auto trap_captures = reinterpret_cast<long (*)()>(dlsym(RTLD_DEFAULT, "jvmkit_walk_trap_captures"))) {
    long n = trap_captures();
    std::fprintf(stderr, "TRAP: %ld captures ran under the malloc/lock trap without tripping it\n", n);
    if (n < t.handled) violation("only %ld of %lld requests ran under the trap", n, (long long)t.handled);
  }
  if (g_mode == "unload") {
    // The run must have sampled code of classes that unload: traces whose class went before their
    // delivery fail as class_unloaded, the others deliver Payload frames, resolved in the callbacks.
    // How they split varies widely with GC timing (11 to 6,000 delivered Payload frames in 20-s
    // runs with the same ~10,000 sampled; none on a loaded machine, where delivery falls further
    // behind and every such class is gone first), so only their sum has a floor.
    const int64_t unloaded = c.failed_by_reason[JVMKIT_FAILURE_CLASS_UNLOADED];
    std::fprintf(stderr, "  frames of the unloading Payload classes: %lld (traces failed as class_unloaded: %lld)\n",
                 (long long)s.frames_of_payload, (long long)unloaded);
    if (s.frames_of_payload + unloaded < 100) {
      violation("too few samples in unloading classes (%lld Payload frames, %lld class_unloaded failures)",
                (long long)s.frames_of_payload, (long long)unloaded);
    }
  }
  if (g_mode == "virtual") {
    std::fprintf(stderr, "  frames of %s: %lld\n", option("expect_method", "").c_str(),
                 (long long)expected_method_frames());
    if (expected_method_frames() < 50) violation("the virtual threads' own frames were not reported");
    ok = check_threads(option("check_prefix", "ForkJoinPool").c_str(), 1) && ok;
    // JDK 24+: the virtual thread is named, its frames end above the continuation's entry, and the
    // carrier's frames come only with JvmkitSetCarrierFrames (carrier_frames=1).
    const VirtualSeen v = virtual_seen();
    const bool carrier_frames = option_long("carrier_frames", 0) != 0;
    std::fprintf(stderr,
                 "  virtual thread traces: %lld, reported for the virtual thread: %lld; enterSpecial frames: %lld\n",
                 (long long)v.traces, (long long)v.named, (long long)v.enter_special_frames);
    if (option_long("expect_virtual", 0) != 0) {
      if (v.traces < 50) violation("only %lld traces were taken as the virtual threads'", (long long)v.traces);
      if (v.named * 100 < v.traces * 99) {
        violation("only %lld of %lld virtual thread traces named the virtual thread", (long long)v.named,
                  (long long)v.traces);
      }
      // outside_java_carrier=1 (the id read through the thread's handle, JDK 21 to 23): samples
      // outside Java code stay the carrier's, with every frame.
      if (!carrier_frames && v.enter_special_frames != 0 && option_long("outside_java_carrier", 0) == 0) {
        violation("carrier frames without carrier_frames=1");
      }
      if (carrier_frames && v.enter_special_frames * 100 < v.traces * 99) {
        violation("carrier_frames=1: only %lld of %lld traces went on below enterSpecial",
                  (long long)v.enter_special_frames, (long long)v.traces);
      }
    }
  }
  if (g_mode == "bias") {
    double unbiased = s.top_total[0] ? 100.0 * s.top_in_hot[0] / s.top_total[0] : 0;
    double biased = s.top_total[1] ? 100.0 * s.top_in_hot[1] / s.top_total[1] : 0;
    std::fprintf(stderr,
                 "BIAS: top frame in %s: jvmkit unbiased %.1f%% of %lld, GetStackTrace (biased) %.1f%% of %lld\n",
                 option("hot", "").c_str(), unbiased, (long long)s.top_total[0], biased, (long long)s.top_total[1]);
    if (s.top_total[0] < 300) violation("too few unbiased samples of the hot thread");
    if (s.top_total[1] < 30) violation("too few biased samples of the hot thread");
    if (unbiased < 90.0) violation("unbiased samples in the hot method: %.1f%% < 90%%", unbiased);
    if (biased > 50.0)
      violation("the biased sampler was expected to blame the wrong method, but put %.1f%% in it", biased);
  }
  finish(ok);
}

void JNICALL on_vm_death(jvmtiEnv*, JNIEnv*) {
  if (g_mode == "onunload") {
    stop_sampler();  // Disable comes in Agent_OnUnload, in the dead phase
    return;
  }
  if (g_mode == "live" || g_mode == "cycles") {
    stop_sampler();
    bool ok = check_accounting(g_mode.c_str(), false);
    // Threads that ran before the live-phase Enable (as at a live attach) and after it: with
    // require_bottom, every unbiased trace ends in its thread's bottom frame.
    ok = check_bottoms(option_long("min_checked", 0)) && ok;
    std::fprintf(stderr, "  signal traces delivered biased (not proven complete): %lld of %lld moments\n",
                 (long long)unproven_moments(), (long long)(proven_moments() + unproven_moments()));
    finish(ok);
  }
  final_checks();
}

}  // namespace

int64_t agent_thread_starts() { return g_agent_thread_starts.load(); }
const std::string& mode() { return g_mode; }

}  // namespace walktest

using namespace walktest;

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) {
  g_vm = vm;
  parse_options(options);
  g_mode = option("mode", "accounting");
  if (vm->GetEnv(reinterpret_cast<void**>(&g_jvmti), JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  // Only the JEP's calls: jvmkit finds the JavaVM by itself, in Agent_OnLoad too (the profiler
  // agent tests the optional JvmkitSetJavaVM).

  // The agent's own setup on its env, which EnableRequestStackTrace must leave as it is.
  jvmtiCapabilities caps;
  std::memset(&caps, 0, sizeof(caps));
  caps.can_get_line_numbers = 1;
  caps.can_tag_objects = 1;
  jvmtiEventCallbacks cb;
  std::memset(&cb, 0, sizeof(cb));
  if (g_mode == "at_call") add_at_call_events(&caps, &cb);
  if (option_long("deoptimize_ms", 0) > 0) {
    caps.can_generate_single_step_events = 1;
    cb.SingleStep = on_single_step;
  }
  g_jvmti->AddCapabilities(&caps);
  cb.VMInit = on_vm_init;
  cb.VMDeath = on_vm_death;
  cb.ThreadStart = on_thread_start;
  cb.ThreadEnd = on_thread_end;
  cb.ClassPrepare = on_class_prepare;
  g_jvmti->SetEventCallbacks(&cb, sizeof(cb));
  for (jvmtiEvent e : {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END}) {
    g_jvmti->SetEventNotificationMode(JVMTI_ENABLE, e, nullptr);
  }
  std::memset(&g_caps_before, 0, sizeof(g_caps_before));
  g_jvmti->GetCapabilities(&g_caps_before);

  set_resolve_every_frame(g_mode == "unload" || g_mode == "virtual");
  set_expected_method_name(option("expect_method", ""));
  set_hot_method_name(option("hot", ""));
  set_expected_tops(option("expect_top", ""));
  set_required_method_name(option("require_method", ""));
  set_required_bottoms(option("require_bottom", ""));
  set_truth(option("truth", ""));
  set_call_sites(option("callsites", ""));
  install_signal_handler();
  if (g_mode == "probe") install_probe_handler();

  // Option max_depth: the depth limit of every session from here on; set before Enable.
  const long max_depth = option_long("max_depth", 0);
  if (max_depth != 0) {
    const jvmtiError err = JvmkitSetMaxStackDepth(static_cast<jint>(max_depth));
    if (err != JVMTI_ERROR_NONE) {
      std::fprintf(stderr, "JvmkitSetMaxStackDepth(%ld) before Enable returned %d\n", max_depth, err);
      return JNI_ERR;
    }
  }
  if (option_long("carrier_frames", 0) != 0) JvmkitSetCarrierFrames(JNI_TRUE);
  if (g_mode == "depth") {
    set_depth_check(option("depth_method", "descend"), option("root_method", "main"),
                    max_depth != 0 ? max_depth : JVMKIT_STACK_DEPTH_DEFAULT);
  }

  if (g_mode == "accounting" || g_mode == "unload" || g_mode == "bias" || g_mode == "virtual" || g_mode == "onunload" ||
      g_mode == "probe" || g_mode == "at_call" || g_mode == "depth") {
    jvmtiError err = EnableRequestStackTrace(g_jvmti);
    if (err != JVMTI_ERROR_NONE) {
      std::fprintf(stderr, "EnableRequestStackTrace in Agent_OnLoad returned %d\n", err);
      return JNI_ERR;
    }
    g_enabled_at_load = true;
    same_capabilities("by Enable");
    // Enabled (in Agent_OnLoad, waiting for VMInit): the limit is fixed until Disable.
    if (max_depth != 0 && JvmkitSetMaxStackDepth(static_cast<jint>(max_depth)) != JVMTI_ERROR_WRONG_PHASE) {
      std::fprintf(stderr, "JvmkitSetMaxStackDepth while enabled did not return JVMTI_ERROR_WRONG_PHASE\n");
      return JNI_ERR;
    }
  }
  return JNI_OK;
}

// mode=onunload: Disable in the dead phase must return (not wait for the agent thread that no
// longer runs) and succeed.
JNIEXPORT void JNICALL Agent_OnUnload(JavaVM*) {
  if (g_mode != "onunload") return;
  jvmtiError err = DisableRequestStackTrace(g_jvmti);
  jvmkitStackWalkCounters c;
  JvmkitGetStackWalkCounters(&c);
  std::fprintf(stderr, "Disable in Agent_OnUnload: error %d; accepted %lld delivered %lld failed %lld pending %lld\n",
               err, (long long)c.accepted, (long long)c.delivered, (long long)c.failed, (long long)c.pending);
  if (err != JVMTI_ERROR_NONE || c.delivered == 0) _exit(1);
  if (DisableRequestStackTrace(g_jvmti) != JVMTI_ERROR_NOT_AVAILABLE) _exit(1);
}
