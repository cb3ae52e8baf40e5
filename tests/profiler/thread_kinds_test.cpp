// The kinds of threads of the report's CPU by thread kind, from the names HotSpot gives its
// threads (as the kernel keeps them: 15 bytes) and whether they have a java.lang.Thread.
#include "profiler/recording/thread_kinds.hpp"

#include <gtest/gtest.h>

namespace jvmkit::prof {
namespace {

TEST(ThreadKinds, CompilerThreadsByNameWithOrWithoutAJavaThread) {
  for (const char* name : {"C1 CompilerThre", "C2 CompilerThre", "JVMCI CompilerT"}) {
    EXPECT_EQ(thread_kind(true, name), ThreadKind::kCompiler) << name;
    EXPECT_EQ(thread_kind(false, name), ThreadKind::kCompiler) << name;
  }
}

TEST(ThreadKinds, GcThreadsOfEveryCollector) {
  // G1 and Parallel (JDK 17, 25), ZGC (single and generational), Shenandoah, older names.
  for (const char* name : {"GC Thread#0", "GC Thread#11", "G1 Main Marker", "G1 Conc#0", "G1 Refine#0", "G1 Service",
                           "G1 Primary Ref", "ZWorker#0", "ZWorkerYoung#0", "ZDirector", "ZDriverMajor", "ZStat",
                           "ZUncommitter", "ZUnmapper", "Shenandoah Cont", "ConcGC Thread#0", "Parallel GC Thr"}) {
    EXPECT_EQ(thread_kind(false, name), ThreadKind::kGc) << name;
  }
}

TEST(ThreadKinds, JavaThreadsAndTheOtherVmThreads) {
  for (const char* name :
       {"main", "java", "Finalizer", "Reference Handl", "Service Thread", "ZWorkerOfMine", "G1 fan"}) {
    EXPECT_EQ(thread_kind(true, name), ThreadKind::kJava) << name;
  }
  for (const char* name : {"VM Thread", "VM Periodic Tas", "Sweeper thread", "", "Zoo", "Zx"}) {
    EXPECT_EQ(thread_kind(false, name), ThreadKind::kOtherVm) << name;
  }
}

TEST(ThreadKinds, Names) {
  EXPECT_STREQ(thread_kind_name(ThreadKind::kJava), "Java threads");
  EXPECT_STREQ(thread_kind_name(ThreadKind::kCompiler), "compiler threads");
  EXPECT_STREQ(thread_kind_name(ThreadKind::kGc), "GC threads");
  EXPECT_STREQ(thread_kind_name(ThreadKind::kOtherVm), "other VM threads");
}

}  // namespace
}  // namespace jvmkit::prof
