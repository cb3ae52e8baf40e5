// The exact debug records of an nmethod's call sites: for each return address, the virtual frames
// of the call (the method and bci of each inlined level, innermost first), as HotSpot's
// CompiledMethodLoad event reports them (jvmticmlr.h inline records). The records at the start
// and at the end of its safepoint polls are kept too (a frame stopped at a poll for a safepoint is
// described by the one at the poll's start where there is one, as HotSpot describes it).
//
// AsyncGetCallTrace describes a compiled frame whose callee is not Java code (a runtime stub) by
// the first record *after* its return address, and cannot walk through some stubs at all; the
// capture of a request made at a call (signal/x64/at_call.cpp) reads the call's own record here.
// Immutable once built; read in signal context through the code map's snapshots.
#pragma once

#include <jni.h>

#include <cstdint>
#include <vector>

#include "base/signal_safe.hpp"
#include "hotspot/asgct.hpp"

namespace jvmkit::walk {

class CallSites {
 public:
  // Adds the record of the call returning to START + OFFSET; OFFSETs must come in increasing order.
  void add(uint32_t offset, const jmethodID* methods, const jint* bcis, int count) {
    if (count <= 0 || (!sites_.empty() && sites_.back().offset >= offset)) return;
    sites_.push_back(Site{offset, static_cast<uint32_t>(frames_.size()), static_cast<uint32_t>(count)});
    // The lock taken on entry to a synchronized method has HotSpot's SynchronizationEntryBCI (-1);
    // JVMTI reports that frame at bci 0, and so does a trace here.
    for (int i = 0; i < count; i++) frames_.push_back(hotspot::AsgctFrame{bcis[i] < 0 ? 0 : bcis[i], methods[i]});
  }
  void shrink() {
    sites_.shrink_to_fit();
    frames_.shrink_to_fit();
  }
  bool empty() const noexcept { return sites_.empty(); }
  size_t bytes() const noexcept { return sites_.size() * sizeof(Site) + frames_.size() * sizeof(hotspot::AsgctFrame); }

  // The frames of the call returning to START + OFFSET (innermost first), *COUNT of them, or
  // nullptr when there is no record there.
  JVMKIT_SIGNAL_SAFE const hotspot::AsgctFrame* find(uint32_t offset, int* count) const noexcept {
    size_t lo = 0, hi = sites_.size();
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (sites_[mid].offset < offset) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo == sites_.size() || sites_[lo].offset != offset) return nullptr;
    *count = static_cast<int>(sites_[lo].count);
    return frames_.data() + sites_[lo].first;
  }

 private:
  struct Site {
    uint32_t offset;  // of the return address from the nmethod's start
    uint32_t first;   // index of its innermost frame in frames_
    uint32_t count;
  };
  std::vector<Site> sites_;
  std::vector<hotspot::AsgctFrame> frames_;
};

}  // namespace jvmkit::walk
