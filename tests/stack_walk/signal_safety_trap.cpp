// LD_PRELOAD trap: interposes the allocator and pthread_mutex_lock and aborts, with a
// message, when one of them is called on a thread that is inside the stack walker's capture path.
// The capture path of the test build (jvmkit_walk_testhooks) announces itself through
// jvmkit_walk_capture_hook(), defined here.
//
// The flag is an initial-exec thread-local: reading it allocates nothing (the library is preloaded,
// so its TLS is static). The real functions are glibc's __libc_* entry points, so the trap itself
// needs no dlsym in the allocation path.
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>

extern "C" {
void* __libc_malloc(size_t);
void __libc_free(void*);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
}

namespace {

__attribute__((tls_model("initial-exec"))) thread_local int in_capture = 0;
// How many captures ran under the trap: a test whose capture path never reached the hook would
// prove nothing.
long captures_checked = 0;

using MutexLock = int (*)(pthread_mutex_t*);
MutexLock real_mutex_lock = nullptr;

[[noreturn]] void trap(const char* what) {
  static const char prefix[] = "SIGNAL-SAFETY TRAP: ";
  static const char suffix[] = " called inside the stack walker's capture path\n";
  (void)!write(2, prefix, sizeof(prefix) - 1);
  (void)!write(2, what, std::strlen(what));
  (void)!write(2, suffix, sizeof(suffix) - 1);
  abort();
}

__attribute__((constructor)) void resolve_real_functions() {
  real_mutex_lock = reinterpret_cast<MutexLock>(dlsym(RTLD_NEXT, "pthread_mutex_lock"));
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) void jvmkit_walk_capture_hook(int entering) {
  in_capture = entering;
  if (entering) __atomic_fetch_add(&captures_checked, 1, __ATOMIC_RELAXED);
}

__attribute__((visibility("default"))) long jvmkit_walk_trap_captures() {
  return __atomic_load_n(&captures_checked, __ATOMIC_RELAXED);
}

__attribute__((visibility("default"))) void* malloc(size_t size) {
  if (in_capture) trap("malloc");
  return __libc_malloc(size);
}
__attribute__((visibility("default"))) void free(void* p) {
  if (in_capture) trap("free");
  __libc_free(p);
}
__attribute__((visibility("default"))) void* calloc(size_t n, size_t size) {
  if (in_capture) trap("calloc");
  return __libc_calloc(n, size);
}
__attribute__((visibility("default"))) void* realloc(void* p, size_t size) {
  if (in_capture) trap("realloc");
  return __libc_realloc(p, size);
}
__attribute__((visibility("default"))) int posix_memalign(void** out, size_t alignment, size_t size) {
  if (in_capture) trap("posix_memalign");
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr) return 12;  // ENOMEM
  *out = p;
  return 0;
}
__attribute__((visibility("default"))) int pthread_mutex_lock(pthread_mutex_t* m) {
  if (in_capture) trap("pthread_mutex_lock");
  if (real_mutex_lock == nullptr) resolve_real_functions();
  return real_mutex_lock(m);
}

}  // extern "C"
