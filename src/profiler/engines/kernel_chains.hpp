// Kernel call chains for the sampling signal handler: per-thread perf ring buffers in which the
// kernel writes every sample of a perf event opened with open_thread_perf_event(kernel_chain), and
// the handler's lookup of the sample that raised its signal.
//
// Each overflow of such an event writes a PERF_RECORD_SAMPLE (the thread id, the kernel part of the
// call chain, the user registers IP and SP) into the thread's ring, then queues the signal. The
// handler takes the oldest record whose user IP and SP are those of its own interrupted context
// (a syscall's, or the code a page fault or interrupt stopped): the record of this signal; records
// before it, of signals that were lost (counted where the signal is: SIGIO) or of samples taken
// inside the handler itself (not the program's), are passed over. A sample taken in user code has an empty kernel
// chain.
//
// SIGNAL CONTEXT (take_kernel_chain only): reads a fixed table of rings (tid -> ring) and the ring;
// no allocation, no lock. Rings are unmapped only after the handlers reading any ring have left
// (detach_kernel_ring waits for them).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "base/signal_safe.hpp"

namespace jvmkit::prof {

// Maps the ring buffer of FD (a perf event of thread TID opened with a kernel chain) and publishes
// it for TID's signals. False with *ERR (errno) when it cannot be mapped or the table is full; FD is
// left to the caller either way.
bool attach_kernel_ring(pid_t tid, int fd, int* err);
// Unpublishes the ring of FD (if attached), waits until no handler reads a ring, and unmaps it.
void detach_kernel_ring(int fd);

// In the handler of a signal raised by TID's perf event: copies the kernel frames of the sample
// that raised it (leaf first, at most MAX) into PCS and returns their count; 0 when the sample was
// taken in user code, or when no record matches UCONTEXT (counted). Never blocks.
JVMKIT_SIGNAL_SAFE int take_kernel_chain(pid_t tid, const void* ucontext, int64_t* pcs, int max) noexcept;

struct KernelChainCounts {
  int64_t unmatched = 0;             // signals of an attached thread without a record of their own
  int64_t threads_without_ring = 0;  // threads sampled without kernel frames: no ring could be mapped
};
void count_thread_without_ring();
KernelChainCounts read_kernel_chain_counts();

// Why kernel frames cannot be named ("/proc/kallsyms hides the kernel's addresses (kptr_restrict
// is 1)"), or an empty string when /proc/kallsyms lists them.
std::string kernel_symbols_refusal();

}  // namespace jvmkit::prof
