// JVM benchmark agent: samples the "worker-*" threads of jvmkit.test.walk.Workers with SIGRTMIN+3
// at a fixed rate and measures, in the handler, the time RequestStackTrace takes (the capture:
// gate, slot, AsyncGetCallTrace, publish, wake-up). At VMDeath it prints the capture-time
// percentiles, the mean stack depth, and the CPU time of jvmkit's delivery thread per delivered
// trace (with trivial callbacks).
// Options: rate=<Hz total> (default 2000); compare (also time bare AsyncGetCallTrace on the same
// signal, i.e. the same stack, alternating which of the two runs first).
#include <dirent.h>
#include <dlfcn.h>
#include <jni.h>
#include <jvmti.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include <jvmkit/stack_walk.h>

namespace {

jvmtiEnv* g_jvmti = nullptr;
constexpr int kMaxThreads = 64;
std::atomic<pid_t> g_tids[kMaxThreads];
std::atomic<int> g_thread_count{0};
std::atomic<bool> g_running{false};
pthread_t g_sampler;
long g_rate = 2000;

// Capture times in 100 ns buckets up to 1 ms, then one overflow bucket: wall time (includes being
// descheduled on a busy machine) and the thread's CPU time.
constexpr int kBuckets = 10001;
std::atomic<int64_t> g_hist[kBuckets];
std::atomic<int64_t> g_cpu_hist[kBuckets];
std::atomic<int64_t> g_frames{0};
// compare: bare AsyncGetCallTrace into a per-thread buffer, timed like the capture.
bool g_compare = false;
JavaVM* g_vm = nullptr;
struct AsgctFrame {
  jint lineno;
  jmethodID method_id;
};
struct AsgctTrace {
  JNIEnv* env;
  jint num_frames;
  AsgctFrame* frames;
};
using Asgct = void (*)(AsgctTrace*, jint, void*);
Asgct g_asgct = nullptr;
AsgctFrame g_bare_frames[kMaxThreads][1024];
std::atomic<int64_t> g_bare_hist[kBuckets];
std::atomic<int64_t> g_bare_cpu_hist[kBuckets];
std::atomic<int64_t> g_bare_frames_total{0}, g_bare_ok{0};
std::atomic<int64_t> g_order{0};

int64_t now_ns(clockid_t clock = CLOCK_MONOTONIC) {
  timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

void JNICALL on_begin(jthread, jboolean, void*) {}
void JNICALL on_end(jthread, void*) {}
jint JNICALL on_frame(jvmtiFrameType, jmethodID, jlocation, void*) {
  g_frames.fetch_add(1, std::memory_order_relaxed);
  return JVMKIT_FRAME_CONTINUE;
}
void JNICALL on_failure(jthread, void*) {}

void record(std::atomic<int64_t>* hist, std::atomic<int64_t>* cpu_hist, int64_t wall_ns, int64_t cpu_ns) {
  hist[std::min<int64_t>(wall_ns / 100, kBuckets - 1)].fetch_add(1, std::memory_order_relaxed);
  cpu_hist[std::min<int64_t>(cpu_ns / 100, kBuckets - 1)].fetch_add(1, std::memory_order_relaxed);
}

void timed_capture(void* uc) {
  jvmtiStackTraceCallbacks cb = {on_begin, on_end, on_frame, on_failure};
  int64_t cpu_start = now_ns(CLOCK_THREAD_CPUTIME_ID);
  int64_t start = now_ns();
  RequestStackTrace(g_jvmti, nullptr, uc, cb, nullptr);
  int64_t wall = now_ns() - start;
  record(g_hist, g_cpu_hist, wall, now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu_start);
}

void timed_bare(void* uc, int slot) {
  JNIEnv* jni = nullptr;
  g_vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6);
  AsgctTrace trace{jni, 0, g_bare_frames[slot]};
  int64_t cpu_start = now_ns(CLOCK_THREAD_CPUTIME_ID);
  int64_t start = now_ns();
  g_asgct(&trace, 1024, uc);
  int64_t wall = now_ns() - start;
  record(g_bare_hist, g_bare_cpu_hist, wall, now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu_start);
  if (trace.num_frames > 0) {
    g_bare_ok.fetch_add(1, std::memory_order_relaxed);
    g_bare_frames_total.fetch_add(trace.num_frames, std::memory_order_relaxed);
  }
}

void handler(int, siginfo_t*, void* uc) {
  int saved = errno;
  int slot = -1;
  if (g_compare && g_asgct != nullptr) {
    pid_t self = static_cast<pid_t>(syscall(SYS_gettid));
    for (int i = 0; i < kMaxThreads; i++) {
      if (g_tids[i].load(std::memory_order_relaxed) == self) slot = i;
    }
  }
  if (slot < 0) {
    timed_capture(uc);
  } else if (g_order.fetch_add(1, std::memory_order_relaxed) & 1) {
    timed_capture(uc);
    timed_bare(uc, slot);
  } else {
    timed_bare(uc, slot);
    timed_capture(uc);
  }
  errno = saved;
}

void* sampler(void*) {
  const int64_t interval = 1'000'000'000 / g_rate;
  timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  int cursor = 0;
  while (g_running.load()) {
    next.tv_nsec += interval;
    while (next.tv_nsec >= 1'000'000'000) {
      next.tv_nsec -= 1'000'000'000;
      next.tv_sec++;
    }
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr);
    int n = std::min(g_thread_count.load(), kMaxThreads);
    if (n == 0) continue;
    pid_t tid = g_tids[cursor++ % n].load();
    if (tid != 0) syscall(SYS_tgkill, getpid(), tid, SIGRTMIN + 3);
  }
  return nullptr;
}

void JNICALL on_thread_start(jvmtiEnv* jvmti, JNIEnv*, jthread thread) {
  jvmtiThreadInfo info;
  std::memset(&info, 0, sizeof(info));
  if (jvmti->GetThreadInfo(thread, &info) != JVMTI_ERROR_NONE || info.name == nullptr) return;
  if (std::strncmp(info.name, "worker-", 7) == 0) {
    int i = g_thread_count.fetch_add(1);
    if (i < kMaxThreads) g_tids[i].store(static_cast<pid_t>(syscall(SYS_gettid)));
  }
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(info.name));
}

void JNICALL on_thread_end(jvmtiEnv*, JNIEnv*, jthread) {
  pid_t self = static_cast<pid_t>(syscall(SYS_gettid));
  for (auto& t : g_tids) {
    pid_t expected = self;
    t.compare_exchange_strong(expected, 0);
  }
}

void JNICALL on_vm_init(jvmtiEnv*, JNIEnv*, jthread) {
  g_running.store(true);
  pthread_create(&g_sampler, nullptr, sampler, nullptr);
}

// CPU time (ms) of the thread whose comm starts with "jvmkit stack" (comm is cut at 15 chars).
double delivery_thread_cpu_ms() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  double ms = -1;
  long ticks = sysconf(_SC_CLK_TCK);
  while (dirent* e = readdir(dir)) {
    std::string base = std::string("/proc/self/task/") + e->d_name;
    std::ifstream comm(base + "/comm");
    std::string name;
    std::getline(comm, name);
    if (name.rfind("jvmkit stack", 0) != 0) continue;
    std::ifstream stat(base + "/stat");
    std::string line;
    std::getline(stat, line);
    size_t close = line.rfind(')');
    char state;
    long skip, utime, stime;
    std::sscanf(line.c_str() + close + 2, "%c %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld", &state, &skip, &skip,
                &skip, &skip, &skip, &skip, &skip, &skip, &skip, &skip, &utime, &stime);
    ms = 1000.0 * (utime + stime) / ticks;
  }
  closedir(dir);
  return ms;
}

double percentile_us(const std::atomic<int64_t>* hist, double p, int64_t total) {
  int64_t target = static_cast<int64_t>(p * total);
  int64_t seen = 0;
  for (int i = 0; i < kBuckets; i++) {
    seen += hist[i].load();
    if (seen > target) return (i + 1) / 10.0;  // bucket upper bound, microseconds
  }
  return kBuckets / 10.0;
}

void JNICALL on_vm_death(jvmtiEnv* jvmti, JNIEnv*) {
  g_running.store(false);
  pthread_join(g_sampler, nullptr);
  double cpu_ms = delivery_thread_cpu_ms();
  DisableRequestStackTrace(jvmti);
  jvmkitStackWalkCounters c;
  JvmkitGetStackWalkCounters(&c);
  int64_t total = 0;
  for (auto& b : g_hist) total += b.load();
  std::printf(
      "capture (RequestStackTrace in the handler), wall: n=%lld p50=%.1f us p90=%.1f us p99=%.1f us p99.9=%.1f us\n"
      "capture, thread CPU time (incl. ~0.3 us clock read): p50=%.1f us p90=%.1f us p99=%.1f us p99.9=%.1f us\n"
      "accepted %lld delivered %lld failed %lld rejected %lld; mean depth %.1f frames\n"
      "delivery thread CPU: %.0f ms, %.1f us per delivered trace\n",
      (long long)total, percentile_us(g_hist, 0.5, total), percentile_us(g_hist, 0.9, total),
      percentile_us(g_hist, 0.99, total), percentile_us(g_hist, 0.999, total), percentile_us(g_cpu_hist, 0.5, total),
      percentile_us(g_cpu_hist, 0.9, total), percentile_us(g_cpu_hist, 0.99, total),
      percentile_us(g_cpu_hist, 0.999, total), (long long)c.accepted, (long long)c.delivered, (long long)c.failed,
      (long long)c.rejected, c.delivered ? double(g_frames.load()) / c.delivered : 0.0, cpu_ms,
      c.delivered ? 1000.0 * cpu_ms / c.delivered : 0.0);
  if (g_compare) {
    int64_t bare_total = 0;
    for (auto& b : g_bare_hist) bare_total += b.load();
    std::printf(
        "bare AsyncGetCallTrace, same signals: n=%lld ok=%lld mean depth %.1f\n"
        "  wall p50=%.1f us p99=%.1f us; thread CPU p50=%.1f us p99=%.1f us\n"
        "ratio capture/bare (thread CPU): p50 %.2f, p99 %.2f\n",
        (long long)bare_total, (long long)g_bare_ok.load(),
        g_bare_ok.load() ? double(g_bare_frames_total.load()) / g_bare_ok.load() : 0.0,
        percentile_us(g_bare_hist, 0.5, bare_total), percentile_us(g_bare_hist, 0.99, bare_total),
        percentile_us(g_bare_cpu_hist, 0.5, bare_total), percentile_us(g_bare_cpu_hist, 0.99, bare_total),
        percentile_us(g_cpu_hist, 0.5, total) / percentile_us(g_bare_cpu_hist, 0.5, bare_total),
        percentile_us(g_cpu_hist, 0.99, total) / percentile_us(g_bare_cpu_hist, 0.99, bare_total));
  }
  std::fflush(stdout);
}

}  // namespace

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) {
  std::string opts = options ? options : "";
  size_t rate_at = opts.find("rate=");
  if (rate_at != std::string::npos) g_rate = std::max(1L, std::strtol(opts.c_str() + rate_at + 5, nullptr, 10));
  g_compare = opts.find("compare") != std::string::npos;
  g_vm = vm;
  g_asgct = reinterpret_cast<Asgct>(dlsym(RTLD_DEFAULT, "AsyncGetCallTrace"));
  if (vm->GetEnv(reinterpret_cast<void**>(&g_jvmti), JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  jvmtiEventCallbacks cb;
  std::memset(&cb, 0, sizeof(cb));
  cb.VMInit = on_vm_init;
  cb.VMDeath = on_vm_death;
  cb.ThreadStart = on_thread_start;
  cb.ThreadEnd = on_thread_end;
  g_jvmti->SetEventCallbacks(&cb, sizeof(cb));
  for (jvmtiEvent e : {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END}) {
    g_jvmti->SetEventNotificationMode(JVMTI_ENABLE, e, nullptr);
  }
  struct sigaction sa;
  std::memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGRTMIN + 3, &sa, nullptr);
  JvmkitSetJavaVM(vm);
  return EnableRequestStackTrace(g_jvmti) == JVMTI_ERROR_NONE ? JNI_OK : JNI_ERR;
}
