// SIGNAL CONTEXT: take_kernel_chain and what it calls (see kernel_chains.hpp).
#include "profiler/engines/kernel_chains.hpp"

#include <errno.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <asm/perf_regs.h>
#include <atomic>
#include <fstream>
#include <mutex>

namespace jvmkit::prof {
namespace {

// A ring of 2 data pages (8 KiB) holds several samples of 128 kernel frames; the handler consumes
// one per signal, so only lost signals leave records behind.
constexpr size_t kDataPages = 2;
constexpr size_t kPage = 4096;  // x86_64's only base page size (attach checks it)
constexpr int kSlots = 2048;    // threads with a ring at once; a power of two

struct Slot {
  std::atomic<pid_t> tid{0};  // 0: never used; kTombstone: freed (probes go past it)
  std::atomic<uint8_t*> base{nullptr};
  int fd = -1;  // guarded by g_attach_mutex
};
constexpr pid_t kTombstone = -1;

struct Chains {
  Slot slots[kSlots];
  std::atomic<int> readers{0};  // handlers between their lookup and their last read of a ring
  std::atomic<int64_t> unmatched{0};
  std::atomic<int64_t> threads_without_ring{0};
};
constinit Chains g_chains;
std::mutex g_attach_mutex;

constexpr size_t kRingBytes = (1 + kDataPages) * kPage;

JVMKIT_SIGNAL_SAFE size_t slot_of(pid_t tid) noexcept { return static_cast<size_t>(tid) * 0x9E3779B1u % kSlots; }

// One ring as the handler reads it: the kernel's control page, then the data pages.
struct RingView {
  perf_event_mmap_page* meta;
  const uint8_t* data;
  uint64_t mask;  // data size - 1

  // The u64 at byte POS of the record stream (records and their fields are 8-byte aligned, so a
  // word never wraps).
  JVMKIT_SIGNAL_SAFE uint64_t word(uint64_t pos) const noexcept {
    return *reinterpret_cast<const uint64_t*>(data + (pos & mask));  // 8-byte aligned: a mapped page
  }
};

// The sample at POS (a PERF_RECORD_SAMPLE of SIZE bytes: pid/tid, the call chain, the user ABI and
// registers SP and IP), checked against the thread and the interrupted context.
JVMKIT_SIGNAL_SAFE bool sample_matches(const RingView& ring, uint64_t pos, uint64_t size, pid_t tid,
                                       const ucontext_t* uc, uint64_t* chain_pos, uint64_t* chain_len) noexcept {
  const uint64_t ids = ring.word(pos + 8);
  const uint64_t nr = ring.word(pos + 16);
  if (nr > 1024 || (4 + nr) * 8 > size) return false;  // not a record of this layout
  if (static_cast<pid_t>(ids >> 32) != tid) return false;
  const uint64_t regs = pos + 24 + nr * 8;
  if (ring.word(regs) == PERF_SAMPLE_REGS_ABI_NONE || regs + 24 > pos + size) return false;
  // Registers in the order of their bits: SP (7), then IP (8).
  const uint64_t sp = ring.word(regs + 8);
  const uint64_t ip = ring.word(regs + 16);
  const auto uc_sp = static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RSP]);
  const auto uc_ip = static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RIP]);
  // A syscall restarted after the signal (SA_RESTART) shows the syscall instruction again, 2 bytes
  // before where the sample saw it return to.
  if (sp != uc_sp || (ip != uc_ip && ip != uc_ip + 2)) return false;
  *chain_pos = pos + 24;
  *chain_len = nr;
  return true;
}

// Copies the kernel PCs of the call chain at POS (NR entries; context markers such as
// PERF_CONTEXT_KERNEL left out).
JVMKIT_SIGNAL_SAFE int copy_chain(const RingView& ring, uint64_t pos, uint64_t nr, int64_t* pcs, int max) noexcept {
  int count = 0;
  for (uint64_t i = 0; i < nr && count < max; i++) {
    const uint64_t pc = ring.word(pos + i * 8);
    if (pc >= static_cast<uint64_t>(PERF_CONTEXT_MAX)) continue;
    pcs[count++] = static_cast<int64_t>(pc);
  }
  return count;
}

JVMKIT_SIGNAL_SAFE int read_ring(uint8_t* base, pid_t tid, const ucontext_t* uc, int64_t* pcs, int max) noexcept {
  RingView ring{reinterpret_cast<perf_event_mmap_page*>(base), base + kPage, kDataPages * kPage - 1};
  const uint64_t head = __atomic_load_n(&ring.meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = ring.meta->data_tail;
  int found = -1;
  while (tail < head && found < 0) {
    const uint64_t header = ring.word(tail);
    const uint32_t type = static_cast<uint32_t>(header);
    const uint64_t size = header >> 48;
    if (size < 8 || size % 8 != 0 || tail + size > head) {
      tail = head;  // a torn or foreign stream: start over with the next record
      break;
    }
    uint64_t chain_pos = 0;
    uint64_t chain_len = 0;
    if (type == PERF_RECORD_SAMPLE && sample_matches(ring, tail, size, tid, uc, &chain_pos, &chain_len)) {
      found = copy_chain(ring, chain_pos, chain_len, pcs, max);
    }
    tail += size;
  }
  __atomic_store_n(&ring.meta->data_tail, tail, __ATOMIC_RELEASE);
  return found;
}

}  // namespace

bool attach_kernel_ring(pid_t tid, int fd, int* err) {
  if (sysconf(_SC_PAGESIZE) != static_cast<long>(kPage)) {
    *err = EINVAL;
    return false;
  }
  void* base = mmap(nullptr, kRingBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    *err = errno;
    return false;
  }
  std::lock_guard<std::mutex> lock(g_attach_mutex);
  for (size_t i = 0, at = slot_of(tid); i < kSlots; i++, at = (at + 1) % kSlots) {
    Slot& slot = g_chains.slots[at];
    const pid_t seen = slot.tid.load(std::memory_order_relaxed);
    if (seen != 0 && seen != kTombstone) continue;
    slot.fd = fd;
    slot.base.store(static_cast<uint8_t*>(base), std::memory_order_relaxed);
    slot.tid.store(tid, std::memory_order_release);
    return true;
  }
  munmap(base, kRingBytes);
  *err = ENOSPC;
  return false;
}

void detach_kernel_ring(int fd) {
  std::lock_guard<std::mutex> lock(g_attach_mutex);
  for (Slot& slot : g_chains.slots) {
    if (slot.fd != fd) continue;
    uint8_t* base = slot.base.exchange(nullptr, std::memory_order_seq_cst);
    slot.tid.store(kTombstone, std::memory_order_relaxed);
    slot.fd = -1;
    // A handler that counted itself in before the exchange may still read the ring.
    while (g_chains.readers.load(std::memory_order_seq_cst) != 0) {
      timespec pause{0, 50'000};
      nanosleep(&pause, nullptr);
    }
    if (base != nullptr) munmap(base, kRingBytes);
    return;
  }
}

int take_kernel_chain(pid_t tid, const void* ucontext, int64_t* pcs, int max) noexcept {
  g_chains.readers.fetch_add(1, std::memory_order_seq_cst);
  int found = -1;
  bool attached = false;
  for (size_t i = 0, at = slot_of(tid); i < kSlots; i++, at = (at + 1) % kSlots) {
    Slot& slot = g_chains.slots[at];
    const pid_t seen = slot.tid.load(std::memory_order_acquire);
    if (seen == 0) break;
    if (seen != tid) continue;
    uint8_t* base = slot.base.load(std::memory_order_seq_cst);
    if (base == nullptr) break;
    attached = true;
    found = read_ring(base, tid, static_cast<const ucontext_t*>(ucontext), pcs, max);
    break;
  }
  g_chains.readers.fetch_sub(1, std::memory_order_seq_cst);
  if (!attached) return 0;
  if (found < 0) {
    g_chains.unmatched.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  return found;
}

std::string kernel_symbols_refusal() {
  std::ifstream in("/proc/kallsyms");
  std::string first;
  if (!in || !std::getline(in, first)) return "/proc/kallsyms cannot be read";
  if (first.find_first_not_of('0') != first.find(' ')) return "";
  std::ifstream restrict_file("/proc/sys/kernel/kptr_restrict");
  std::string level = "unknown";
  std::getline(restrict_file, level);
  return "/proc/kallsyms hides the kernel's addresses (kptr_restrict is " + level + ")";
}

void count_thread_without_ring() { g_chains.threads_without_ring.fetch_add(1, std::memory_order_relaxed); }

KernelChainCounts read_kernel_chain_counts() {
  KernelChainCounts out;
  out.unmatched = g_chains.unmatched.load();
  out.threads_without_ring = g_chains.threads_without_ring.load();
  return out;
}

}  // namespace jvmkit::prof
