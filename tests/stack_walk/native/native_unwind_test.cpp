// The signal-side native unwinder against libgcc's own unwinder, on known call chains: a thread
// spins in chain_c (chain_a -> chain_b -> chain_c, with and without frame pointers, and under
// libc's qsort) while another signals it; the handler unwinds from the ucontext with the tables,
// then runs _Unwind_Backtrace from inside the handler, which crosses the signal frame by libc's
// CFI. Past the signal frame, the two must give the same PCs, frame for frame, to the thread's
// first frame. Then every way a run ends without reaching it is provoked, and leaf functions in
// assembly without CFI (native/nocfi_leaf.S) are unwound only where a direct call proves the caller.
#include "stack_walk/signal/x64/native_unwind.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <unwind.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "native/loaded_objects.hpp"
#include "native/native_snapshot.hpp"
#include "stack_walk/native/native_delivery.hpp"

namespace jvmkit::walk {
namespace {

constexpr int kMaxFrames = 64;

struct Sample {
  uintptr_t ours[kMaxFrames];
  int our_count;
  NativeRunEnd end;
  uintptr_t end_pc;
  uintptr_t libgcc[kMaxFrames];
  int libgcc_count;
};

// What the handler reads: set before the target spins, cleared after.
struct Target {
  std::atomic<pid_t> tid{0};
  StackBounds bounds{};
  const native::NativeSnapshotCell* tables = nullptr;
  std::vector<Sample>* samples = nullptr;
  std::atomic<int> taken{0};
};
Target g_target;

struct LibgccWalk {
  uintptr_t* pcs;
  int count;
};

_Unwind_Reason_Code collect(_Unwind_Context* context, void* data) {
  auto* walk = static_cast<LibgccWalk*>(data);
  if (walk->count == kMaxFrames) return _URC_END_OF_STACK;
  int before = 0;
  walk->pcs[walk->count++] = _Unwind_GetIPInfo(context, &before);
  return _URC_NO_REASON;
}

void on_signal(int, siginfo_t*, void* ucontext) {
  if (static_cast<pid_t>(syscall(SYS_gettid)) != g_target.tid.load()) return;
  const int index = g_target.taken.load(std::memory_order_relaxed);
  if (index >= static_cast<int>(g_target.samples->size())) return;
  Sample& sample = (*g_target.samples)[index];
  {
    native::NativeSnapshotCell::Reader reader(*g_target.tables);
    const auto* uc = static_cast<const ucontext_t*>(ucontext);
    uint64_t gprs[native::kDwarfGprCount];
    native::dwarf_gprs_of(uc, gprs);
    const NativeUnwindContext context{reader.get(), nullptr, g_target.bounds};
    const NativeRun run = unwind_native(context, NativeStart{regs_of(uc), gprs, true}, sample.ours, kMaxFrames);
    sample.our_count = run.count;
    sample.end = run.end;
    sample.end_pc = run.end_pc;
  }
  LibgccWalk walk{sample.libgcc, 0};
  _Unwind_Backtrace(collect, &walk);
  // libgcc calls back once more below the first frame (whose return address is undefined), with
  // IP 0: not a frame.
  if (walk.count > 0 && sample.libgcc[walk.count - 1] == 0) walk.count--;
  sample.libgcc_count = walk.count;
  g_target.taken.store(index + 1, std::memory_order_release);
}

StackBounds current_stack() {
  pthread_attr_t attr;
  pthread_getattr_np(pthread_self(), &attr);
  void* address = nullptr;
  size_t size = 0;
  pthread_attr_getstack(&attr, &address, &size);
  pthread_attr_destroy(&attr);
  const auto lo = reinterpret_cast<uintptr_t>(address);
  return StackBounds{lo, lo + size};
}

using ChainFunction = int (*)(volatile int*);

class NativeUnwind : public ::testing::Test {
 protected:
  void SetUp() override {
    struct sigaction action {};
    action.sa_sigaction = on_signal;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    ASSERT_EQ(sigaction(SIGPROF, &action, &previous_), 0);
  }
  void TearDown() override { sigaction(SIGPROF, &previous_, nullptr); }

  static void* open(const char* path) {
    void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    EXPECT_NE(handle, nullptr) << dlerror();
    return handle;
  }

  // Runs FUNCTION on a new thread and signals it N times while it spins; the samples come back.
  std::vector<Sample> sample_while_spinning(const native::NativeSnapshotCell& tables, ChainFunction function, int n) {
    std::vector<Sample> samples(static_cast<size_t>(n));
    g_target.samples = &samples;
    g_target.tables = &tables;
    g_target.taken = 0;
    volatile int stop = 0;
    std::atomic<bool> ready{false};
    std::thread spinner([&] {
      g_target.bounds = current_stack();
      g_target.tid = static_cast<pid_t>(syscall(SYS_gettid));
      ready = true;
      function(&stop);
    });
    while (!ready) std::this_thread::yield();
    // Let the spinner get into chain_c: samples before that would catch it on the way in.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (int i = 0; i < n && std::chrono::steady_clock::now() < deadline; i++) {
      pthread_kill(spinner.native_handle(), SIGPROF);
      while (g_target.taken.load(std::memory_order_acquire) <= i && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
    }
    stop = 1;
    spinner.join();
    g_target.tid = 0;
    samples.resize(static_cast<size_t>(g_target.taken.load()));
    return samples;
  }

  struct sigaction previous_ {};
};

// Compares one sample; returns "" when the two unwinders agree past the signal frame.
std::string disagreement(const Sample& s) {
  if (s.our_count == 0) return "no frame";
  const uintptr_t top = s.ours[0] & ~kExactPcBit;
  int k = 0;
  while (k < s.libgcc_count && s.libgcc[k] != top) k++;
  if (k == s.libgcc_count) return "libgcc never reached the interrupted PC";
  if (s.end != NativeRunEnd::kOutermost) return "the run ended before the first frame: " + std::to_string(int(s.end));
  if (s.libgcc_count - k != s.our_count) {
    std::string text = "frames: ours " + std::to_string(s.our_count) + ", libgcc " + std::to_string(s.libgcc_count - k);
    for (int i = 0; i < s.our_count; i++) text += " " + std::to_string(s.ours[i] & ~kExactPcBit);
    text += " | libgcc";
    for (int i = k; i < s.libgcc_count; i++) text += " " + std::to_string(s.libgcc[i]);
    return text;
  }
  for (int i = 0; i < s.our_count; i++) {
    if ((s.ours[i] & ~kExactPcBit) != s.libgcc[k + i]) return "frame " + std::to_string(i) + " differs";
  }
  return "";
}

void expect_agreement(const std::vector<Sample>& samples, void* library, const char* label) {
  ASSERT_GE(samples.size(), 1000u) << label << ": too few samples arrived";
  const auto chain_c = reinterpret_cast<uintptr_t>(dlsym(library, "chain_c"));
  int in_chain_c = 0, differ = 0;
  std::string first;
  for (const Sample& s : samples) {
    const std::string why = disagreement(s);
    if (!why.empty()) {
      if (differ++ == 0) first = why;
      continue;
    }
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(s.ours[0] & ~kExactPcBit), &info) != 0 &&
        reinterpret_cast<uintptr_t>(info.dli_saddr) == chain_c) {
      in_chain_c++;
    }
  }
  std::printf("%s: %zu samples, %d in chain_c, %d disagree\n", label, samples.size(), in_chain_c, differ);
  EXPECT_EQ(differ, 0) << label << ": first disagreement: " << first;
  EXPECT_GE(in_chain_c, static_cast<int>(samples.size()) * 9 / 10) << label << ": the samples missed the spin";
}

TEST_F(NativeUnwind, AgreesWithLibgccWithFramePointers) {
  void* library = open(JVMKIT_TEST_CHAIN_FP);
  native::NativePreparer tables;
  tables.update(native::loaded_objects());
  const auto samples =
      sample_while_spinning(tables.cell(), reinterpret_cast<ChainFunction>(dlsym(library, "chain_a")), 5000);
  expect_agreement(samples, library, "frame pointers");
}

TEST_F(NativeUnwind, AgreesWithLibgccWhereRbpIsAGeneralRegister) {
  void* library = open(JVMKIT_TEST_CHAIN_NOFP);
  native::NativePreparer tables;
  tables.update(native::loaded_objects());
  const auto samples =
      sample_while_spinning(tables.cell(), reinterpret_cast<ChainFunction>(dlsym(library, "chain_a")), 5000);
  expect_agreement(samples, library, "no frame pointers");
}

TEST_F(NativeUnwind, AgreesWithLibgccThroughQsortsCallback) {
  void* library = open(JVMKIT_TEST_CHAIN_NOFP);
  native::NativePreparer tables;
  tables.update(native::loaded_objects());
  const auto samples =
      sample_while_spinning(tables.cell(), reinterpret_cast<ChainFunction>(dlsym(library, "chain_qsort")), 5000);
  expect_agreement(samples, library, "qsort");
}

TEST_F(NativeUnwind, AnObjectLoadedAfterThePreparationEndsTheRunAtItsFirstPc) {
  native::NativePreparer tables;
  tables.update(native::loaded_objects());       // before the library is loaded
  void* library = open(JVMKIT_TEST_CHAIN_LATE);  // loaded by no other test
  const auto samples =
      sample_while_spinning(tables.cell(), reinterpret_cast<ChainFunction>(dlsym(library, "chain_a")), 200);
  ASSERT_FALSE(samples.empty());
  const auto chain_c = reinterpret_cast<uintptr_t>(dlsym(library, "chain_c"));
  for (const Sample& s : samples) {
    EXPECT_EQ(s.end, NativeRunEnd::kUnknownCode);
    EXPECT_EQ(s.our_count, 0) << "no frame: nothing says what the unknown PC is, nothing is guessed below it";
    EXPECT_GE(s.end_pc, chain_c) << "the run says where it stopped";
  }
  dlclose(library);
}

TEST_F(NativeUnwind, RunsEndWithTheirReasonWithoutReadingOutsideTheBounds) {
  native::NativePreparer tables;
  tables.update(native::loaded_objects());
  native::NativeSnapshotCell::Reader reader(tables.cell());
  uintptr_t pcs[kMaxFrames];
  uintptr_t stack[16] = {};
  const auto lo = reinterpret_cast<uintptr_t>(stack);
  const NativeUnwindContext context{reader.get(), nullptr, StackBounds{lo, lo + sizeof(stack)}};

  // Code in an anonymous executable mapping (another JIT): no object holds it.
  void* jit = mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(jit, MAP_FAILED);
  const uintptr_t jit_pc = reinterpret_cast<uintptr_t>(jit) + 16;
  NativeRun run = unwind_native(context, NativeStart{Regs{jit_pc, lo, 0}}, pcs, kMaxFrames);
  EXPECT_EQ(run.end, NativeRunEnd::kUnknownCode);
  EXPECT_EQ(run.count, 0);
  EXPECT_EQ(run.end_pc, jit_pc);
  munmap(jit, 4096);

  // getpid's first instruction: CFA = rsp + 8, the return address at [rsp]. A stack pointer whose
  // return slot lies outside the bounds is a bad frame, not a read.
  const auto getpid_pc = reinterpret_cast<uintptr_t>(&getpid);
  run = unwind_native(context, NativeStart{Regs{getpid_pc, lo + sizeof(stack), 0}}, pcs, kMaxFrames);
  EXPECT_EQ(run.end, NativeRunEnd::kBadFrame);

  // A return slot inside the bounds holding a word that follows no call.
  stack[4] = getpid_pc;  // a function's first byte: the bytes before it are no call
  run = unwind_native(context, NativeStart{Regs{getpid_pc, lo + 4 * 8, 0}}, pcs, kMaxFrames);
  EXPECT_EQ(run.end, NativeRunEnd::kBadFrame);
  EXPECT_EQ(run.count, 1);

  // A zero return address: the first frame.
  stack[4] = 0;
  run = unwind_native(context, NativeStart{Regs{getpid_pc, lo + 4 * 8, 0}}, pcs, kMaxFrames);
  EXPECT_EQ(run.end, NativeRunEnd::kOutermost);

  // No room for a single frame.
  run = unwind_native(context, NativeStart{Regs{getpid_pc, lo + 4 * 8, 0}}, pcs, 0);
  EXPECT_EQ(run.end, NativeRunEnd::kDepth);
  EXPECT_EQ(run.count, 0);
}

// Leaf functions without CFI (native/nocfi_leaf.S) and their callers (native/nocfi_chain.c).
class NoCfiLeaf : public NativeUnwind {
 protected:
  void SetUp() override {
    NativeUnwind::SetUp();
    library_ = open(JVMKIT_TEST_NOCFI);
    ASSERT_NE(library_, nullptr);
    address_ = reinterpret_cast<const void* (*)(int)>(dlsym(library_, "nocfi_address"));
    ASSERT_NE(address_, nullptr);
    tables_.update(native::loaded_objects());
  }
  uintptr_t address(int which) const { return reinterpret_cast<uintptr_t>(address_(which)); }
  ChainFunction function(const char* name) const { return reinterpret_cast<ChainFunction>(dlsym(library_, name)); }

  // Samples the thread running CALLER; those whose interrupted PC lies in [LEAF, LEAF_END) must
  // all have ended with a marker after the leaf alone (REFUSED) or have reached the thread's
  // first frame through CALLER (else). Returns how many were in the leaf.
  void expect_runs(const char* caller, uintptr_t leaf, uintptr_t leaf_end, bool refused) {
    const auto samples = sample_while_spinning(tables_.cell(), function(caller), 500);
    const auto caller_start = reinterpret_cast<uintptr_t>(dlsym(library_, caller));
    int in_leaf = 0;
    for (const Sample& s : samples) {
      ASSERT_GE(s.our_count, 1) << caller;
      const uintptr_t pc = s.ours[0] & ~kExactPcBit;
      if (pc < leaf || pc >= leaf_end) continue;
      in_leaf++;
      if (refused) {
        EXPECT_EQ(s.end, NativeRunEnd::kNoUnwindInfo) << caller;
        EXPECT_EQ(s.our_count, 1) << caller << ": no frame below the leaf";
        continue;
      }
      EXPECT_EQ(s.end, NativeRunEnd::kOutermost) << caller;
      ASSERT_GE(s.our_count, 3) << caller;
      EXPECT_EQ(s.ours[1] & kExactPcBit, 0u) << "the caller's PC is a return address";
      Dl_info info{};
      ASSERT_NE(dladdr(reinterpret_cast<void*>((s.ours[1] & ~kExactPcBit) - 1), &info), 0);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(info.dli_saddr), caller_start) << caller << ": the frame below the leaf";
    }
    std::printf("%s: %zu samples, %d in the leaf\n", caller, samples.size(), in_leaf);
    EXPECT_GE(in_leaf, static_cast<int>(samples.size()) * 9 / 10) << caller << ": the samples missed the spin";
  }

  void* library_ = nullptr;
  const void* (*address_)(int) = nullptr;
  native::NativePreparer tables_;
};

TEST_F(NoCfiLeaf, TheLeafLiesInAGapWithoutCfi) {
  native::NativeSnapshotCell::Reader reader(tables_.cell());
  for (int which : {0, 1, 2, 3}) {
    EXPECT_EQ(reader.get()->lookup(address(which) + 1).status, native::LookupStatus::kNoInfo) << which;
  }
  const native::RowLookup c_function = reader.get()->lookup(address(4));
  ASSERT_EQ(c_function.status, native::LookupStatus::kFound) << "the C function has CFI";
  EXPECT_LT(address(4), address(0)) << "the link order puts the C functions below the assembly";
  // The decoy's C function is the last FDE below the leaves: no FDE starts between them, so only
  // the end of its FDE (the gap's row) refuses a call to it.
  const auto bias = c_function.module->bias;
  EXPECT_EQ(native::covering_function_start(*c_function.module, static_cast<uint32_t>(address(4) - bias)),
            static_cast<int64_t>(address(4) - bias));
  EXPECT_FALSE(native::function_start_between(*c_function.module, static_cast<uint32_t>(address(4) - bias),
                                              static_cast<uint32_t>(address(1) - bias)));
}

TEST_F(NoCfiLeaf, AFramelessLeafCalledDirectlyUnwindsToItsCaller) {
  expect_runs("nocfi_direct", address(0), address(1), false);
}

TEST_F(NoCfiLeaf, ALeafCalledIndirectlyEndsTheRun) { expect_runs("nocfi_indirect", address(0), address(1), true); }

TEST_F(NoCfiLeaf, ALeafThatPushedAWordEndsTheRun) {
  // [rsp]: a return address after a direct call to code above the leaf, after one to a C function
  // below it (in another FDE), and a data word. None is the leaf's return address.
  expect_runs("nocfi_pushed_after", address(1), address(2), true);
  expect_runs("nocfi_pushed_cfi", address(1), address(2), true);
  expect_runs("nocfi_pushed_data", address(1), address(2), true);
}

// A PC no FDE covers is given no function start but its symbol's: not the start of the last FDE
// before it (the function before the assembly).
TEST_F(NoCfiLeaf, DeliveryGivesAPcWithoutCfiNoOtherFunctionsStart) {
  native::NativeSnapshotCell::Reader reader(tables_.cell());
  NativeDelivery delivery;
  const jvmkitNativeFrame leaf = delivery.describe(reader.get(), (address(0) + 2) | kExactPcBit);
  ASSERT_NE(leaf.library, nullptr);
  EXPECT_EQ(leaf.symbol, nullptr) << "the leaf's symbol has no size: it covers nothing";
  EXPECT_EQ(leaf.function_offset, -1) << "no FDE covers the PC, and no symbol does";
  const jvmkitNativeFrame caller = delivery.describe(reader.get(), address(0) + 3);  // a return address
  EXPECT_EQ(caller.function_offset, -1);
  // A C function with CFI and a symbol: the symbol's start.
  const auto direct = reinterpret_cast<uintptr_t>(dlsym(library_, "nocfi_direct"));
  const jvmkitNativeFrame named = delivery.describe(reader.get(), (direct + 1) | kExactPcBit);
  ASSERT_NE(named.symbol, nullptr);
  EXPECT_STREQ(named.symbol, "nocfi_direct");
  EXPECT_EQ(named.function_offset, named.library_offset - 1);
}

}  // namespace
}  // namespace jvmkit::walk
