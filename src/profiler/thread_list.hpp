// The OS threads of this process right now (/proc/self/task): the threads that were alive before
// the profiler started, which JVMTI ThreadStart never reports (main, VM threads).
#pragma once

#include <sys/types.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace jvmkit::prof {

std::vector<pid_t> list_process_threads();

// The OS name of thread TID of this process (/proc/self/task/TID/comm, at most 15 characters;
// HotSpot sets it to the Java thread's name), or "" when the thread is gone.
std::string thread_os_name(pid_t tid);

// The threads of NOW (a listing) that are new since *LISTED (the last one), for engines that look
// for threads HotSpot started without a ThreadStart: those HotSpot is still starting (still called
// "java") are left for the next listing; the profiler's and the stack walker's own ("jvmkit ...")
// and those SKIP names are listed but not returned. *LISTED becomes this listing's threads.
std::vector<pid_t> threads_started(const std::vector<pid_t>& now, std::set<pid_t>* listed,
                                   const std::function<bool(pid_t)>& skip);

}  // namespace jvmkit::prof
