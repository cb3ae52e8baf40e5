#include "profiler/recording/recording.hpp"

#include <atomic>

#include "base/debug_check.hpp"
#include "profiler/context/label_sets.hpp"
#include "profiler/recording/thread_info.hpp"
#include "profiler/recording/thread_kinds.hpp"
#include "profiler/utf8.hpp"

namespace jvmkit::prof {

namespace {

// The current thread's JNIEnv (the delivery thread's, inside the callbacks), or nullptr.
JNIEnv* jni_of(JavaVM* vm) {
  JNIEnv* jni = nullptr;
  return vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6) == JNI_OK ? jni : nullptr;
}

}  // namespace

Recording::Recording(JavaVM* vm, jvmtiEnv* jvmti, const Options& options, int64_t start_wall_ns, int64_t start_mono_ns)
    : vm_(vm),
      jvmti_(jvmti),
      options_(options),
      timed_(options.format == OutputFormat::kJfr),
      window_start_wall_ns_(start_wall_ns),
      window_start_mono_ns_(start_mono_ns) {
  for (size_t i = 0; i < options_.events.size(); i++) {
    slots_.push_back(std::make_unique<Slot>(vm, jvmti, new_profile()));
    if (options_.events[i] == options_.event) signal_slot_ = i;
  }
  trace_.reserve(static_cast<size_t>(options_.depth) + 3);
}

std::unique_ptr<Profile> Recording::new_profile() const {
  ProfileLimits limits;
  limits.max_nodes = static_cast<size_t>(options_.max_stacks);
  return std::make_unique<Profile>(limits);
}

size_t Recording::slot_of(EngineKind kind) const {
  for (size_t i = 0; i < options_.events.size(); i++) {
    if (options_.events[i]->engine == kind) return i;
  }
  return kNoSlot;
}

void Recording::begin_trace(size_t slot, jboolean biased) {
  mutex_.lock();  // released in end_trace
  JVMKIT_DCHECK(!trace_locked_);
  trace_locked_ = true;
  // kNoSlot: a request of an event this run does not sample (made as the run before it ended);
  // its trace is received and left out.
  tracing_ = slot < slots_.size() ? slots_[slot].get() : nullptr;
  tracing_slot_ = slot;
  trace_.clear();
  trace_cut_ = false;
  trace_thread_.known = false;
  trace_native_ = false;
  trace_kernel_ = false;
  trace_java_ = false;
  // A JVM event's trace is always reported biased: it is the stack of the thread at the event (a
  // JVMTI callback), where the event happened, which is what such a sample wants.
  if (biased && slot == signal_slot_) biased_++;
}

bool Recording::add_frame(jvmtiFrameType type, jmethodID method, jlocation location) {
  JVMKIT_DCHECK(trace_locked_);  // between begin_trace and end_trace
  if (tracing_ == nullptr) return false;
  trace_java_ = true;
  if (trace_.size() >= static_cast<size_t>(options_.depth)) {
    trace_cut_ = true;
    return false;
  }
  Frame f;
  tracing_->resolver.resolve(method, location, &f.method, &f.line);
  f.bci = static_cast<int32_t>(location);
  switch (type) {
    case JVMTI_FRAME_INTERPRETER:
      f.type = FrameType::kInterpreted;
      break;
    case JVMTI_FRAME_INLINE:
      f.type = FrameType::kInlined;
      break;
    case JVMTI_FRAME_NATIVE:
      f.type = FrameType::kNative;
      break;
    default:
      f.type = FrameType::kJit;
  }
  trace_.push_back(f);
  return true;
}

void Recording::set_trace_thread(bool java_thread, const char* name) {
  JVMKIT_DCHECK(trace_locked_);
  trace_thread_.known = true;
  trace_thread_.java = java_thread;
  // The kernel keeps 15 bytes of a name: maybe a character cut in two.
  trace_thread_.name = valid_utf8(name != nullptr ? name : "");
}

bool Recording::add_native_frame(const NativeFrameInfo& frame) {
  JVMKIT_DCHECK(trace_locked_);
  if (tracing_ == nullptr) return false;
  if (frame.type == FrameType::kSynthetic) {
    if (frame.marker < kMarkerReasons) native_.markers[frame.marker]++;
  } else {
    trace_native_ = true;
    if (frame.type == FrameType::kKernel) trace_kernel_ = true;
  }
  if (trace_.size() >= static_cast<size_t>(options_.depth)) {
    trace_cut_ = true;
    return false;
  }
  trace_.push_back(Frame{tracing_->native_methods.method(frame), frame.type, 0});
  return true;
}

void Recording::end_trace(jthread thread, pid_t tid, bool truncated, const SampleContext& context) {
  if (options_.event != nullptr && options_.event->engine == EngineKind::kWall) delivered_tids_.insert(tid);
  if (trace_thread_.known && tracing_ != nullptr && !trace_.empty()) {
    native_.traces++;
    if (trace_native_) native_.with_native++;
    if (trace_kernel_) native_.with_kernel++;
    if (!trace_java_) native_.native_only++;
    native_.samples_by_kind[static_cast<size_t>(thread_kind(trace_thread_.java, trace_thread_.name))]++;
  }
  finish_trace(thread, tid, truncated, options_.interval, nullptr, 0, false, context);
}

void Recording::end_event_trace(jthread thread, pid_t tid, bool truncated, int64_t weight,
                                const std::string& leaf_class, jlong tag, bool park, const SampleContext& context) {
  finish_trace(thread, tid, truncated, weight, &leaf_class, tag, park, context);
}

void Recording::objects_freed(const std::vector<jlong>& tags) {
  std::lock_guard<std::mutex> lock(mutex_);
  const size_t slot_index = slot_of(EngineKind::kAlloc);
  if (slot_index == kNoSlot) return;
  Slot& slot = *slots_[slot_index];
  for (jlong tag : tags) {
    auto it = slot.live.find(tag);
    if (it == slot.live.end()) {
      slot.freed_early.insert(tag);
      continue;
    }
    slot.profile->remove_sample(it->second.first, it->second.second);
    slot.live.erase(it);
    freed_++;
  }
}

void Recording::finish_trace(jthread thread, pid_t tid, bool truncated, int64_t weight, const std::string* leaf_class,
                             jlong tag, bool park, const SampleContext& context) {
  JVMKIT_DCHECK(trace_locked_);
  if (tracing_ == nullptr) {
    trace_locked_ = false;
    mutex_.unlock();
    return;
  }
  Slot& slot = *tracing_;
  slot.counts.delivered++;
  if (tag != 0 && slot.freed_early.erase(tag) != 0) {
    freed_++;  // live: its object is gone already
  } else if (trace_.empty()) {
    slot.counts.empty++;
  } else {
    if (leaf_class != nullptr)
      trace_.insert(trace_.begin(), Frame{class_frame(slot, *leaf_class), FrameType::kClass, 0});
    if (truncated || trace_cut_) {
      truncated_++;
      trace_.push_back(slot.profile->truncated_frame());
    }
    const SampleOwner owner = current_sample_owner(jni_of(vm_), thread, tid);
    if (options_.threads != ThreadGrouping::kNone) {
      Frame root;
      root.method = thread_root(slot, owner);
      root.type = FrameType::kThread;
      trace_.push_back(root);
    }
    // The request context's labels: the outermost frame, so that collapsed output can show them as
    // the root and the other writers find them at one place (FrameType::kLabels).
    if (context.label_set != 0) trace_.push_back(Frame{label_frame(slot, context.label_set), FrameType::kLabels, 0});
    const uint32_t node = slot.profile->add_sample(trace_, weight);
    if (tag != 0) slot.live[tag] = {node, weight};
    if (timed_) {
      // JFR names the thread that ran the code: a virtual thread, as the JDK's recordings do.
      const uint32_t index = timeline_.thread(owner.key(ThreadGrouping::kThread), [&] { return sample_thread(owner); });
      timeline_.add({JvmkitCurrentTraceTime(), weight, node, index, static_cast<uint16_t>(tracing_slot_), park,
                     context.trace_high, context.trace_low, context.span});
    }
  }
  tracing_ = nullptr;
  trace_locked_ = false;
  mutex_.unlock();
}

void Recording::trace_failed(size_t slot, pid_t tid, bool no_java_code) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (slot >= slots_.size()) return;
  if (no_java_code) {
    slots_[slot]->counts.no_java_code++;
  } else {
    slots_[slot]->counts.failed++;
  }
  const int64_t failures = ++(no_java_code ? no_java_code_by_tid_ : failures_by_tid_)[tid];
  if (slot == signal_slot_ && failures >= kFailuresWithoutJava && delivered_tids_.count(tid) == 0) {
    std::lock_guard<std::mutex> skip_lock(skip_mutex_);
    without_java_.insert(tid);
  }
}

void Recording::thread_started(pid_t tid) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& slot : slots_) slot->thread_roots.erase(tid);
  timeline_.thread_started(tid);
}

// The thread of the trace being finished, for the timeline: its Java name and id, or, for one of
// the JVM's own threads (cstack=native), its OS name.
SampleThread Recording::sample_thread(const SampleOwner& owner) {
  SampleThread out;
  out.tid = owner.tid;
  if (owner.virtual_id != 0) {
    out.tid = 0;  // a virtual thread has no OS thread of its own
    out.is_virtual = true;
    out.java_tid = owner.virtual_id;
    if (jthread named = owner.named_thread(ThreadGrouping::kThread)) out.name = java_thread_name(named);
  } else if (owner.thread != nullptr) {
    out.name = java_thread_name(owner.thread);
    out.java_tid = java_thread_id(owner.thread);
  } else if (trace_thread_.known) {
    out.name = trace_thread_.name;
  }
  return out;
}

// java.lang.Thread's tid field (its getId()/threadId(), which JFR reports): read as a field, as no
// Java code may run on the delivery thread inside a callback.
int64_t Recording::java_thread_id(jthread thread) {
  JNIEnv* jni = nullptr;
  if (vm_->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6) != JNI_OK || jni == nullptr) return 0;
  if (!thread_tid_looked_up_) {
    thread_tid_looked_up_ = true;
    if (jclass klass = jni->FindClass("java/lang/Thread"); klass != nullptr) {
      thread_tid_field_ = jni->GetFieldID(klass, "tid", "J");
      jni->DeleteLocalRef(klass);
    }
    if (jni->ExceptionCheck()) jni->ExceptionClear();
  }
  return thread_tid_field_ != nullptr ? jni->GetLongField(thread, thread_tid_field_) : 0;
}

bool Recording::runs_no_java(pid_t tid) const {
  std::lock_guard<std::mutex> lock(skip_mutex_);
  return without_java_.count(tid) != 0;
}

// The Java name of THREAD, as UTF-8 ("" when it has none).
std::string Recording::java_thread_name(jthread thread) {
  ThreadInfo info(jvmti_, jni_of(vm_), thread);
  return info.name() != nullptr ? utf8_from_modified(info.name()) : std::string();
}

// The synthetic root frame of the sample's thread ("threads" option, sample_owner.hpp), made once
// per thread and window (a method of the slot's current profile).
// A virtual thread the library could not name (sample_owner.hpp) takes its named root where one
// was made already, else a nameless one of its own, so that a nameless first sample does not
// leave the thread nameless.
uint32_t Recording::thread_root(Slot& slot, const SampleOwner& owner) {
  const int64_t key = owner.key(options_.threads);
  auto it = slot.thread_roots.find(key);
  if (it != slot.thread_roots.end()) return it->second;
  const jthread named = owner.named_thread(options_.threads);
  const bool nameless = named == nullptr && owner.virtual_id != 0 && options_.threads == ThreadGrouping::kThread;
  if (nameless) {
    if (auto known = slot.nameless_roots.find(key); known != slot.nameless_roots.end()) return known->second;
  }
  std::string name;
  if (named != nullptr) {
    name = java_thread_name(named);
  } else if (owner.virtual_id == 0 && trace_thread_.known) {
    name = trace_thread_.name;  // one of HotSpot's own threads (cstack=native): its OS name
  }
  const uint32_t id = slot.profile->add_method(thread_root_name(owner, options_.threads, name), "");
  (nameless ? slot.nameless_roots : slot.thread_roots)[key] = id;
  return id;
}

// The method of the class frame NAME in the slot's current profile, made once per name and window.
uint32_t Recording::class_frame(Slot& slot, const std::string& name) {
  auto it = slot.classes.find(name);
  if (it != slot.classes.end()) return it->second;
  const uint32_t id = slot.profile->add_method(name, "");
  // A refused name ([overflow]) is not cached: the table stays bounded by the profile's limits.
  if (!slot.profile->is_overflow_method(id)) slot.classes.emplace(name, id);
  return id;
}

// The label frame of LABEL_SET in the slot's current profile ("[endpoint=/a,tenant=x]", with the
// labels kept for the writers), made once per set and window.
uint32_t Recording::label_frame(Slot& slot, uint32_t label_set) {
  auto it = slot.label_frames.find(label_set);
  if (it != slot.label_frames.end()) return it->second;
  const uint32_t id = slot.profile->add_labels_method(process_label_sets().labels_of(label_set));
  if (!slot.profile->is_overflow_method(id)) slot.label_frames.emplace(label_set, id);
  return id;
}

Recording::Window Recording::take_window(int64_t now_wall_ns, int64_t now_mono_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  Window done;
  done.start_wall_ns = window_start_wall_ns_;
  done.start_mono_ns = window_start_mono_ns_;
  done.duration_ns = now_mono_ns - window_start_mono_ns_;
  done.samples = timeline_.take_samples();
  done.threads = timeline_.threads();
  timeline_dropped_before_ += timeline_.dropped();
  timeline_ = Timeline();
  windows_taken_++;
  for (auto& slot : slots_) {
    slot->samples_in_taken_windows += slot->profile->total_samples();
    slot->overflow_in_taken_windows += slot->profile->overflow_samples();
    done.profiles.push_back(std::exchange(slot->profile, new_profile()));
    // Method indices belong to a profile: the resolver and the synthetic frames start over with it.
    slot->resolver.reset(slot->profile.get());
    slot->native_methods.reset(slot->profile.get());
    slot->thread_roots.clear();
    slot->nameless_roots.clear();
    slot->classes.clear();
    slot->label_frames.clear();
    slot->live = {};
    slot->freed_early = {};
  }
  window_start_wall_ns_ = now_wall_ns;
  window_start_mono_ns_ = now_mono_ns;
  return done;
}

void Recording::with_current_window(const std::function<void(const std::vector<const Profile*>&, int64_t)>& f) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<const Profile*> profiles;
  for (const auto& slot : slots_) profiles.push_back(slot->profile.get());
  f(profiles, window_start_wall_ns_);
}

void Recording::take_chunk(const ChunkFunction& f) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<const Profile*> profiles;
  for (const auto& slot : slots_) profiles.push_back(slot->profile.get());
  f(profiles, timeline_.take_samples(), timeline_.threads());
}

int64_t Recording::timeline_dropped() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return timeline_dropped_before_ + timeline_.dropped();
}

void Recording::restart_clock(int64_t now_wall_ns, int64_t now_mono_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  window_start_wall_ns_ = now_wall_ns;
  window_start_mono_ns_ = now_mono_ns;
}

Recording::Figures Recording::figures() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Figures out;
  if (signal_slot_ != kNoSlot) out.counts = slots_[signal_slot_]->counts;
  out.failures_by_tid = failures_by_tid_;
  out.no_java_code_by_tid = no_java_code_by_tid_;
  for (const auto& slot : slots_) {
    out.by_event.push_back(slot->counts);
    out.samples_by_event.push_back(slot->samples_in_taken_windows + slot->profile->total_samples());
    out.current_window_samples += slot->profile->total_samples();
    out.samples_in_taken_windows += slot->samples_in_taken_windows;
    out.overflow += slot->overflow_in_taken_windows + slot->profile->overflow_samples();
  }
  out.samples = out.samples_in_taken_windows + out.current_window_samples;
  out.windows_taken = windows_taken_;
  out.biased = biased_;
  out.truncated = truncated_;
  out.freed = freed_;
  out.native = native_;
  return out;
}

namespace {
std::atomic<Recording*> g_current_recording{nullptr};
}  // namespace

Recording* current_recording() { return g_current_recording.load(std::memory_order_acquire); }
void set_current_recording(Recording* recording) { g_current_recording.store(recording, std::memory_order_release); }

}  // namespace jvmkit::prof
