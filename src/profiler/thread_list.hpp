// The OS threads of this process right now (/proc/self/task): the threads that were alive before
// the profiler started, which JVMTI ThreadStart never reports (main, VM threads).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace jvmkit::prof {

std::vector<pid_t> list_process_threads();

// The OS name of thread TID of this process (/proc/self/task/TID/comm, at most 15 characters;
// HotSpot sets it to the Java thread's name), or "" when the thread is gone.
std::string thread_os_name(pid_t tid);

}  // namespace jvmkit::prof
