// What lives where in HotSpot's code cache: the interpreter, named stubs and code blobs
// (DynamicCodeGenerated) and nmethods (CompiledMethodLoad/Unload), kept by jvmkit's own jvmtiEnv.
//
// Writers are JVMTI event callbacks on any thread (serialised by a mutex); each change publishes
// a new immutable, sorted CodeSnapshot through a SnapshotCell, so the capture side (signal
// context) looks a PC up with a binary search, lock-free and allocation-free.
//
// Nesting: a named stub ("StubRoutines::dlog") lies inside the blob that holds it
// ("StubRoutines (1)"). Each entry records the nearest earlier entry that encloses it, so a
// look-up walks from the last entry starting at or below the PC outwards and answers with the
// innermost range that contains it.
#pragma once

#include <jni.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "base/signal_safe.hpp"
#include "concurrent/snapshot_cell.hpp"
#include "stack_walk/call_sites.hpp"

namespace jvmkit::walk {

enum class CodeKind : uint8_t {
  kUnknown = 0,
  kInterpreter,  // the template interpreter (DynamicCodeGenerated "Interpreter")
  kStub,         // any other code blob or stub reported by DynamicCodeGenerated
  kNMethod,      // JIT-compiled code of a Java method (CompiledMethodLoad)
};

struct CodeRange {
  uintptr_t start;
  uintptr_t end;     // exclusive
  jmethodID method;  // kNMethod: the root method; else nullptr
  CodeKind kind;
  const char* name;     // kStub, kInterpreter: the name HotSpot reported (valid for the process's life)
  bool vtable_stub;     // kStub named "vtable stub" / "itable stub"
  bool call_stub;       // kStub named "call_stub": where the VM calls Java (entry frames)
  bool safepoint_blob;  // kStub named "SafepointBlob": where a safepoint poll sends compiled code
  // kStub that saves two or more registers with pushes before its body, without a frame
  // (saved_registers.hpp): the body's offset, the registers pushed, the stack's depth there.
  // saved_pushes 0: not such a stub.
  uint32_t saved_end;
  uint32_t saved_pushes;
  uint32_t saved_depth;
  bool native_wrapper;  // kNMethod of a method declared native: one frame, of that method
  // kNMethod, or a kStub that starts like C2's code (scan_stub_frame): the prologue's "sub rsp,
  // N" (0: not recognised). C2 then saves rbp with a mov inside those N bytes and the return
  // address is at [sp + N]; C1 pushes rbp before the sub (pushes_rbp) and the return address is
  // at [sp + N + 8].
  uint32_t frame_size;
  bool pushes_rbp;
  // kNMethod with a known frame: offsets from start of the first prologue instruction that
  // changes rsp ("push rbp" for C1, "sub rsp" for C2) and of the first instruction after the
  // frame is complete. Before the first, the return address is at [sp]; in between, it depends
  // on the style (see recovery.cpp).
  uint16_t prologue_begin;
  uint16_t prologue_end;
  // kNMethod compiled before jvmkit's environment recorded compilations (Enable in the live phase)
  // and without -XX:+DebugNonSafepoints: HotSpot kept debug records only at safepoints and calls,
  // so AsyncGetCallTrace places a PC inside it by the next such record, maybe in another inlined
  // method or line. A trace whose interrupted PC is here is reported biased.
  bool coarse_debug_info;
  int32_t enclosing;  // index of the nearest enclosing entry, or -1
  // kNMethod: the exact records of its call sites, or nullptr (owned by the snapshots that hold it).
  const CallSites* call_sites;
};

// Reads the prologue of compiled code at START (SIZE bytes, readable): sets frame_size and
// pushes_rbp of R (see CodeRange). Not signal context.
void scan_prologue(const uint8_t* start, size_t size, CodeRange* r);
// The same for a stub that starts like C2's compiled code ("sub rsp, N; mov [rsp + N - 8], rbp",
// as C2's runtime stubs do): sets frame_size and prologue_end; nothing for any other stub.
void scan_stub_frame(const uint8_t* start, size_t size, CodeRange* r);

class CodeSnapshot {
 public:
  explicit CodeSnapshot(std::vector<CodeRange> ranges, std::vector<std::shared_ptr<const CallSites>> call_sites = {});
  // The innermost range containing PC, or nullptr.
  JVMKIT_SIGNAL_SAFE const CodeRange* find(uintptr_t pc) const noexcept;
  size_t size() const noexcept { return ranges_.size(); }

 private:
  std::vector<CodeRange> ranges_;  // sorted by start, then by size (larger first)
  // The lowest start and the highest end of all ranges: most words a walk tries as return
  // addresses (stack addresses, data) lie outside, and are answered without a search.
  uintptr_t lowest_ = 0, highest_ = 0;
  // Keeps the ranges' call sites alive while a reader may hold this snapshot.
  std::vector<std::shared_ptr<const CallSites>> call_sites_;
};

// What signal code gets of the code map: the cell holding the current snapshot, read through a
// CodeSnapshotCell::Reader (no lock; the map's own methods take its mutex).
using CodeSnapshotCell = SnapshotCell<CodeSnapshot>;

class CodeMap {
 public:
  // Event side (any thread, not signal context). add_blob reads a stub's first instructions and
  // add_nmethod its prologue: START must be readable code.
  void add_blob(const char* name, uintptr_t start, size_t size);
  void add_nmethod(jmethodID method, uintptr_t start, size_t size, bool coarse_debug_info = false,
                   std::shared_ptr<const CallSites> call_sites = nullptr, bool native_wrapper = false);
  void remove_nmethod(uintptr_t start);
  void clear();
  // Frees snapshots that readers may have held (call now and then from a non-signal thread).
  void reclaim();

  // The snapshots, for signal code (CodeSnapshotCell above).
  const CodeSnapshotCell& cell() const noexcept { return cell_; }

  // Counts (for reports and tests).
  size_t nmethods() const;
  size_t blobs() const;
  bool has_interpreter() const;

 private:
  void publish_locked();

  mutable std::mutex mutex_;
  std::map<uintptr_t, CodeRange> blobs_;  // by start
  // The blobs' names, interned: a few thousand at most, kept for the process's life, so that a
  // CodeRange's name outlives every snapshot and every trace delivered with it.
  std::set<std::string> names_;
  std::map<uintptr_t, CodeRange> nmethods_;                           // by start
  std::map<uintptr_t, std::shared_ptr<const CallSites>> call_sites_;  // by nmethod start
  CodeSnapshotCell cell_;
};

}  // namespace jvmkit::walk
