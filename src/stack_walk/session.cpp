#include "stack_walk/session.hpp"
#include "stack_walk/signal/failed_samples.hpp"

#include <dlfcn.h>
#include <sched.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "hotspot/code_heap.hpp"
#include "hotspot/java_vm.hpp"
#include "hotspot/method_layout.hpp"
#include "hotspot/vm_structs.hpp"
#include "stack_walk/signal/capture.hpp"
#include "stack_walk/signal/x64/completeness.hpp"
#include "stack_walk/signal/x64/interpreter_entry.hpp"
#include "stack_walk/signal/x64/recovery.hpp"
#include "stack_walk/vm_probe.hpp"

namespace jvmkit::walk {

jvmtiError Session::enable(jvmtiEnv* caller_env) {
  if (caller_env == nullptr) return JVMTI_ERROR_NULL_POINTER;
  std::lock_guard<std::mutex> lock(lifecycle_);
  if (enabled_) return JVMTI_ERROR_NOT_AVAILABLE;
  jvmtiPhase phase;
  // Reading the phase leaves the caller's environment as it was.
  if (caller_env->GetPhase(&phase) != JVMTI_ERROR_NONE) return JVMTI_ERROR_INVALID_ENVIRONMENT;
  if (phase == JVMTI_PHASE_DEAD) return JVMTI_ERROR_WRONG_PHASE;

  auto asgct = reinterpret_cast<hotspot::AsgctFunction>(dlsym(RTLD_DEFAULT, "AsyncGetCallTrace"));
  if (asgct == nullptr) {
    std::fprintf(stderr, "jvmkit: EnableRequestStackTrace: this JVM has no AsyncGetCallTrace (not HotSpot?)\n");
    return JVMTI_ERROR_NOT_AVAILABLE;
  }
  JavaVM* vm = given_vm_.load();
  std::string why;
  if (vm == nullptr) vm = hotspot::find_java_vm(&why);
  if (vm == nullptr) {
    std::fprintf(stderr,
                 "jvmkit: EnableRequestStackTrace: cannot find the JavaVM while the JVM is starting (%s); call "
                 "JvmkitSetJavaVM(vm) first (e.g. in Agent_OnLoad)\n",
                 why.c_str());
    return JVMTI_ERROR_NOT_AVAILABLE;
  }
  JNIEnv* jni = nullptr;
  if (phase == JVMTI_PHASE_LIVE && (jni = current_jni(vm)) == nullptr) return JVMTI_ERROR_UNATTACHED_THREAD;
  // The session's request pool, sized for its depth limit (depth.hpp), before anything is set up.
  auto pool = std::make_unique<RequestPool>(pool_slots_for(max_frames_), max_frames_, native_mode_ != 0);
  if (!pool->allocated()) {
    std::fprintf(stderr, "jvmkit: EnableRequestStackTrace: cannot map the request pool (%u slots of %d frames)\n",
                 pool_slots_for(max_frames_), max_frames_ + 1);
    return JVMTI_ERROR_OUT_OF_MEMORY;
  }

  if (phase == JVMTI_PHASE_START) {
    // HotSpot creates no JVMTI environment in the start phase (GetEnv answers JNI_EDETACHED):
    // requests open now, jvmkit's own environment comes once the VM has started.
    open_requests(vm, asgct, std::move(pool));
    probe_thread_facts(current_jni(vm));
    start_completer(vm);
    return JVMTI_ERROR_NONE;
  }
  jvmtiError err = env_.create(vm);
  if (err != JVMTI_ERROR_NONE) return err;
  open_requests(vm, asgct, std::move(pool));
  if (phase == JVMTI_PHASE_LIVE) {
    err = live_setup(jni, true);
    // Nothing stays enabled when the agent thread could not be started.
    if (err != JVMTI_ERROR_NONE) teardown(false);
    return err;
  }
  // OnLoad: classes, threads and the agent thread come at VMInit; requests made before then are
  // queued (and delivered once the delivery thread runs). Requests for the current thread need
  // HotSpot's thread key, which needs JNI: learnt at VMStart, so that they are accepted in every
  // agent's VMInit callback, whatever the order of the environments (before then they are refused
  // with JVMTI_ERROR_NOT_AVAILABLE).
  env_.listen_for_vm_start_and_init();
  return JVMTI_ERROR_NONE;
}

jvmtiError Session::set_native_frames(jint mode) {
  if (mode != JVMKIT_NATIVE_OFF && mode != JVMKIT_NATIVE_ON && mode != (JVMKIT_NATIVE_ON | JVMKIT_NATIVE_WAIT)) {
    return JVMTI_ERROR_ILLEGAL_ARGUMENT;
  }
  std::unique_lock<std::mutex> lock(lifecycle_, std::try_to_lock);  // as set_max_frames
  if (!lock.owns_lock() || enabled_) return JVMTI_ERROR_WRONG_PHASE;
  native_mode_ = mode;
  return JVMTI_ERROR_NONE;
}

jvmtiError Session::set_max_frames(jint max_frames) {
  if (!valid_stack_depth(max_frames)) return JVMTI_ERROR_ILLEGAL_ARGUMENT;
  // Not waiting for the lock: Enable and Disable hold it while the walker changes state (Disable
  // while the delivery thread finishes, whose callbacks may call this), so the limit is in use or
  // about to be.
  std::unique_lock<std::mutex> lock(lifecycle_, std::try_to_lock);
  if (!lock.owns_lock() || enabled_) return JVMTI_ERROR_WRONG_PHASE;
  max_frames_ = max_frames;
  return JVMTI_ERROR_NONE;
}

void Session::open_requests(JavaVM* vm, hotspot::AsgctFunction asgct, std::unique_ptr<RequestPool> pool) {
  pool_ = std::move(pool);
  threads_.open();
  env_offset_.reset();
  code_map_.clear();
  delivery_thread_.reset();
  learn_native_text();
  learn_interpreter_entries();
  hotspot::learn_method_layout();
  hotspot::learn_code_heap_layout();  // in the live phase; an Enable in OnLoad learns it at VMStart
  keep_failed_samples(std::getenv("JVMKIT_WALK_DEBUG") != nullptr);
  CaptureState& state = capture_state();
  state.vm.store(vm, std::memory_order_release);
  state.asgct.store(asgct, std::memory_order_release);
  state.pool.store(&pool_->producer(), std::memory_order_release);
  state.code_map.store(&code_map_.cell(), std::memory_order_release);
  if (native_mode_ != 0) {
    native_tables_.start((native_mode_ & JVMKIT_NATIVE_WAIT) != 0);
    state.native_tables.store(native_tables_.cell(), std::memory_order_release);
    learn_code_heap(state);
  }
  state.open.store(true, std::memory_order_seq_cst);
  enabled_ = true;
}

void Session::learn_code_heap(CaptureState& state) {
  // The fields' addresses: their values are set once HotSpot made its code cache, after an
  // Enable in Agent_OnLoad, so the capture reads them anew.
  const auto low = hotspot::vm_static_field_address("CodeCache", "_low_bound");
  const auto high = hotspot::vm_static_field_address("CodeCache", "_high_bound");
  state.code_heap_low.store(low ? reinterpret_cast<const uintptr_t*>(*low) : nullptr, std::memory_order_release);
  state.code_heap_high.store(high ? reinterpret_cast<const uintptr_t*>(*high) : nullptr, std::memory_order_release);
  if (std::getenv("JVMKIT_WALK_DEBUG") != nullptr) {
    std::fprintf(stderr, "jvmkit: code heap bounds %s in vmStructs\n", low && high ? "found" : "not found");
  }
}

void Session::start_completer(JavaVM* vm) {
  completer_stop_.store(false);
  completer_running_.store(true);
  // Detached: the Session outlives it (the Library is never destroyed), and stop_completer waits
  // for it to end.
  std::thread([this, vm] {
    complete_when_started(vm);
    completer_running_.store(false);
  }).detach();
}

void Session::complete_when_started(JavaVM* vm) {
  // The VM has started when JNI_GetCreatedJavaVMs reports it (after VMInit and the Java agents'
  // premain); only then may a native thread attach.
  while (!completer_stop_.load()) {
    if (hotspot::created_java_vm() != nullptr) break;
    struct timespec ts = {0, 1'000'000};
    nanosleep(&ts, nullptr);
  }
  if (completer_stop_.load()) return;
  JNIEnv* jni = nullptr;
  JavaVMAttachArgs args{JNI_VERSION_1_6, const_cast<char*>("jvmkit enable"), nullptr};
  if (vm->AttachCurrentThreadAsDaemon(reinterpret_cast<void**>(&jni), &args) != JNI_OK) {
    std::fprintf(stderr, "jvmkit: EnableRequestStackTrace (start phase): cannot attach to the started VM\n");
    return;
  }
  {
    std::lock_guard<std::mutex> lock(lifecycle_);
    if (enabled_ && env_.get() == nullptr && !completer_stop_.load()) {
      jvmtiError err = env_.create(vm);
      if (err == JVMTI_ERROR_NONE) err = live_setup(jni, true);
      if (err != JVMTI_ERROR_NONE) {
        std::fprintf(stderr, "jvmkit: EnableRequestStackTrace (start phase): setup failed (JVMTI error %d)\n", err);
        teardown(false);
      }
    }
  }
  vm->DetachCurrentThread();
}

void Session::stop_completer() {
  completer_stop_.store(true);
  while (completer_running_.load()) {
    struct timespec ts = {0, 1'000'000};
    nanosleep(&ts, nullptr);
  }
}

void Session::on_vm_start(jvmtiEnv* jvmti, JNIEnv* jni) {
  std::lock_guard<std::mutex> lock(lifecycle_);
  if (!enabled_ || jvmti != env_.get()) return;
  // Failures are reported again, and fatal, at VMInit (live_setup).
  probe_thread_facts(jni);
  hotspot::learn_code_heap_layout();  // HotSpot made its code cache before the start phase
}

void Session::on_vm_init(jvmtiEnv* jvmti, JNIEnv* jni) {
  std::lock_guard<std::mutex> lock(lifecycle_);
  if (!enabled_ || jvmti != env_.get()) return;
  // As in the live phase, nothing stays enabled when the setup fails (it said why on stderr):
  // requests then return JVMTI_ERROR_NOT_AVAILABLE, and those queued since OnLoad fail.
  if (live_setup(jni, false) != JVMTI_ERROR_NONE) teardown(false);
}

jvmtiError Session::live_setup(JNIEnv* jni, bool compiled_unseen) {
  if (!probe_thread_key(jni)) return JVMTI_ERROR_NOT_AVAILABLE;
  warn_about_jdk(env_.get());
  probe_thread_layout(jni);
  env_offset_.learn(jni);
  env_.create_method_ids(jni);
  env_.replay_generated_code(compiled_unseen);
  return delivery_thread_.start(jni, pool_.get());
}

jvmtiError Session::disable(jvmtiEnv* caller_env) {
  if (caller_env == nullptr) return JVMTI_ERROR_NULL_POINTER;
  // The completer takes lifecycle_ to finish a start-phase Enable: stopped before, not under it.
  stop_completer();
  std::lock_guard<std::mutex> lock(lifecycle_);
  if (!enabled_) return JVMTI_ERROR_NOT_AVAILABLE;
  jvmtiPhase phase = JVMTI_PHASE_LIVE;
  caller_env->GetPhase(&phase);
  teardown(phase == JVMTI_PHASE_DEAD);
  return JVMTI_ERROR_NONE;
}

void Session::teardown(bool dead) {
  // 1. No new requests; wait for the ones being made right now to be published.
  CaptureState& state = capture_state();
  state.open.store(false, std::memory_order_seq_cst);
  while (state.inside.load(std::memory_order_seq_cst) != 0) sched_yield();

  // 2. Every accepted request gets its outcome before we return. In the dead phase
  // (Agent_OnUnload) the agent thread is gone and no callback may run: requests still queued stay
  // pending, and the JVM is past caring about references.
  if (!dead) delivery_thread_.finish(*pool_);

  if (std::getenv("JVMKIT_WALK_DEBUG") != nullptr) print_debug_summary();
  // 3. Release what Enable took. Disposing the environment drops its events and capabilities.
  env_.dispose();
  threads_.close(dead ? nullptr : current_jni(state.vm.load()));
  state.pool.store(nullptr, std::memory_order_seq_cst);
  if (dead) {
    // The delivery thread may still wake from its futex wait; it must find its pool. The process
    // is exiting: leaving it allocated costs nothing.
    delivery_thread_.stop_without_waiting();
    (void)pool_.release();
  } else {
    pool_.reset();
  }
  env_offset_.reset();
  frame_types_.clear();
  // The gate is closed and empty: no capture reads the code map or the native tables any more, and
  // every request was delivered (the delivery thread read the tables for names).
  state.code_map.store(nullptr, std::memory_order_seq_cst);
  code_map_.clear();
  state.native_tables.store(nullptr, std::memory_order_seq_cst);
  if (dead) {
    native_tables_.stop();  // the process is exiting; the watcher's tables may stay
  } else {
    native_tables_.release();
  }
  enabled_ = false;
}

void Session::print_debug_summary() const {
  std::fprintf(stderr, "jvmkit: ASGCT first answers by code:");
  const RecoveryCounters& rc = recovery_counters();
  for (int i = 0; i < RecoveryCounters::kCodeSlots; i++) {
    std::fprintf(stderr, " %d:%lld", -i, static_cast<long long>(rc.first_codes[i].load()));
  }
  const Deliverer::Stats& stats = deliverer_.stats();
  std::fprintf(stderr,
               "; code map: %zu blobs, %zu nmethods, interpreter %s; frames typed exactly %lld, by fallback %lld; "
               "traces cut short seen by the physical walk %lld, by the bottom frame %lld, by the proof %lld; "
               "proven complete %lld, unproven %lld (walk ends: %s), unchecked %lld, biased as unproven %lld\n",
               code_map_.blobs(), code_map_.nmethods(), code_map_.has_interpreter() ? "yes" : "no",
               static_cast<long long>(stats.typed_exact), static_cast<long long>(stats.typed_fallback),
               static_cast<long long>(stats.cut_seen_by_walk), static_cast<long long>(stats.cut_seen_by_root),
               static_cast<long long>(stats.cut_seen_by_proof), static_cast<long long>(stats.proven),
               static_cast<long long>(stats.unproven), proof_walk_ends().c_str(),
               static_cast<long long>(stats.unchecked), static_cast<long long>(stats.biased_unproven));
  print_failed_samples();
}

}  // namespace jvmkit::walk
