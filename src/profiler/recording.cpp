#include "profiler/recording.hpp"

#include "base/debug_check.hpp"
#include "profiler/thread_info.hpp"
#include "profiler/utf8.hpp"

namespace jvmkit::prof {

Recording::Recording(JavaVM* vm, jvmtiEnv* jvmti, const Options& options, int64_t start_wall_ns, int64_t start_mono_ns)
    : vm_(vm),
      jvmti_(jvmti),
      options_(options),
      profile_(new_profile()),
      resolver_(vm, jvmti, profile_.get()),
      window_start_wall_ns_(start_wall_ns),
      window_start_mono_ns_(start_mono_ns) {
  trace_.reserve(static_cast<size_t>(options_.depth) + 2);
}

std::unique_ptr<Profile> Recording::new_profile() const {
  ProfileLimits limits;
  limits.max_nodes = static_cast<size_t>(options_.max_stacks);
  return std::make_unique<Profile>(limits);
}

void Recording::begin_trace(jboolean biased) {
  mutex_.lock();  // released in end_trace
  JVMKIT_DCHECK(!trace_locked_);
  trace_locked_ = true;
  trace_.clear();
  trace_cut_ = false;
  if (biased) biased_++;
}

bool Recording::add_frame(jvmtiFrameType type, jmethodID method, jlocation location) {
  JVMKIT_DCHECK(trace_locked_);  // between begin_trace and end_trace
  if (trace_.size() >= static_cast<size_t>(options_.depth)) {
    trace_cut_ = true;
    return false;
  }
  Frame f;
  resolver_.resolve(method, location, &f.method, &f.line);
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

void Recording::end_trace(jthread thread, pid_t tid, bool truncated) {
  JVMKIT_DCHECK(trace_locked_);
  counts_.delivered++;
  if (options_.event->engine == EngineKind::kWall) delivered_tids_.insert(tid);
  if (trace_.empty()) {
    counts_.empty++;
  } else {
    if (truncated || trace_cut_) {
      truncated_++;
      trace_.push_back(profile_->truncated_frame());
    }
    if (options_.threads) {
      Frame root;
      root.method = thread_root(thread, tid);
      root.type = FrameType::kThread;
      trace_.push_back(root);
    }
    profile_->add_sample(trace_);
  }
  trace_locked_ = false;
  mutex_.unlock();
}

void Recording::trace_failed(pid_t tid) {
  std::lock_guard<std::mutex> lock(mutex_);
  counts_.failed++;
  const int64_t failures = ++failures_by_tid_[tid];
  if (failures >= kFailuresWithoutJava && delivered_tids_.count(tid) == 0) {
    std::lock_guard<std::mutex> skip_lock(skip_mutex_);
    without_java_.insert(tid);
  }
}

void Recording::thread_started(pid_t tid) {
  std::lock_guard<std::mutex> lock(mutex_);
  thread_roots_.erase(tid);
}

bool Recording::runs_no_java(pid_t tid) const {
  std::lock_guard<std::mutex> lock(skip_mutex_);
  return without_java_.count(tid) != 0;
}

// The synthetic root frame of thread TID ("threads" option): "[name tid=N]", made once per tid
// and window (a method of the current profile).
uint32_t Recording::thread_root(jthread thread, pid_t tid) {
  auto it = thread_roots_.find(tid);
  if (it != thread_roots_.end()) return it->second;
  std::string name = "?";
  if (thread != nullptr) {
    JNIEnv* jni = nullptr;
    if (vm_->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6) != JNI_OK) jni = nullptr;
    ThreadInfo info(jvmti_, jni, thread);
    if (info.name() != nullptr) name = utf8_from_modified(info.name());
  }
  const uint32_t id = profile_->add_method("[" + name + " tid=" + std::to_string(tid) + "]", "");
  thread_roots_[tid] = id;
  return id;
}

Recording::Window Recording::take_window(int64_t now_wall_ns, int64_t now_mono_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  Window done;
  done.start_wall_ns = window_start_wall_ns_;
  done.duration_ns = now_mono_ns - window_start_mono_ns_;
  samples_in_taken_windows_ += profile_->total_samples();
  overflow_in_taken_windows_ += profile_->overflow_samples();
  windows_taken_++;
  done.profile = std::exchange(profile_, new_profile());
  // Method indices belong to a profile: the resolver and the thread roots start over with it.
  resolver_.reset(profile_.get());
  thread_roots_.clear();
  window_start_wall_ns_ = now_wall_ns;
  window_start_mono_ns_ = now_mono_ns;
  return done;
}

void Recording::with_current_window(const std::function<void(const Profile&, int64_t)>& f) {
  std::lock_guard<std::mutex> lock(mutex_);
  f(*profile_, window_start_wall_ns_);
}

void Recording::restart_clock(int64_t now_wall_ns, int64_t now_mono_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  window_start_wall_ns_ = now_wall_ns;
  window_start_mono_ns_ = now_mono_ns;
}

Recording::Figures Recording::figures() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Figures out;
  out.counts = counts_;
  out.failures_by_tid = failures_by_tid_;
  out.current_window_samples = profile_->total_samples();
  out.samples = samples_in_taken_windows_ + out.current_window_samples;
  out.samples_in_taken_windows = samples_in_taken_windows_;
  out.windows_taken = windows_taken_;
  out.biased = biased_;
  out.truncated = truncated_;
  out.overflow = overflow_in_taken_windows_ + profile_->overflow_samples();
  return out;
}

}  // namespace jvmkit::prof
