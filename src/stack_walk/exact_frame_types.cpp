#include "stack_walk/exact_frame_types.hpp"

namespace jvmkit::walk {

namespace {
// An nmethod inlines at most MaxInlineLevel (15) levels; this bounds the search for its root.
constexpr int kMaxInlineDepth = 64;
}  // namespace

int type_from_physical(const hotspot::AsgctFrame* frames, int n, const PhysicalFrame* physical, int physical_count,
                       int* types, int* physical_used) noexcept {
  for (int i = 0; i < n; i++) types[i] = kTypeUnknown;
  int i = 0, p = 0, exact = 0;
  while (i < n) {
    if (frames[i].lineno == hotspot::kAsgctNativeBci) {
      types[i] = JVMTI_FRAME_NATIVE;
      exact++;
      // Its physical frame, when the walk saw it: the native wrapper (an nmethod of the same method)
      // or the interpreter frame of its native entry (at the top, or further down when the walk
      // crossed the entry frame of a call from native code back into Java).
      const bool wrapper =
          p < physical_count && physical[p].kind == CodeKind::kNMethod && physical[p].root == frames[i].method_id;
      const bool interpreted = p < physical_count && physical[p].kind == CodeKind::kInterpreter;
      if (wrapper || interpreted) p++;
      i++;
      continue;
    }
    if (p >= physical_count) break;
    const PhysicalFrame& ph = physical[p];
    if (ph.kind == CodeKind::kInterpreter) {
      types[i++] = JVMTI_FRAME_INTERPRETER;
      exact++;
      p++;
      continue;
    }
    int root = -1;
    for (int j = i; j < n && j < i + kMaxInlineDepth; j++) {
      if (frames[j].method_id == ph.root) {
        root = j;
        break;
      }
    }
    if (root < 0) break;  // the walk and ASGCT disagree: leave the rest to the fallback
    for (int j = i; j < root; j++) types[j] = JVMTI_FRAME_INLINE;
    types[root] = JVMTI_FRAME_JIT;
    exact += root - i + 1;
    i = root + 1;
    p++;
  }
  if (physical_used != nullptr) *physical_used = p;
  return exact;
}

}  // namespace jvmkit::walk
