// The kinds of threads a JVM runs, for the report's CPU by thread kind (cstack=native, where
// HotSpot's own threads get traces too): Java threads, the JIT compiler threads, the garbage
// collector's threads, and the JVM's other threads (the VM thread, its periodic task...).
//
// A thread is told by what the stack-walk library says of it at delivery (JvmkitCurrentTraceThread:
// whether it has a java.lang.Thread, and its OS name, which the kernel keeps to 15 bytes: "C2
// CompilerThre" for "C2 CompilerThread0").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace jvmkit::prof {

enum class ThreadKind : uint8_t { kJava = 0, kCompiler = 1, kGc = 2, kOtherVm = 3 };
constexpr size_t kThreadKinds = 4;

// JAVA_THREAD: the thread has a java.lang.Thread; NAME: its OS name.
//  - compiler threads by name ("C1 CompilerThre", "C2 CompilerThre", "JVMCI CompilerT"), whether
//    or not HotSpot gave them a java.lang.Thread (it does, hidden from JVMTI);
//  - Java threads: the others with a java.lang.Thread (also HotSpot's hidden service threads);
//  - GC threads: without one, named as HotSpot's collectors name theirs ("GC Thread#0", "G1 Conc#0",
//    "G1 Refine#0", ZGC's "ZWorker#0", "ZDirector", Shenandoah's, "ConcGC Thread#0"...);
//  - other VM threads: the rest ("VM Thread", "VM Periodic Tas").
ThreadKind thread_kind(bool java_thread, std::string_view name);

// "Java threads", "compiler threads", "GC threads", "other VM threads".
const char* thread_kind_name(ThreadKind kind);

}  // namespace jvmkit::prof
