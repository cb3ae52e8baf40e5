// src/profiler/context/: request-context labels (org.jvmkit.JvmkitContext). label_sets.hpp
// interns the labels and their sets, context_slots.hpp holds each thread's current context where
// the signal handler reads it without a lock, and this file is the agent's side: the Java class's
// natives and the read at a sample. The signal handler (engines/) and the JVM events' callbacks
// (events/) take a thread's context with its sample; the Recording (recording/) makes its label
// set the stack's outermost frame. Below every other room but the profiler's common headers:
// nothing here includes another room.
//
// The agent's side of request-context labels (org.jvmkit.JvmkitContext, docs/profiler/context_labels.md
// "Context labels"): the Java class's natives, the thread keys, and the reads at a sample.
//
// Activation. JvmkitContext's static initializer calls its native agentLoaded0(), which the JVM
// resolves in the agent libraries it has loaded (HotSpot looks up natives there after the class
// loaders' own libraries): with this agent loaded, the class starts active; without it, the call
// fails with UnsatisfiedLinkError and the class stays inactive, its scopes a field read and a
// return. An agent loaded into a running JVM (attach) finds classes initialized before it with
// JVMTI's GetLoadedClasses and sets their static field `active` (activate_loaded_classes).
//
// Keys. A thread's slot (context_slots.hpp) is keyed by the id of the Java thread it runs, read
// from HotSpot's JavaThread (hotspot::JavaThreadLayout::current_java_thread_id: JDK 24 and later),
// which is a virtual thread's own id while it is mounted: its context follows it from carrier to
// carrier. Where HotSpot does not keep that id (JDK 17 to 23) the key is the OS thread id: a
// virtual thread's context is then its carrier's, and JvmkitContext records nothing for virtual
// threads (their carrier changes under them). The mode is fixed once per process.
#pragma once

#include <jni.h>
#include <jvmti.h>
#include <sys/types.h>

#include <cstdint>

#include "base/signal_safe.hpp"
#include "profiler/context/context_slots.hpp"

namespace jvmkit::prof {

// Normal context, a platform Java thread (VMInit, or the attach command's thread): fixes the key
// mode and remembers VM. With JVMTI (attach): also activates JvmkitContext classes already loaded.
void prepare_context_labels(JavaVM* vm, jvmtiEnv* jvmti, JNIEnv* jni, bool live);

// JVMTI ThreadEnd, on the ending (platform) thread: frees its slot at once, before the OS can give
// its id to another thread.
void context_thread_ended(JNIEnv* jni);

// SIGNAL SAFE. The current thread's context (TID: its OS id), empty when it has none.
JVMKIT_SIGNAL_SAFE SampleContext current_sample_context(pid_t tid) noexcept;
// SIGNAL SAFE. The current thread's context put in a record for a stack-trace request: its number,
// 0 for an empty context (or none free). Each number is taken back once with take_sample_context.
JVMKIT_SIGNAL_SAFE uint32_t put_current_context(pid_t tid) noexcept;
JVMKIT_SIGNAL_SAFE SampleContext take_sample_context(uint32_t record) noexcept;

struct ContextFigures {
  bool used = false;  // a thread registered
  bool by_java_thread = false;
  ContextSlots::Counts slots;
  int64_t records_full = 0;     // samples whose context found no free record
  int64_t threads_refused = 0;  // virtual threads refused on a JVM without Java thread keys
  int64_t sets = 0;
  int64_t refused_sets = 0;  // intern calls past LabelSets' bounds
};
ContextFigures context_figures();

}  // namespace jvmkit::prof
