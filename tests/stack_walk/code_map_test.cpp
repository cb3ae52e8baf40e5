// The code map's look-up (innermost range, nesting, replacement of stale nmethods), its prologue
// scan, and frame typing from physical frames.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <random>

#include "stack_walk/code_map.hpp"
#include "stack_walk/exact_frame_types.hpp"

namespace jvmkit::walk {
namespace {

const CodeRange* find(const CodeMap& map, uintptr_t pc) {
  CodeSnapshotCell::Reader reader(map.cell());
  return reader.get() ? reader.get()->find(pc) : nullptr;
}

TEST(CodeMap, FindsTheInnermostRange) {
  // add_blob reads a stub's first instructions: the "code" must be readable memory (zeros: no
  // saved registers). B(x) is x bytes into it.
  static uint8_t code[0x8000];
  const auto b = [](uintptr_t offset) { return reinterpret_cast<uintptr_t>(code) + offset; };
  CodeMap map;
  map.add_blob("StubRoutines (1)", b(0x1000), 0x1000);
  map.add_blob("StubRoutines::dlog", b(0x1100), 0x100);
  map.add_blob("StubRoutines::dsin", b(0x1300), 0x100);
  map.add_blob("Interpreter", b(0x4000), 0x2000);
  map.add_blob("vtable stub", b(0x7000), 0x40);
  EXPECT_EQ(find(map, b(0x0fff)), nullptr);
  EXPECT_EQ(find(map, b(0x1000))->start, b(0x1000));
  EXPECT_EQ(find(map, b(0x1150))->start, b(0x1100));  // the named stub, not its blob
  EXPECT_EQ(find(map, b(0x1250))->start, b(0x1000));  // between stubs: the blob
  EXPECT_EQ(find(map, b(0x1fff))->start, b(0x1000));  // after the last stub: still the blob
  EXPECT_EQ(find(map, b(0x2000)), nullptr);
  EXPECT_EQ(find(map, b(0x4100))->kind, CodeKind::kInterpreter);
  EXPECT_TRUE(find(map, b(0x7010))->vtable_stub);
  EXPECT_FALSE(find(map, b(0x1150))->vtable_stub);
  EXPECT_EQ(find(map, b(0x1150))->saved_pushes, 0u);
  EXPECT_TRUE(map.has_interpreter());
}

TEST(CodeMap, KnowsStubsThatSaveRegisters) {
  // C1's slow_subtype_check (JDK 17): "push rdi; push rsi; push rcx; push rax", two loads of its
  // stack arguments, then its body.
  static uint8_t code[64] = {0x57, 0x56, 0x51, 0x50, 0x48, 0x8b, 0x74, 0x24, 0x30, 0x48, 0x8b, 0x44,
                             0x24, 0x28, 0x48, 0x8b, 0x7e, 0x28, 0x58, 0x59, 0x5e, 0x5f, 0xc3};
  CodeMap map;
  map.add_blob("slow_subtype_check Runtime1 stub", reinterpret_cast<uintptr_t>(code), sizeof(code));
  const CodeRange* r = find(map, reinterpret_cast<uintptr_t>(code) + 20);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->saved_pushes, 4u);
  EXPECT_EQ(r->saved_end, 14u);
  EXPECT_EQ(r->saved_depth, 32u);
}

TEST(CodeMap, NewNMethodReplacesStaleOverlappingOnes) {
  // add_nmethod reads the prologue: the "code" must be readable memory.
  static uint8_t code[0x1000];
  std::memset(code, 0x90, sizeof(code));
  const auto base = reinterpret_cast<uintptr_t>(code);
  CodeMap map;
  auto m1 = reinterpret_cast<jmethodID>(0x10), m2 = reinterpret_cast<jmethodID>(0x20);
  map.add_nmethod(m1, base, 0x400);
  EXPECT_EQ(find(map, base + 0x100)->method, m1);
  // Its unload event not seen yet, the memory is reused for another nmethod.
  map.add_nmethod(m2, base + 0x200, 0x400);
  EXPECT_EQ(map.nmethods(), 1u);
  EXPECT_EQ(find(map, base + 0x100), nullptr);
  EXPECT_EQ(find(map, base + 0x300)->method, m2);
  EXPECT_EQ(find(map, base + 0x300)->frame_size, 0u);  // no prologue in NOPs
  map.remove_nmethod(base + 0x200);
  EXPECT_EQ(find(map, base + 0x300), nullptr);
  map.clear();
  EXPECT_EQ(map.nmethods(), 0u);
}

TEST(CallSites, FindsTheRecordOfACallByItsReturnAddressOnly) {
  CallSites sites;
  const jmethodID inner = reinterpret_cast<jmethodID>(0x10), outer = reinterpret_cast<jmethodID>(0x20);
  const jmethodID two[] = {inner, outer};
  const jint bcis[] = {4, 17};
  sites.add(0x40, two, bcis, 2);
  const jint entry_lock[] = {-1};  // HotSpot's SynchronizationEntryBCI
  sites.add(0x80, &outer, entry_lock, 1);
  sites.add(0x60, two, bcis, 2);  // out of order: ignored
  int count = 0;
  const hotspot::AsgctFrame* call = sites.find(0x40, &count);
  ASSERT_NE(call, nullptr);
  ASSERT_EQ(count, 2);
  EXPECT_EQ(call[0].method_id, inner);
  EXPECT_EQ(call[0].lineno, 4);
  EXPECT_EQ(call[1].method_id, outer);
  EXPECT_EQ(call[1].lineno, 17);
  // Not the record after: an address between two calls has none.
  EXPECT_EQ(sites.find(0x41, &count), nullptr);
  EXPECT_EQ(sites.find(0x3f, &count), nullptr);
  EXPECT_EQ(sites.find(0x60, &count), nullptr);
  // The entry lock of a synchronized method is at bci 0, as JVMTI reports it.
  call = sites.find(0x80, &count);
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(count, 1);
  EXPECT_EQ(call[0].lineno, 0);
}

TEST(CodeMap, KeepsCallSitesAliveWhileASnapshotHoldsThem) {
  static uint8_t code[0x400];
  std::memset(code, 0x90, sizeof(code));
  const auto base = reinterpret_cast<uintptr_t>(code);
  auto sites = std::make_shared<CallSites>();
  const jmethodID m = reinterpret_cast<jmethodID>(0x10);
  const jint bci = 3;
  sites->add(0x20, &m, &bci, 1);
  std::weak_ptr<const CallSites> watch = sites;
  CodeMap map;
  map.add_nmethod(m, base, 0x400, false, std::move(sites));
  {
    CodeSnapshotCell::Reader reader(map.cell());
    const CodeRange* r = reader.get()->find(base + 0x10);
    ASSERT_NE(r, nullptr);
    ASSERT_NE(r->call_sites, nullptr);
    int count = 0;
    EXPECT_NE(r->call_sites->find(0x20, &count), nullptr);
    map.remove_nmethod(base);  // unloaded while a reader holds the old snapshot
    EXPECT_FALSE(watch.expired());
    EXPECT_NE(r->call_sites->find(0x20, &count), nullptr);
  }
  map.reclaim();
  map.clear();
  map.reclaim();
  EXPECT_TRUE(watch.expired());
}

// The innermost of RANGES that contains PC (the larger start, or the smaller end at one start).
const CodeRange* innermost(const std::vector<CodeRange>& ranges, uintptr_t pc) {
  const CodeRange* best = nullptr;
  for (const CodeRange& r : ranges) {
    if (pc < r.start || pc >= r.end) continue;
    if (best == nullptr || r.start > best->start || (r.start == best->start && r.end < best->end)) best = &r;
  }
  return best;
}

TEST(CodeMap, LayeredSnapshotsAnswerAsOneSortedArray) {
  // Thousands of compilations, unloads and reuses of the same memory, with blobs around: after
  // every change the snapshot (a shared base and a small layer of changes) answers every PC as a
  // plain list of what is loaded now would, and its layer of changes stays within its bound.
  static uint8_t code[1 << 20];
  std::memset(code, 0x90, sizeof(code));
  const auto at = [](uintptr_t offset) { return reinterpret_cast<uintptr_t>(code) + offset; };
  CodeMap map;
  std::vector<CodeRange> blobs;
  for (uintptr_t b = 0; b < 4; b++) {
    map.add_blob("StubRoutines (1)", at(b * 0x40000), 0x1000);
    blobs.push_back(CodeRange{at(b * 0x40000), at(b * 0x40000) + 0x1000});
  }
  std::map<uintptr_t, CodeRange> loaded;  // the model: nmethods by start
  std::mt19937_64 random(42);
  size_t most_changes = 0, rebuilds = 0, previous_changes = 0;
  for (int step = 0; step < 6000; step++) {
    // Between the blobs, as HotSpot's code heaps keep nmethods apart from stubs.
    const uintptr_t start = at((random() % 4) * 0x40000 + 0x1000 + (random() % 0x3d00) * 16);
    if (random() % 4 == 0 && !loaded.empty()) {
      auto victim = loaded.begin();
      std::advance(victim, static_cast<long>(random() % loaded.size()));
      map.remove_nmethod(victim->first);
      loaded.erase(victim);
    } else {
      const size_t size = 0x40 + random() % 0x800;
      const auto method = reinterpret_cast<jmethodID>(static_cast<uintptr_t>(step + 1));
      map.add_nmethod(method, start, size);
      for (auto it = loaded.begin(); it != loaded.end();) {  // what overlaps is stale, and dropped
        it = it->second.start < start + size && start < it->second.end ? loaded.erase(it) : std::next(it);
      }
      loaded[start] = CodeRange{start, start + size, method, CodeKind::kNMethod};
    }
    ASSERT_EQ(map.nmethods(), loaded.size());
    CodeSnapshotCell::Reader reader(map.cell());
    const CodeSnapshot& snapshot = *reader.get();
    ASSERT_EQ(snapshot.size(), loaded.size() + blobs.size());
    std::vector<CodeRange> all = blobs;
    for (const auto& [s, r] : loaded) all.push_back(r);
    for (int probe = 0; probe < 40; probe++) {
      const uintptr_t pc = at(random() % sizeof(code));
      const CodeRange* expected = innermost(all, pc);
      const CodeRange* found = snapshot.find(pc);
      ASSERT_EQ(found == nullptr, expected == nullptr) << "step " << step;
      if (found != nullptr) {
        ASSERT_EQ(found->start, expected->start) << "step " << step;
        ASSERT_EQ(found->end, expected->end) << "step " << step;
        ASSERT_EQ(found->method, expected->method) << "step " << step;
      }
    }
    most_changes = std::max(most_changes, snapshot.changes());
    if (snapshot.changes() < previous_changes) rebuilds++;
    previous_changes = snapshot.changes();
    ASSERT_LE(snapshot.changes(), 2 * std::sqrt(snapshot.size() + 1024.0) + 1) << "step " << step;
  }
  EXPECT_GT(most_changes, 64u);  // the changes did grow in their own layer...
  EXPECT_GT(rebuilds, 10u);      // ...and were folded into a new base now and then
}

TEST(CodeMap, ScansC2AndC1Prologues) {
  // C2: inline-cache check, then "sub rsp, 0x18; mov [rsp + 0x10], rbp".
  const uint8_t c2[] = {0x90, 0x90, 0x48, 0x83, 0xEC, 0x18, 0x48, 0x89, 0x6C, 0x24, 0x10, 0x90, 0x90, 0x90};
  CodeRange r{};
  scan_prologue(c2, sizeof(c2), &r);
  EXPECT_EQ(r.frame_size, 0x18u);
  EXPECT_FALSE(r.pushes_rbp);
  EXPECT_EQ(r.prologue_begin, 2u);  // the sub
  EXPECT_EQ(r.prologue_end, 11u);   // after the mov that saves rbp
  // C1: "push rbp; sub rsp, 0x30".
  const uint8_t c1[] = {0x90, 0x55, 0x48, 0x83, 0xEC, 0x30, 0x90, 0x90, 0x90, 0x90, 0x90};
  r = CodeRange{};
  scan_prologue(c1, sizeof(c1), &r);
  EXPECT_EQ(r.frame_size, 0x30u);
  EXPECT_TRUE(r.pushes_rbp);
  EXPECT_EQ(r.prologue_begin, 1u);  // the push
  EXPECT_EQ(r.prologue_end, 6u);    // after the sub
  // A native wrapper: HotSpot's enter() ("push rbp; mov rbp, rsp" encoded 55 48 8B EC), then
  // "sub rsp, 0x40". The other encoding of the mov (48 89 E5) is the same prologue.
  for (uint8_t mov2 : {uint8_t{0x8B}, uint8_t{0x89}}) {
    const uint8_t mov3 = mov2 == 0x8B ? 0xEC : 0xE5;
    const uint8_t wrapper[] = {0x90, 0x90, 0x55, 0x48, mov2, mov3, 0x48, 0x83, 0xEC, 0x40, 0x90, 0x90, 0x90, 0x90};
    r = CodeRange{};
    scan_prologue(wrapper, sizeof(wrapper), &r);
    EXPECT_EQ(r.frame_size, 0x40u);
    EXPECT_TRUE(r.pushes_rbp);
    EXPECT_EQ(r.prologue_begin, 2u);  // the push
    EXPECT_EQ(r.prologue_end, 10u);   // after the sub
  }
  // Nothing recognisable: unknown.
  const uint8_t none[] = {0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90};
  r = CodeRange{};
  scan_prologue(none, sizeof(none), &r);
  EXPECT_EQ(r.frame_size, 0u);
}

jmethodID M(uintptr_t v) { return reinterpret_cast<jmethodID>(v); }

TEST(FrameTyping, MatchesInlinedFramesToTheirPhysicalFrame) {
  // Virtual frames: leaf (inlined into mid), mid (root of an nmethod), caller (interpreted),
  // a native method, then two frames beyond the walk.
  hotspot::AsgctFrame frames[] = {{5, M(1)}, {7, M(2)}, {9, M(3)}, {hotspot::kAsgctNativeBci, M(4)},
                                  {1, M(5)}, {2, M(6)}};
  PhysicalFrame physical[] = {{M(2), CodeKind::kNMethod}, {nullptr, CodeKind::kInterpreter}};
  int types[6];
  EXPECT_EQ(type_from_physical(frames, 6, physical, 2, types), 4);
  EXPECT_EQ(types[0], JVMTI_FRAME_INLINE);
  EXPECT_EQ(types[1], JVMTI_FRAME_JIT);
  EXPECT_EQ(types[2], JVMTI_FRAME_INTERPRETER);
  EXPECT_EQ(types[3], JVMTI_FRAME_NATIVE);
  EXPECT_EQ(types[4], kTypeUnknown);
  EXPECT_EQ(types[5], kTypeUnknown);
}

TEST(FrameTyping, NativeMethodAtTheTopOwnsTheFirstInterpreterFrame) {
  // Sampled in native code called from the interpreter: the walk starts at the thread's last Java
  // frame, the native method's own interpreter frame; its caller is interpreted too.
  hotspot::AsgctFrame frames[] = {{hotspot::kAsgctNativeBci, M(4)}, {3, M(5)}, {8, M(6)}};
  PhysicalFrame physical[] = {
      {nullptr, CodeKind::kInterpreter}, {nullptr, CodeKind::kInterpreter}, {M(6), CodeKind::kNMethod}};
  int types[3];
  EXPECT_EQ(type_from_physical(frames, 3, physical, 3, types), 3);
  EXPECT_EQ(types[0], JVMTI_FRAME_NATIVE);
  EXPECT_EQ(types[1], JVMTI_FRAME_INTERPRETER);
  EXPECT_EQ(types[2], JVMTI_FRAME_JIT);
}

TEST(FrameTyping, NativeMethodBelowAnEntryFrameOwnsItsInterpreterFrame) {
  // A walk that crossed an entry frame: compiled code called from a static initializer, which the
  // VM ran for a native method (run by the interpreter's native entry) called from Java.
  hotspot::AsgctFrame frames[] = {{4, M(1)}, {6, M(2)}, {hotspot::kAsgctNativeBci, M(3)}, {9, M(4)}};
  PhysicalFrame physical[] = {{M(1), CodeKind::kNMethod},
                              {nullptr, CodeKind::kInterpreter},
                              {nullptr, CodeKind::kInterpreter},
                              {nullptr, CodeKind::kInterpreter}};
  int types[4];
  int used = 0;
  EXPECT_EQ(type_from_physical(frames, 4, physical, 4, types, &used), 4);
  EXPECT_EQ(used, 4);  // every physical frame matched: nothing is left to call the trace cut short
  EXPECT_EQ(types[0], JVMTI_FRAME_JIT);
  EXPECT_EQ(types[1], JVMTI_FRAME_INTERPRETER);
  EXPECT_EQ(types[2], JVMTI_FRAME_NATIVE);
  EXPECT_EQ(types[3], JVMTI_FRAME_INTERPRETER);
}

TEST(FrameTyping, StopsWhereTheWalkAndAsgctDisagree) {
  hotspot::AsgctFrame frames[] = {{5, M(1)}, {7, M(2)}};
  PhysicalFrame physical[] = {{M(9), CodeKind::kNMethod}};
  int types[2];
  EXPECT_EQ(type_from_physical(frames, 2, physical, 1, types), 0);
  EXPECT_EQ(types[0], kTypeUnknown);
  EXPECT_EQ(types[1], kTypeUnknown);
}

}  // namespace
}  // namespace jvmkit::walk
