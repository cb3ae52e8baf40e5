// The stack-depth limit of a session (JvmkitSetMaxStackDepth in include/jvmkit/stack_walk.h): its
// range, how many request slots the pool gives a session of that depth, and the one rule that turns
// the frames a walk captured into the frames a trace delivers and its truncation flag.
//
// Truncation is exact because every walk (AsyncGetCallTrace in the capture, GetStackTrace on the
// biased path) asks for one frame more than the limit: a walk that filled all max_frames + 1 frames
// proves the thread had more than max_frames, and a stack of exactly max_frames is not truncated.
#pragma once

#include <jni.h>
#include <jvmkit/stack_walk.h>

#include <algorithm>
#include <cstdint>

namespace jvmkit::walk {

// The range JvmkitSetMaxStackDepth accepts, and the limit until it is called.
constexpr jint kMinStackDepth = JVMKIT_STACK_DEPTH_MIN;
constexpr jint kMaxStackDepth = JVMKIT_STACK_DEPTH_MAX;
constexpr jint kDefaultStackDepth = JVMKIT_STACK_DEPTH_DEFAULT;

constexpr bool valid_stack_depth(jint max_frames) {
  return max_frames >= kMinStackDepth && max_frames <= kMaxStackDepth;
}

// Frames the request pool preallocates in all: 1,024 slots of 1,025 frames (16 MiB of address
// space at 16 bytes a frame, backed only where traces write), about what the fixed limit of 1,024
// frames cost before the limit could be set (1,024 slots of 1,024). A deeper limit gets fewer slots within the same
// budget, down to kMinPoolSlots: a burst of requests from several threads must still find slots.
constexpr uint64_t kPoolFrameBudget = uint64_t{1024} * 1025;
constexpr uint32_t kMinPoolSlots = 64;
constexpr uint32_t kMaxPoolSlots = 1024;

// The number of request slots for a session whose traces hold up to MAX_FRAMES frames (each slot
// holds max_frames + 1): 1,024 up to a limit of 1,024 frames, 512 at the default 2,048, 128 at
// 8,192, 64 from 16,399 on (64 x 65,537 frames at the largest limit: 64 MiB of address space).
constexpr uint32_t pool_slots_for(jint max_frames) {
  const uint64_t fit = kPoolFrameBudget / (static_cast<uint64_t>(max_frames) + 1);
  return static_cast<uint32_t>(std::clamp<uint64_t>(fit, kMinPoolSlots, kMaxPoolSlots));
}

// What a trace delivers of CAPTURED frames walked with room for max_frames + 1.
struct DeliveredDepth {
  jint count;      // frames delivered: at most max_frames
  bool truncated;  // the walk found more than max_frames: the thread had more frames, at the root end
};

constexpr DeliveredDepth delivered_depth(jint captured, jint max_frames) noexcept {
  return captured > max_frames ? DeliveredDepth{max_frames, true} : DeliveredDepth{captured, false};
}

}  // namespace jvmkit::walk
