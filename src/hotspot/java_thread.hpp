// Direct reads of the current thread's HotSpot JavaThread, for the two places where a JNI call
// is too slow or not allowed: a signal handler that must know the bounds of the stack it
// unwinds, and get_state's check for a pending exception.
//
// A thread's JNIEnv is a field of its JavaThread, so the JavaThread is at a fixed distance below
// the JNIEnv. That distance is learnt from java.lang.Thread.eetop (which holds the JavaThread
// address) on one thread; the field offsets come from the JVM's own gHotSpotVMStructs table.
// Every value is then checked against what the current thread is known to have (its pthread
// stack, ExceptionCheck) before the layout is published. A layout that fails a check is not
// used: callers fall back to their slower or more conservative path.
#pragma once

#include <jni.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "base/signal_safe.hpp"

namespace jvmkit::hotspot {

// The part of a thread's stack that belongs to it: [lo, hi), hi being the highest address.
struct StackRange {
  uintptr_t lo = 0, hi = 0;
  JVMKIT_SIGNAL_SAFE bool contains(uintptr_t address) const noexcept { return address >= lo && address < hi; }
};

// The registers of a thread's last Java frame as HotSpot's frame anchor records them: sp == 0 when
// the thread runs Java code (or has no Java frame); pc == 0 when HotSpot left it for [sp - 8].
struct LastJavaFrame {
  uintptr_t sp = 0, fp = 0, pc = 0;
};

struct JavaThreadLayout {
  intptr_t env_offset = 0;         // JNIEnv address - JavaThread address
  intptr_t stack_base = 0;         // offset of JavaThread::_stack_base (the stack's highest address)
  intptr_t stack_size = 0;         // offset of JavaThread::_stack_size
  intptr_t pending_exception = 0;  // offset of ThreadShadow::_pending_exception (an oop)
  // Offsets of JavaThread::_anchor's _last_Java_sp, _last_Java_fp and _last_Java_pc, or -1 when
  // gHotSpotVMStructs does not describe them.
  intptr_t anchor_sp = -1, anchor_fp = -1, anchor_pc = -1;
  // Offsets of JavaCallWrapper::_anchor's _last_Java_sp, _last_Java_fp and _last_Java_pc, or -1.
  // An entry frame (the call stub, where the VM called Java) points to its JavaCallWrapper, which
  // keeps the thread's anchor of that moment: the Java frames below the entry, if any.
  intptr_t wrapper_anchor_sp = -1, wrapper_anchor_fp = -1, wrapper_anchor_pc = -1;
  // Offset of JavaThread::_saved_exception_pc, or -1: where HotSpot's signal handler keeps the PC of
  // a safepoint poll that faulted before it sends the thread to the safepoint handler blob.
  intptr_t saved_exception_pc = -1;
  // Offset of JavaThread::_monitor_owner_id (JDK 24: _lock_id), or -1: the id (Thread.threadId())
  // of the Java thread that the JavaThread runs now. HotSpot sets it to the virtual thread's id when
  // one is mounted (JVM_SetCurrentThread) and back to the carrier's own at unmount: monitors are
  // owned by that id since JDK 24. Absent before JDK 24.
  intptr_t java_thread_id = -1;
  // Where there is no such field (JDK 21 to 23): the id read through the JavaThread's handle of the
  // Java thread it runs (JavaThread::_vthread, an OopHandle: the mounted virtual thread, else the
  // thread itself) and Thread.tid's offset inside that object, only while the thread runs Java
  // code (JavaThread::_thread_state): no collection moves objects then. Learnt only with a
  // collector that stores plain addresses (Serial, Parallel, G1); -1 otherwise.
  intptr_t thread_state = -1;
  intptr_t current_thread_handle = -1;
  intptr_t tid_in_thread = -1;
  // Offset of JavaThread::_cont_entry, or -1 (before JDK 19): the innermost continuation entry on
  // the thread's stack, set while a continuation (a virtual thread's) is mounted.
  intptr_t cont_entry = -1;

  // SIGNAL SAFE. A JavaFrameAnchor's fields at BASE + the offsets: sp first, and fp and pc only
  // when sp is set.
  JVMKIT_SIGNAL_SAFE static LastJavaFrame read_anchor(const char* base, intptr_t sp, intptr_t fp,
                                                      intptr_t pc) noexcept {
    LastJavaFrame f;
    std::memcpy(&f.sp, base + sp, sizeof(f.sp));
    if (f.sp == 0) return {};
    std::memcpy(&f.fp, base + fp, sizeof(f.fp));
    std::memcpy(&f.pc, base + pc, sizeof(f.pc));
    return f;
  }

  // SIGNAL SAFE. The current thread's last Java frame while it runs outside Java code (native
  // code, the VM, blocked): where HotSpot itself, and AsyncGetCallTrace, start its Java stack.
  // Only the thread itself writes its anchor, publishing sp last and clearing it first, so a
  // handler on that thread that reads sp != 0 reads the pc and fp that go with it.
  JVMKIT_SIGNAL_SAFE LastJavaFrame last_java_frame(JNIEnv* env) const noexcept {
    if (anchor_sp < 0) return {};
    return read_anchor(reinterpret_cast<const char*>(env) - env_offset, anchor_sp, anchor_fp, anchor_pc);
  }

  // SIGNAL SAFE. The anchor the JavaCallWrapper at WRAPPER saved when the VM called Java: sp 0
  // when no Java frame lies below that entry (the thread's first). WRAPPER must lie on the current
  // thread's stack, with the whole wrapper (wrapper_extent() bytes) below its top.
  JVMKIT_SIGNAL_SAFE LastJavaFrame saved_by_call_wrapper(uintptr_t wrapper) const noexcept {
    return read_anchor(reinterpret_cast<const char*>(wrapper), wrapper_anchor_sp, wrapper_anchor_fp, wrapper_anchor_pc);
  }
  // Bytes from a JavaCallWrapper's address past the last anchor field read; 0 when unknown.
  JVMKIT_SIGNAL_SAFE uintptr_t wrapper_extent() const noexcept {
    if (wrapper_anchor_sp < 0) return 0;
    return static_cast<uintptr_t>(std::max({wrapper_anchor_sp, wrapper_anchor_fp, wrapper_anchor_pc})) + 8;
  }

  // SIGNAL SAFE. The current thread's (ENV's) saved exception PC, or 0 when unknown.
  JVMKIT_SIGNAL_SAFE uintptr_t saved_exception_pc_of(JNIEnv* env) const noexcept {
    if (saved_exception_pc < 0) return 0;
    uintptr_t pc;
    std::memcpy(&pc, reinterpret_cast<const char*>(env) - env_offset + saved_exception_pc, sizeof(pc));
    return pc;
  }

  // SIGNAL SAFE. The id (Thread.threadId()) of the Java thread the current thread (ENV's) runs: the
  // mounted virtual thread's, else its own; 0 where it cannot be read: before JDK 21, and on JDK 21
  // to 23 while the thread is outside Java code or with ZGC or Shenandoah (see thread_state).
  // Only the thread itself changes the field (mount and unmount run on it), so its handler reads the
  // value of the moment it interrupted.
  JVMKIT_SIGNAL_SAFE int64_t current_java_thread_id(JNIEnv* env) const noexcept {
    const char* thread = reinterpret_cast<const char*>(env) - env_offset;
    int64_t id = 0;
    if (java_thread_id >= 0) {
      std::memcpy(&id, thread + java_thread_id, sizeof(id));
      return id;
    }
    if (tid_in_thread < 0) return 0;
    int32_t state;
    std::memcpy(&state, thread + thread_state, sizeof(state));
    if (state != kThreadInJava) return 0;
    const char* const* handle;
    std::memcpy(&handle, thread + current_thread_handle, sizeof(handle));
    if (handle == nullptr || *handle == nullptr) return 0;
    std::memcpy(&id, *handle + tid_in_thread, sizeof(id));
    return id;
  }
  // HotSpot's JavaThreadState _thread_in_Java and _thread_in_native (the same from JDK 17 to 25).
  static constexpr int32_t kThreadInJava = 8;
  static constexpr int32_t kThreadInNative = 4;

  // SIGNAL SAFE. Whether the current thread (ENV's) runs a mounted continuation now (a virtual
  // thread): one load, as for the stack bounds.
  JVMKIT_SIGNAL_SAFE bool runs_continuation(JNIEnv* env) const noexcept {
    if (cont_entry < 0) return false;
    uintptr_t entry;
    std::memcpy(&entry, reinterpret_cast<const char*>(env) - env_offset + cont_entry, sizeof(entry));
    return entry != 0;
  }

  // SIGNAL SAFE. The stack of the thread whose JNIEnv is ENV: two loads from its JavaThread.
  // Only for the current thread (another thread's JavaThread may be freed meanwhile).
  JVMKIT_SIGNAL_SAFE StackRange stack_of(JNIEnv* env) const noexcept {
    const char* thread = reinterpret_cast<const char*>(env) - env_offset;
    uintptr_t base, size;
    std::memcpy(&base, thread + stack_base, sizeof(base));
    std::memcpy(&size, thread + stack_size, sizeof(size));
    if (size == 0 || size > base) return {};
    return {base - size, base};
  }

  // Whether the current thread (ENV's) has a Java exception pending: what ExceptionCheck answers,
  // without its transition into the VM. Only the thread itself sets or clears the field (an
  // asynchronous exception is installed by the thread itself at a safepoint check), so the owner
  // reads it race-free.
  bool has_pending_exception(JNIEnv* env) const noexcept {
    const char* thread = reinterpret_cast<const char*>(env) - env_offset;
    const void* oop;
    std::memcpy(&oop, thread + pending_exception, sizeof(oop));
    return oop != nullptr;
  }
};

// java.lang.Thread.eetop of THREAD: the address of its JavaThread, or 0 (not started, ended, or a
// virtual thread). Normal context; THREAD is any reference to a java.lang.Thread.
jlong java_thread_address(JNIEnv* env, jobject thread);

// The current thread's JNIEnv address minus its JavaThread address, from Thread.eetop; nullopt if
// eetop is unset or the distance is implausible. No other check: learn_java_thread_layout checks
// it with the rest of the layout; a caller that needs only this offset checks it on a second thread.
std::optional<intptr_t> current_env_offset(JNIEnv* env);

// The layout of this JVM, learnt and checked on the current thread (a platform thread attached to
// the JVM; normal context: it calls JNI and pthread functions). Learnt once per process; later
// calls return the same layout. nullptr when it cannot be learnt or fails a check; *WHY (if not
// null) then says why, for a warning.
const JavaThreadLayout* learn_java_thread_layout(JNIEnv* env, std::string* why = nullptr);

// SIGNAL SAFE. The layout learnt so far, or nullptr.
JVMKIT_SIGNAL_SAFE const JavaThreadLayout* known_java_thread_layout() noexcept;
// Unit tests of code that reads frames through the layout (no JVM): publishes LAYOUT as if learnt.
void publish_java_thread_layout_for_testing(const JavaThreadLayout& layout);

// Whether HotSpot has attached the current thread, answered without a JNI call.
//
// HotSpot keeps each attached thread's Thread* twice: in a C++ thread_local, which Thread::current
// and JNI's GetEnv read, and in a pthread key (ThreadLocalStorage), which HotSpot's own signal
// handlers read. libjvm is loaded with dlopen, so its thread_local lives in dynamic TLS: the first
// read on a new thread goes through __tls_get_addr, which mallocs the thread's block. GetEnv called
// from a signal handler that interrupted malloc on a thread HotSpot is just starting (before it set
// its thread_local) deadlocks on malloc's lock. HotSpot sets the thread_local before the key
// (Thread::initialize_thread_current, JDK 17 to 25), so once the key is set GetEnv cannot allocate.
enum class Attachment {
  kUnknown,   // the key is not learnt (learn_thread_key has not succeeded)
  kDetached,  // HotSpot has no Thread for the current thread
  kAttached,  // it has one: a Java thread, or one of HotSpot's own (GC, VM thread); GetEnv is safe
};

// Learns HotSpot's thread key on the current thread (normal context, a thread attached to the JVM):
// the one key whose value is this thread's JavaThread, whose address Thread.eetop gives (on a
// virtual thread, which has no eetop: the one key whose value lies a plausible distance below the
// carrier's JNIEnv). Learnt once per process. Returns whether the key is known; *WHY (if not
// null) says why not.
bool learn_thread_key(JNIEnv* env, std::string* why = nullptr);

// SIGNAL SAFE. See Attachment.
JVMKIT_SIGNAL_SAFE Attachment current_thread_attachment() noexcept;

// SIGNAL SAFE. The current thread's stack as HotSpot's Thread records it, found through the
// thread key: for HotSpot's threads without a JNIEnv (GC workers, the VM thread), with LAYOUT's
// offsets (Thread's own fields). Empty when the key is unknown, the thread is not HotSpot's, or
// the Thread has no stack recorded yet.
JVMKIT_SIGNAL_SAFE StackRange current_hotspot_thread_stack(const JavaThreadLayout& layout) noexcept;

}  // namespace jvmkit::hotspot
