// Per-thread perf events that deliver a signal to their thread on every counter overflow.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace jvmkit::prof {

// Opens a perf event of (TYPE, CONFIG) counting for thread TID only, which overflows every PERIOD
// (ns for clock events, else events) and then sends SIGNAL to TID itself (F_SETOWN_EX with
// F_OWNER_TID, F_SETSIG). Returns the fd, enabled; or -1 with *ERRNO_OUT set.
// KERNEL_CHAIN: each overflow also writes a sample with its kernel call chain into a ring buffer
// that the signal handler reads (kernel_chains.hpp); the ring is mapped and attached for TID, and
// close_thread_perf_event detaches it.
int open_thread_perf_event(uint32_t type, uint64_t config, uint64_t period, pid_t tid, int signal, int* errno_out,
                           bool kernel_chain = false);
// Closes FD of open_thread_perf_event (detaching its ring first, if it has one).
void close_thread_perf_event(int fd);

// Whether this process may take kernel call chains from perf events of (TYPE, CONFIG): an empty
// string, or why not ("perf_event_paranoid is 2: ...").
std::string kernel_chains_refusal(uint32_t type, uint64_t config, uint64_t period, int signal);

// A message for a perf_event_open failure of the event called NAME (mentions the missing PMU for
// hardware events, perf_event_paranoid for permission errors).
const char* perf_error_hint(uint32_t type, int err);

}  // namespace jvmkit::prof
