#include "stack_walk/walker.hpp"

#include <dlfcn.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "base/clock.hpp"
#include "hotspot/java_thread.hpp"
#include "hotspot/java_vm.hpp"
#include "hotspot/vm_flags.hpp"
#include "hotspot/jdk_version.hpp"
#include "stack_walk/counters.hpp"
#include "stack_walk/signal/capture.hpp"
#include "stack_walk/signal/x64/recovery.hpp"

namespace jvmkit::walk {

namespace {

constexpr uint32_t kPoolSlots = 1024;
constexpr int64_t kIdleWaitNs = 100'000'000;
// While requests keep coming, the delivery thread naps, starting at kFirstNapNs and doubling up to
// kLongestNapNs; after kQuietNs without a request it waits on the wake event again.
constexpr int64_t kFirstNapNs = 1'000'000;
constexpr int64_t kLongestNapNs = 16'000'000;
constexpr int64_t kQuietNs = 100'000'000;
// A look-up miss rescans the live threads at most this often (misses are normal for JVM-internal
// threads that GetAllThreads does not list, e.g. compiler threads).
constexpr uint64_t kRescanIntervalNs = 20'000'000;

uint64_t published_now() {
  RequestPool* pool = capture_state().pool.load(std::memory_order_acquire);
  return pool ? pool->published() : 0;
}

// Set on the enabling thread while GenerateEvents replays the compilations that happened before a
// live-phase Enable without -XX:+DebugNonSafepoints (see CodeRange::coarse_debug_info).
thread_local bool t_replaying_coarse = false;

// JVMTI event callbacks of jvmkit's own environment: forward to the one Walker.
void JNICALL OnVmStart(jvmtiEnv* jvmti, JNIEnv* jni) { Walker::instance().on_vm_start(jvmti, jni); }
void JNICALL OnVmInit(jvmtiEnv* jvmti, JNIEnv* jni, jthread) { Walker::instance().on_vm_init(jvmti, jni); }
void JNICALL OnClassLoad(jvmtiEnv*, JNIEnv*, jthread, jclass) {
  // Nothing to do: AsyncGetCallTrace refuses to walk unless some environment has ClassLoad enabled.
}
void JNICALL OnClassPrepare(jvmtiEnv* jvmti, JNIEnv* jni, jthread, jclass klass) {
  Walker::instance().on_class_prepare(jvmti, jni, klass);
}
void JNICALL OnThreadStart(jvmtiEnv*, JNIEnv* jni, jthread thread) { Walker::instance().on_thread_start(jni, thread); }
void JNICALL OnThreadEnd(jvmtiEnv*, JNIEnv* jni, jthread) { Walker::instance().on_thread_end(jni); }
void JNICALL OnCompiledMethodLoad(jvmtiEnv*, jmethodID method, jint code_size, const void* code_addr, jint,
                                  const jvmtiAddrLocationMap*, const void*) {
  // Enabling this event also makes HotSpot record debug info at non-safepoint PCs
  // (DebugNonSafepoints), which lets ASGCT attribute PCs inside loops and inlined code exactly.
  Walker& w = Walker::instance();
  w.frame_types().compiled(method);
  w.code_map().add_nmethod(method, reinterpret_cast<uintptr_t>(code_addr), static_cast<size_t>(code_size),
                           t_replaying_coarse);
}
void JNICALL OnCompiledMethodUnload(jvmtiEnv*, jmethodID method, const void* code_addr) {
  Walker& w = Walker::instance();
  w.frame_types().unloaded(method);
  w.code_map().remove_nmethod(reinterpret_cast<uintptr_t>(code_addr));
}
void JNICALL OnDynamicCodeGenerated(jvmtiEnv*, const char* name, const void* address, jint length) {
  // The interpreter, named stubs (StubRoutines::dlog, vtable/itable stubs...) and other blobs.
  Walker::instance().code_map().add_blob(name, reinterpret_cast<uintptr_t>(address), static_cast<size_t>(length));
}

}  // namespace

Walker& Walker::instance() {
  static Walker walker;
  return walker;
}

jvmtiError Walker::enable(jvmtiEnv* caller_env) {
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

  if (phase == JVMTI_PHASE_START) {
    // HotSpot creates no JVMTI environment in the start phase (GetEnv answers JNI_EDETACHED):
    // requests open now, jvmkit's own environment comes once the VM has started.
    open_requests(vm, asgct);
    learn_thread_facts(current_jni(vm));
    start_completer(vm);
    return JVMTI_ERROR_NONE;
  }
  jvmtiError err = create_own_env(vm);
  if (err != JVMTI_ERROR_NONE) return err;
  open_requests(vm, asgct);
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
  jvmti_->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VM_START, nullptr);
  jvmti_->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, nullptr);
  return JVMTI_ERROR_NONE;
}

jvmtiError Walker::create_own_env(JavaVM* vm) {
  jvmtiEnv* own = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&own), JVMTI_VERSION_1_2) != JNI_OK || own == nullptr) {
    return JVMTI_ERROR_NOT_AVAILABLE;
  }
  jvmtiCapabilities potential;
  std::memset(&potential, 0, sizeof(potential));
  jvmtiCapabilities wanted;
  std::memset(&wanted, 0, sizeof(wanted));
  if (own->GetPotentialCapabilities(&potential) == JVMTI_ERROR_NONE) {
    wanted.can_generate_compiled_method_load_events = potential.can_generate_compiled_method_load_events;
  }
  have_compiled_method_load_ =
      wanted.can_generate_compiled_method_load_events && own->AddCapabilities(&wanted) == JVMTI_ERROR_NONE;

  jvmtiEventCallbacks callbacks;
  std::memset(&callbacks, 0, sizeof(callbacks));
  callbacks.VMStart = OnVmStart;
  callbacks.VMInit = OnVmInit;
  callbacks.ClassLoad = OnClassLoad;
  callbacks.ClassPrepare = OnClassPrepare;
  callbacks.ThreadStart = OnThreadStart;
  callbacks.ThreadEnd = OnThreadEnd;
  callbacks.CompiledMethodLoad = OnCompiledMethodLoad;
  callbacks.CompiledMethodUnload = OnCompiledMethodUnload;
  callbacks.DynamicCodeGenerated = OnDynamicCodeGenerated;
  jvmtiError err = own->SetEventCallbacks(&callbacks, sizeof(callbacks));
  if (err != JVMTI_ERROR_NONE) {
    own->DisposeEnvironment();
    return err;
  }
  for (jvmtiEvent event :
       {JVMTI_EVENT_CLASS_LOAD, JVMTI_EVENT_CLASS_PREPARE, JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END}) {
    own->SetEventNotificationMode(JVMTI_ENABLE, event, nullptr);
  }
  own->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_DYNAMIC_CODE_GENERATED, nullptr);
  if (have_compiled_method_load_) {
    own->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_LOAD, nullptr);
    own->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_UNLOAD, nullptr);
  }
  jvmti_ = own;
  return JVMTI_ERROR_NONE;
}

void Walker::open_requests(JavaVM* vm, hotspot::AsgctFunction asgct) {
  pool_ = std::make_unique<RequestPool>(kPoolSlots);
  threads_.open();
  env_offset_.reset();
  code_map_.clear();
  stop_.store(false);
  {
    std::lock_guard<std::mutex> dl(delivery_mutex_);
    delivery_state_ = DeliveryState::kNotStarted;
  }
  learn_native_text();
  CaptureState& state = capture_state();
  state.vm.store(vm, std::memory_order_release);
  state.asgct.store(asgct, std::memory_order_release);
  state.pool.store(pool_.get(), std::memory_order_release);
  state.code_map.store(&code_map_, std::memory_order_release);
  state.open.store(true, std::memory_order_seq_cst);
  enabled_ = true;
}

void Walker::start_completer(JavaVM* vm) {
  completer_stop_.store(false);
  completer_running_.store(true);
  // Detached: the Walker outlives it, and stop_completer waits for it to end.
  std::thread([this, vm] {
    complete_when_started(vm);
    completer_running_.store(false);
  }).detach();
}

void Walker::complete_when_started(JavaVM* vm) {
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
    if (enabled_ && jvmti_ == nullptr && !completer_stop_.load()) {
      jvmtiError err = create_own_env(vm);
      if (err == JVMTI_ERROR_NONE) err = live_setup(jni, true);
      if (err != JVMTI_ERROR_NONE) {
        std::fprintf(stderr, "jvmkit: EnableRequestStackTrace (start phase): setup failed (JVMTI error %d)\n", err);
        teardown(false);
      }
    }
  }
  vm->DetachCurrentThread();
}

void Walker::stop_completer() {
  completer_stop_.store(true);
  while (completer_running_.load()) {
    struct timespec ts = {0, 1'000'000};
    nanosleep(&ts, nullptr);
  }
}

void Walker::on_vm_start(jvmtiEnv* jvmti, JNIEnv* jni) {
  std::lock_guard<std::mutex> lock(lifecycle_);
  if (!enabled_ || jvmti != jvmti_) return;
  learn_thread_facts(jni);
}

void Walker::learn_thread_facts(JNIEnv* jni) {
  // Failures are reported again, and fatal, at VMInit (live_setup).
  std::string why;
  if (jni == nullptr || !hotspot::learn_thread_key(jni, &why)) return;
  hotspot::learn_java_thread_layout(jni, &why);
}

void Walker::on_vm_init(jvmtiEnv* jvmti, JNIEnv* jni) {
  std::lock_guard<std::mutex> lock(lifecycle_);
  if (!enabled_ || jvmti != jvmti_) return;
  // As in the live phase, nothing stays enabled when the setup fails (it said why on stderr):
  // requests then return JVMTI_ERROR_NOT_AVAILABLE, and those queued since OnLoad fail.
  if (live_setup(jni, false) != JVMTI_ERROR_NONE) teardown(false);
}

jvmtiError Walker::live_setup(JNIEnv* jni, bool compiled_unseen) {
  if (!learn_thread_key(jni)) return JVMTI_ERROR_NOT_AVAILABLE;
  warn_about_jdk();
  learn_thread_layout(jni);
  env_offset_.learn(jni);
  create_method_ids(jni);
  // Code generated before Enable: replay its events (stubs and the interpreter for recovery,
  // compiled methods for recovery and frame types). Duplicates of events already seen replace
  // the same entries.
  jvmti_->GenerateEvents(JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
  if (have_compiled_method_load_) {
    // In the OnLoad phase nothing was compiled yet. Later, code compiled before has debug records
    // at non-safepoint PCs only if the flag asked for them (or another environment recorded
    // compilations then, which jvmkit cannot see: such code is reported biased too).
    t_replaying_coarse = compiled_unseen && !hotspot::bool_flag("DebugNonSafepoints").value_or(false);
    jvmti_->GenerateEvents(JVMTI_EVENT_COMPILED_METHOD_LOAD);
    t_replaying_coarse = false;
  }

  jclass thread_class = jni->FindClass("java/lang/Thread");
  jmethodID ctor = thread_class ? jni->GetMethodID(thread_class, "<init>", "(Ljava/lang/String;)V") : nullptr;
  jstring name = ctor ? jni->NewStringUTF(JVMKIT_WALK_THREAD_NAME) : nullptr;
  jobject thread = name ? jni->NewObject(thread_class, ctor, name) : nullptr;
  jvmtiError err = JVMTI_ERROR_INTERNAL;
  if (thread != nullptr) {
    err = jvmti_->RunAgentThread(thread, delivery_main, this, JVMTI_THREAD_NORM_PRIORITY);
  } else {
    jni->ExceptionClear();
  }
  if (err == JVMTI_ERROR_NONE) {
    std::unique_lock<std::mutex> dl(delivery_mutex_);
    delivery_cv_.wait(dl, [this] { return delivery_state_ != DeliveryState::kNotStarted; });
  } else {
    std::fprintf(stderr, "jvmkit: could not start the stack walker thread (JVMTI error %d)\n", err);
  }
  if (thread_class) jni->DeleteLocalRef(thread_class);
  if (name) jni->DeleteLocalRef(name);
  if (thread) jni->DeleteLocalRef(thread);
  return err;
}

void Walker::create_method_ids(JNIEnv* jni) {
  jint count = 0;
  jclass* classes = nullptr;
  if (jvmti_->GetLoadedClasses(&count, &classes) != JVMTI_ERROR_NONE) return;
  for (jint i = 0; i < count; i++) {
    on_class_prepare(jvmti_, jni, classes[i]);
    jni->DeleteLocalRef(classes[i]);
  }
  jvmti_->Deallocate(reinterpret_cast<unsigned char*>(classes));
}

void Walker::on_class_prepare(jvmtiEnv* jvmti, JNIEnv*, jclass klass) {
  // GetClassMethods creates the jmethodIDs of all the class's methods; ASGCT reports a frame only
  // if its method already has one (it cannot create them in a signal handler).
  jint count = 0;
  jmethodID* methods = nullptr;
  if (jvmti->GetClassMethods(klass, &count, &methods) == JVMTI_ERROR_NONE) {
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(methods));
  }
  // Not yet prepared (array and primitive classes, or classes still loading): ClassPrepare follows.
}

void Walker::on_thread_start(JNIEnv* jni, jthread thread) { threads_.add(jni, jni, thread, published_now(), true); }

void Walker::on_thread_end(JNIEnv* jni) { threads_.end(jni, published_now()); }

void Walker::learn_thread_layout(JNIEnv* jni) {
  // Without it the handler does not read the stack at all: no recovery, no physical walk (frame
  // types then come from AsyncGetCallTrace's answer alone). Worth a warning, not a failure.
  std::string why;
  if (hotspot::learn_java_thread_layout(jni, &why) == nullptr) {
    std::fprintf(stderr,
                 "jvmkit: warning: cannot read this JVM's thread stack bounds (%s); samples AsyncGetCallTrace "
                 "cannot place are not recovered, and frame types are approximate\n",
                 why.c_str());
  }
}

bool Walker::learn_thread_key(JNIEnv* jni) {
  // Without the key the handler cannot tell a thread HotSpot is still starting, where JNI's GetEnv
  // may deadlock (hotspot/java_thread.hpp, Attachment), from an attached one: no sampling then.
  std::string why;
  if (hotspot::learn_thread_key(jni, &why)) return true;
  std::fprintf(stderr,
               "jvmkit: EnableRequestStackTrace: cannot find HotSpot's thread key (%s); signal handlers could "
               "not tell which threads are safe to sample, so the stack walker stays disabled\n",
               why.c_str());
  return false;
}

void Walker::warn_about_jdk() {
  static std::atomic<bool> warned{false};
  char* value = nullptr;
  if (jvmti_->GetSystemProperty("java.runtime.version", &value) != JVMTI_ERROR_NONE || value == nullptr) return;
  std::optional<JdkVersion> version = parse_jdk_version(value);
  jvmti_->Deallocate(reinterpret_cast<unsigned char*>(value));
  if (!version) return;
  std::string warning = jmethodid_safety_warning(*version);
  if (!warning.empty() && !warned.exchange(true)) std::fprintf(stderr, "jvmkit: %s\n", warning.c_str());
}

jvmtiError Walker::disable(jvmtiEnv* caller_env) {
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

void Walker::teardown(bool dead) {
  // 1. No new requests; wait for the ones being made right now to be published.
  CaptureState& state = capture_state();
  state.open.store(false, std::memory_order_seq_cst);
  while (state.inside.load(std::memory_order_seq_cst) != 0) sched_yield();

  // 2. Every accepted request gets its outcome before we return. In the dead phase
  // (Agent_OnUnload) the agent thread is gone and no callback may run: requests still queued stay
  // pending, and the JVM is past caring about references.
  if (!dead) {
    std::unique_lock<std::mutex> dl(delivery_mutex_);
    if (delivery_state_ == DeliveryState::kRunning) {
      stop_.store(true, std::memory_order_seq_cst);
      pool_->wake().notify();
      pool_->wake().urge();
      delivery_cv_.wait(dl, [this] { return delivery_state_ == DeliveryState::kExited; });
    } else {
      dl.unlock();
      drain_without_thread();
    }
  }

  if (std::getenv("JVMKIT_WALK_DEBUG") != nullptr) {
    std::fprintf(stderr, "jvmkit: ASGCT first answers by code:");
    const RecoveryCounters& rc = recovery_counters();
    for (int i = 0; i < RecoveryCounters::kCodeSlots; i++) {
      std::fprintf(stderr, " %d:%lld", -i, static_cast<long long>(rc.first_codes[i].load()));
    }
    std::fprintf(stderr,
                 "; code map: %zu blobs, %zu nmethods, interpreter %s; frames typed exactly %lld, by fallback %lld; "
                 "traces cut short seen by the physical walk %lld, by the bottom frame %lld\n",
                 code_map_.blobs(), code_map_.nmethods(), code_map_.has_interpreter() ? "yes" : "no",
                 static_cast<long long>(typed_exact_), static_cast<long long>(typed_fallback_),
                 static_cast<long long>(cut_seen_by_walk_), static_cast<long long>(cut_seen_by_root_));
  }
  // 3. Release what Enable took. Disposing the environment drops its events and capabilities.
  // (Enabled in the start phase and disabled before the VM had started: there is none yet.)
  if (jvmti_ != nullptr) {
    for (jvmtiEvent event : {JVMTI_EVENT_VM_START, JVMTI_EVENT_VM_INIT, JVMTI_EVENT_CLASS_LOAD,
                             JVMTI_EVENT_CLASS_PREPARE, JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END,
                             JVMTI_EVENT_COMPILED_METHOD_LOAD, JVMTI_EVENT_COMPILED_METHOD_UNLOAD,
                             JVMTI_EVENT_DYNAMIC_CODE_GENERATED}) {
      jvmti_->SetEventNotificationMode(JVMTI_DISABLE, event, nullptr);
    }
    jvmti_->DisposeEnvironment();
  }
  jvmti_ = nullptr;
  threads_.close(dead ? nullptr : current_jni(state.vm.load()));
  state.pool.store(nullptr, std::memory_order_seq_cst);
  if (dead) {
    // The delivery thread may still wake from its futex wait; it must find its pool. The process
    // is exiting: leaving it allocated costs nothing.
    stop_.store(true, std::memory_order_seq_cst);
    (void)pool_.release();
  } else {
    pool_.reset();
  }
  env_offset_.reset();
  frame_types_.clear();
  // The gate is closed and empty: no capture reads the code map any more.
  state.code_map.store(nullptr, std::memory_order_seq_cst);
  code_map_.clear();
  enabled_ = false;
}

void JNICALL Walker::delivery_main(jvmtiEnv*, JNIEnv* jni, void* arg) { static_cast<Walker*>(arg)->delivery_loop(jni); }

void Walker::delivery_loop(JNIEnv* jni) {
  // A second thread checks the JNIEnv offset learnt on the enabling thread before threads that
  // existed before Enable are registered through it.
  if (env_offset_.validate(jni)) {
    threads_.scan(jni, jvmti_, env_offset_, 0);
  } else {
    std::fprintf(stderr,
                 "jvmkit: Thread.eetop check failed; threads started before EnableRequestStackTrace "
                 "are not identified (their traces fail with thread_ended)\n");
  }
  frame_buffer_.resize(kMaxFrames);
  type_buffer_.resize(kMaxFrames);
  {
    std::lock_guard<std::mutex> dl(delivery_mutex_);
    delivery_state_ = DeliveryState::kRunning;
  }
  delivery_cv_.notify_all();

  RequestPool& pool = *pool_;
  // While requests keep coming, the thread naps instead of waiting on the wake event: a capture
  // then finds no waiter and makes no futex syscall (most of the capture's cost beyond ASGCT at
  // kHz rates). The nap doubles up to kLongestNapNs, so a steady trickle of requests (one thread
  // at 100 Hz) costs ~60 wake-ups a second, not one per request or per millisecond; a backlog of a
  // quarter of the pool cuts a nap short (RequestPool::publish), so fast bursts are not dropped.
  int64_t nap_ns = 0;  // 0: waiting on the wake event
  int64_t quiet_ns = 0;
  for (;;) {
    uint32_t token = pool.wake().prepare();
    bool any = false;
    uint32_t index = 0;
    uint64_t ticket = 0;
    while (pool.take(&index, &ticket)) {
      deliver(jni, pool.at(index), ticket);
      pool.release(index);
      any = true;
    }
    if (any) threads_.purge(jni, pool.taken());
    if (!any) code_map_.reclaim();
    if (stop_.load(std::memory_order_seq_cst)) {
      // Disable closed the gate and waited for callers to leave before setting stop_: nothing
      // more can be published, so equal positions mean every request has had its outcome.
      if (pool.published() == pool.taken()) break;
      continue;
    }
    if (any) quiet_ns = 0;
    if (!any && nap_ns != 0) quiet_ns += nap_ns;
    if (!any && (nap_ns == 0 || quiet_ns >= kQuietNs)) {
      nap_ns = 0;
      pool.wake().wait(token, kIdleWaitNs);
      continue;
    }
    nap_ns = nap_ns == 0 ? kFirstNapNs : std::min(2 * nap_ns, kLongestNapNs);
    pool.wake().nap(nap_ns, [&] { return pool.backlog_is_urgent() || stop_.load(std::memory_order_seq_cst); });
  }

  thread_roots_.reset(jni);
  {
    std::lock_guard<std::mutex> dl(delivery_mutex_);
    delivery_state_ = DeliveryState::kExited;
  }
  delivery_cv_.notify_all();
}

void Walker::drain_without_thread() {
  // Disable before the delivery thread ever ran (Enable in Agent_OnLoad, Disable before VMInit):
  // the queued requests fail here, on the disabling thread.
  JNIEnv* jni = current_jni(capture_state().vm.load());
  uint32_t index = 0;
  uint64_t ticket = 0;
  while (pool_->take(&index, &ticket)) {
    Request& request = pool_->at(index);
    report_failure(request.callbacks, nullptr, request.user_data, JVMKIT_FAILURE_DISABLED);
    if (request.target != nullptr && jni != nullptr) jni->DeleteGlobalRef(request.target);
    counters().count_failed(JVMKIT_FAILURE_DISABLED);
    pool_->release(index);
  }
}

jvmtiError Walker::request_thread(jthread thread, void* ucontext, const jvmtiStackTraceCallbacks& callbacks,
                                  void* user_data) {
  // Not signal context: an explicit thread is checked with JNI and JVMTI.
  if (thread == nullptr) return request_current_thread(ucontext, callbacks, user_data);
  CaptureState& state = capture_state();
  if (!enter_gate(state)) {
    counters().count_rejected(JVMKIT_REJECT_NOT_ENABLED);
    return JVMTI_ERROR_NOT_AVAILABLE;
  }
  JNIEnv* jni = current_jni(state.vm.load(std::memory_order_acquire));
  if (jni == nullptr) {
    leave_gate(state);
    counters().count_rejected(JVMKIT_REJECT_UNATTACHED_THREAD);
    return JVMTI_ERROR_UNATTACHED_THREAD;
  }
  // jvmti_ is set before the gate opens and cleared only after Disable saw the gate empty.
  jint thread_state = 0;
  if (jvmti_->GetThreadState(thread, &thread_state) != JVMTI_ERROR_NONE ||
      (thread_state & JVMTI_THREAD_STATE_ALIVE) == 0) {
    leave_gate(state);
    counters().count_rejected(JVMKIT_REJECT_INVALID_THREAD);
    return JVMTI_ERROR_INVALID_THREAD;
  }
  jthread self = nullptr;
  bool is_self = jvmti_->GetCurrentThread(&self) == JVMTI_ERROR_NONE && jni->IsSameObject(self, thread);
  if (self != nullptr) jni->DeleteLocalRef(self);
  if (is_self) {
    leave_gate(state);
    return request_current_thread(ucontext, callbacks, user_data);
  }
  RequestPool* pool = state.pool.load(std::memory_order_acquire);
  uint32_t index = 0;
  Request* request = pool->acquire(&index);
  if (request == nullptr) {
    leave_gate(state);
    counters().count_rejected(JVMKIT_REJECT_POOL_FULL);
    return JVMTI_ERROR_OUT_OF_MEMORY;
  }
  request->kind = RequestKind::kOtherBiased;
  request->callbacks = callbacks;
  request->user_data = user_data;
  request->jni = jni;
  request->target = jni->NewGlobalRef(thread);
  request->num_frames = 0;
  request->pc = 0;
  request->sp = 0;
  request->physical_count = 0;
  if (request->target == nullptr) {
    pool->abandon(index);
    leave_gate(state);
    counters().count_rejected(JVMKIT_REJECT_POOL_FULL);
    return JVMTI_ERROR_OUT_OF_MEMORY;
  }
  counters().count_accepted();
  pool->publish(index);
  leave_gate(state);
  return JVMTI_ERROR_NONE;
}

jobject Walker::resolve_thread(JNIEnv* jni, JNIEnv* key, uint64_t ticket, bool* rooted) {
  jobject thread = threads_.find(key, ticket, rooted);
  if (thread == nullptr && env_offset_.valid()) {
    const uint64_t now = static_cast<uint64_t>(monotonic_ns());
    if (now - last_scan_ns_ >= kRescanIntervalNs) {
      last_scan_ns_ = now;
      threads_.scan(jni, jvmti_, env_offset_, 0);
      thread = threads_.find(key, ticket, rooted);
    }
  }
  return thread;
}

}  // namespace jvmkit::walk
