#include "concurrent/epoch_domain.hpp"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <pthread.h>

#include <mutex>

#include "base/debug_check.hpp"

namespace jvmkit {

namespace {

// The calling thread's slot. Written only by its owner. Trivially destructible, so that reaching
// it is a single TLS access (no per-access initialisation check); the slot is given back at thread
// exit by a pthread key destructor, registered when the thread first takes a slot, so that threads
// that come and go (JVM threads do) reuse slots instead of growing the registry.
struct ThreadSlot {
  EpochDomain::Slot* slot;
  unsigned depth;  // nested Guards; only the outermost one announces
};

// initial-exec: one instruction to reach it instead of a __tls_get_addr call per guard. It takes
// 16 bytes of the static TLS surplus glibc keeps for libraries loaded with dlopen.
thread_local ThreadSlot tls_slot __attribute__((tls_model("initial-exec"))) = {nullptr, 0};

void release_slot(void* p) {
  auto* s = static_cast<EpochDomain::Slot*>(p);
  JVMKIT_DCHECK(s->owned.load(std::memory_order_relaxed));  // the exiting thread's own slot
  s->announced.store(0, std::memory_order_release);
  s->owned.store(false, std::memory_order_release);
  tls_slot.slot = nullptr;
}

pthread_key_t exit_key() {
  static pthread_key_t key = [] {
    pthread_key_t k;
    pthread_key_create(&k, release_slot);
    return k;
  }();
  return key;
}

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

long membarrier(int cmd) { return syscall(__NR_membarrier, cmd, 0, 0); }

std::atomic<bool> membarrier_disabled{false};

}  // namespace

void EpochDomain::disable_membarrier_for_testing() { membarrier_disabled.store(true); }

EpochDomain::EpochDomain() {
  if (membarrier_disabled.load()) return;
  long supported = membarrier(MEMBARRIER_CMD_QUERY);
  asymmetric_ = supported > 0 && (supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0 &&
                membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}

EpochDomain& EpochDomain::instance() {
  // Never destroyed: threads may still read in their exit path after static destructors ran.
  static EpochDomain* domain = new EpochDomain();
  return *domain;
}

EpochDomain::Slot* EpochDomain::acquire_slot() {
  Slot* s = claim_slot();
  pthread_setspecific(exit_key(), s);  // gives the slot back when the thread exits
  return s;
}

EpochDomain::Slot* EpochDomain::claim_slot() {
  // Reuse a slot whose thread has exited; the CAS makes the claim exclusive.
  for (Slot* s = slots_.load(std::memory_order_acquire); s != nullptr; s = s->next) {
    bool expected = false;
    if (!s->owned.load(std::memory_order_relaxed) &&
        s->owned.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
      return s;
    }
  }
  std::lock_guard<std::mutex> lock(registry_mutex());
  Slot* s = new Slot();
  s->owned.store(true, std::memory_order_relaxed);
  s->next = slots_.load(std::memory_order_relaxed);
  slots_.store(s, std::memory_order_release);  // publishes next as well
  slot_count_.fetch_add(1, std::memory_order_relaxed);
  return s;
}

void EpochDomain::register_current_thread() {
  if (tls_slot.slot == nullptr) tls_slot.slot = instance().acquire_slot();
}

EpochDomain::Guard::Guard() : thread_(&tls_slot) {
  ThreadSlot& t = *static_cast<ThreadSlot*>(thread_);
  if (t.depth++ != 0) return;
  EpochDomain& d = instance();
  if (t.slot == nullptr) t.slot = d.acquire_slot();
  JVMKIT_DCHECK(t.slot->owned.load(std::memory_order_relaxed));
  uint64_t e = d.global_.load(std::memory_order_relaxed);
  if (d.asymmetric_) {
    // Release only orders earlier guards' reads before this store (for writers that see it);
    // the store-load ordering a reader needs is supplied by the writer's membarrier.
    t.slot->announced.store(e, std::memory_order_release);
    std::atomic_signal_fence(std::memory_order_seq_cst);
  } else {
    // A locked store: the announcement precedes every shared load of the guarded code (seq_cst
    // loads, plain moves on x86-64) in the single total order of seq_cst operations.
    t.slot->announced.store(e, std::memory_order_seq_cst);
  }
}

EpochDomain::Guard::~Guard() {
  ThreadSlot& t = *static_cast<ThreadSlot*>(thread_);
  JVMKIT_DCHECK(t.depth > 0 && t.slot != nullptr);  // pairs with a constructor on this thread
  if (--t.depth != 0) return;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  // Release: every read made under the guard happens before a writer that sees 0 reclaims.
  t.slot->announced.store(0, std::memory_order_release);
}

void EpochDomain::heavy_barrier() const {
  if (asymmetric_) membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
}

uint64_t EpochDomain::try_advance() {
  // Every unlink happened before this call. After the heavy barrier, each reader either has its
  // announcement visible to the scan below, or executed a full barrier before announcing and so
  // sees every unlink in its later loads: it cannot reach what was unlinked. Without membarrier,
  // the same follows from the seq_cst order of the unlink, the announcement and the scan.
  heavy_barrier();
  uint64_t e = global_.load(std::memory_order_seq_cst);
  JVMKIT_DCHECK(e >= 1);  // 0 in a slot means "not reading"
  for (Slot* s = slots_.load(std::memory_order_acquire); s != nullptr; s = s->next) {
    uint64_t a = s->announced.load(std::memory_order_seq_cst);
    if (a != 0 && a != e) return e;  // a reader still in an older epoch
  }
  if (global_.compare_exchange_strong(e, e + 1, std::memory_order_seq_cst)) return e + 1;
  return e;  // another writer advanced it: e now holds the newer value
}

size_t EpochDomain::slot_count() const { return slot_count_.load(std::memory_order_relaxed); }

}  // namespace jvmkit
