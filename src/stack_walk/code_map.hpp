// What lives where in HotSpot's code cache: the interpreter, named stubs and code blobs
// (DynamicCodeGenerated) and nmethods (CompiledMethodLoad/Unload), kept by jvmkit's own jvmtiEnv.
//
// Writers are JVMTI event callbacks on any thread (serialised by a mutex); each change publishes
// a new immutable CodeSnapshot (code_snapshot.hpp) through a SnapshotCell, so the capture side
// (signal context) looks a PC up with a binary search, lock-free and allocation-free.
#pragma once

#include <jni.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "stack_walk/call_sites.hpp"
#include "stack_walk/code_snapshot.hpp"

namespace jvmkit::walk {

// Reads the prologue of compiled code at START (SIZE bytes, readable): sets frame_size and
// pushes_rbp of R (see CodeRange). Not signal context.
void scan_prologue(const uint8_t* start, size_t size, CodeRange* r);
// The same for a stub that starts like C2's compiled code ("sub rsp, N; mov [rsp + N - 8], rbp",
// as C2's runtime stubs do): sets frame_size and prologue_end; nothing for any other stub.
void scan_stub_frame(const uint8_t* start, size_t size, CodeRange* r);

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
  // A new snapshot: the base and the changes since, or a new base once they grew past their bound.
  void publish_locked();
  void rebuild_locked();
  // Drops the nmethod at START from the map and from what the snapshots show.
  void forget_nmethod_locked(uintptr_t start);

  mutable std::mutex mutex_;
  std::map<uintptr_t, CodeRange> blobs_;  // by start
  // The blobs' names, interned: a few thousand at most, kept for the process's life, so that a
  // CodeRange's name outlives every snapshot and every trace delivered with it.
  std::set<std::string> names_;
  std::map<uintptr_t, CodeRange> nmethods_;                           // by start
  std::map<uintptr_t, std::shared_ptr<const CallSites>> call_sites_;  // by nmethod start
  // What the snapshots show: a base layer, the nmethods added since and the base's nmethods
  // removed since (by start).
  std::shared_ptr<const CodeLayer> base_;
  std::map<uintptr_t, CodeRange> recent_;
  std::set<uintptr_t> removed_;
  CodeSnapshotCell cell_;
};

}  // namespace jvmkit::walk
