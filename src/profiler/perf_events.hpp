// Per-thread perf events that deliver a signal to their thread on every counter overflow.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace jvmkit::prof {

// Opens a perf event of (TYPE, CONFIG) counting for thread TID only, which overflows every PERIOD
// (ns for clock events, else events) and then sends SIGNAL to TID itself (F_SETOWN_EX with
// F_OWNER_TID, F_SETSIG). Returns the fd, enabled; or -1 with *ERRNO_OUT set.
int open_thread_perf_event(uint32_t type, uint64_t config, uint64_t period, pid_t tid, int signal, int* errno_out);

// A message for a perf_event_open failure of the event called NAME (mentions the missing PMU for
// hardware events, perf_event_paranoid for permission errors).
const char* perf_error_hint(uint32_t type, int err);

}  // namespace jvmkit::prof
