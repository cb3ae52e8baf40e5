#include "profiler/recording/thread_kinds.hpp"

namespace jvmkit::prof {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool is_compiler_thread(std::string_view name) {
  // HotSpot names them "C1 CompilerThread0", "C2 CompilerThread1", "JVMCI CompilerThread0";
  // the kernel keeps 15 bytes of it.
  return starts_with(name, "C1 CompilerThre") || starts_with(name, "C2 CompilerThre") ||
         starts_with(name, "JVMCI CompilerT") || starts_with(name, "JVMCI-native Co");
}

bool is_gc_thread(std::string_view name) {
  // Worker gangs: G1, Parallel ("GC Thread#N"), concurrent markers of older JDKs ("ConcGC Thread")
  // and Parallel's old name ("Parallel GC Thr"); G1's own threads all start with "G1 ".
  for (std::string_view prefix : {"GC Thread", "G1 ", "ConcGC", "Parallel GC", "Shenandoah", "Epsilon"}) {
    if (starts_with(name, prefix)) return true;
  }
  // ZGC's: "ZWorker#0", "ZWorkerYoung#0", "ZDirector", "ZDriver", "ZStat", "ZUncommitter"...: "Z"
  // and a capital letter (only for threads without a java.lang.Thread, where no program names one).
  return name.size() >= 2 && name[0] == 'Z' && name[1] >= 'A' && name[1] <= 'Z';
}

}  // namespace

ThreadKind thread_kind(bool java_thread, std::string_view name) {
  if (is_compiler_thread(name)) return ThreadKind::kCompiler;
  if (java_thread) return ThreadKind::kJava;
  if (is_gc_thread(name)) return ThreadKind::kGc;
  return ThreadKind::kOtherVm;
}

const char* thread_kind_name(ThreadKind kind) {
  switch (kind) {
    case ThreadKind::kJava:
      return "Java threads";
    case ThreadKind::kCompiler:
      return "compiler threads";
    case ThreadKind::kGc:
      return "GC threads";
    case ThreadKind::kOtherVm:
      return "other VM threads";
  }
  return "?";
}

}  // namespace jvmkit::prof
