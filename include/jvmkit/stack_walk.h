/*
 * jvmkit/stack_walk.h: the Unbiased Stack-Walk API (JEP draft "Unbiased Stack-Walk JVMTI extension
 * API"), delivered on stock HotSpot JDKs 17, 21 and 25 (Linux x86_64) by libjvmkit_walk.
 *
 * The names and signatures of the JEP are kept to the letter, so that a tool written against this
 * header today can later call the JVM's own extension. Everything jvmkit adds is an extension and
 * is named Jvmkit... / jvmkit... / JVMKIT_....
 *
 * How it works on a stock JVM (details in docs/stack_walk.md):
 *  - A request for the current thread with a ucontext (e.g. from a profiling signal handler) is
 *    captured in the calling thread, immediately, from the interrupted PC, into preallocated storage.
 *    Its trace is unbiased (biased = JNI_FALSE). The capture proves the trace the thread's whole
 *    stack by walking it down to the thread's first entry into Java, on every kind of thread (the
 *    main thread and threads attached through JNI too): a trace AsyncGetCallTrace cut short at a
 *    call from the VM back into Java is completed by that walk; one cut elsewhere ends in the
 *    failure cut_short; one it cannot prove whole (a frame it cannot pass), on a thread whose
 *    bottom frame is not known (the main thread, threads attached through JNI), is delivered
 *    biased (JNI_TRUE).
 *  - A request for the current thread without a ucontext (from a JVMTI event callback, a JNI native
 *    method) is captured in the calling thread too, from the thread's last Java frame: its trace
 *    is the stack at the moment of the request, each frame at its call. Its trace is reported
 *    biased (biased = JNI_TRUE), as the JEP says for a request without a ucontext. Only when the
 *    thread runs Java code (a signal handler that passed no ucontext) or its last frame cannot be
 *    walked is it served later, like a request for another thread (counted: served_later).
 *  - A request for another thread is served later with JVMTI GetStackTrace, at a safepoint; its
 *    trace is biased (biased = JNI_TRUE).
 *  - All callbacks run later on one JVMTI agent thread that jvmkit owns ("jvmkit stack walker"),
 *    never in signal context. They may do anything a JVMTI agent thread may do: allocate, call JNI and
 *    JVMTI. Traces of one sampled thread are delivered in the order they were requested.
 *
 * Thread safety: RequestStackTrace may be called from any thread, including from a signal handler
 * (it is async-signal-safe in that case: no locks, no allocation, bounded time, at most one
 * wake-up syscall). Enable/Disable must not run concurrently with each other.
 */
#ifndef JVMKIT_STACK_WALK_H
#define JVMKIT_STACK_WALK_H

#include <jni.h>
#include <jvmti.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define JVMKIT_WALK_EXPORT __attribute__((visibility("default")))
#else
#define JVMKIT_WALK_EXPORT
#endif

/* ------------------------------------------------------------------------------------------------
 * Types of the JEP
 * ---------------------------------------------------------------------------------------------- */

/* The kind of a reported frame. On stock JDKs jvmkit derives it from JVMTI's compiled-code events;
 * docs/stack_walk.md "Frame types" says how exact that is today. */
typedef enum {
  JVMTI_FRAME_INTERPRETER = 0, /* executed by the bytecode interpreter */
  JVMTI_FRAME_JIT = 1,         /* a JIT-compiled (C1/C2) physical frame */
  JVMTI_FRAME_INLINE = 2,      /* a method inlined into the JIT-compiled frame reported after it */
  JVMTI_FRAME_NATIVE = 3,      /* a Java method declared native */
  /* jvmkit's native-frames extension (jvmkit/stack_walk_native.h): only ever passed in a
   * jvmkitNativeFrame, never to stackFrame. */
  JVMKIT_FRAME_NATIVE_CODE = 0x1000, /* C/C++ of a loaded object other than libjvm */
  JVMKIT_FRAME_JVM = 0x1001,         /* libjvm's C++ code, and HotSpot's stubs in the code cache */
  JVMKIT_FRAME_KERNEL = 0x1002,      /* kernel code, from a call chain the request passed */
  JVMKIT_FRAME_MARKER = 0x1003       /* not a frame: a native part ends here, short of what lies below */
} jvmtiFrameType;

/* Called once at the start of a trace, before its frames.
 *  thread:    the thread the trace was taken from (a local reference, valid until endStackTrace
 *             returns). For a sampled virtual thread, the virtual thread itself on JDK 24+, its
 *             carrier on JDK 21 to 23; see "Extension: virtual threads" below.
 *  biased:    JNI_FALSE only when the trace starts at the exact PC the thread was interrupted at
 *             (a current-thread request with a ucontext) and is known to be the whole stack;
 *             JNI_TRUE when it was taken at a safepoint, for a request without a ucontext, and
 *             for a trace that could not be proven whole (see above).
 *  user_data: the user_data given to RequestStackTrace, unchanged. */
typedef void(JNICALL* jvmtiBeginStackTraceCallback)(jthread thread, jboolean biased, void* user_data);

/* Called once at the end of a trace, after its frames. It is safe to free the callbacks and
 * user_data just before returning from this callback: jvmkit does not touch them afterwards. */
typedef void(JNICALL* jvmtiEndStackTraceCallback)(jthread thread, void* user_data);

/* Return values of the frame callback. */
#define JVMKIT_FRAME_CONTINUE 0 /* go on with the next (calling) frame */
#define JVMKIT_FRAME_STOP 1     /* skip the remaining frames; endStackTrace is still called */

/* Called once per frame, from the executing frame towards the frame that started the thread.
 *  frameType: see jvmtiFrameType.
 *  methodId:  the frame's method. Valid until endStackTrace returns (jvmkit holds a strong reference
 *             to the declaring class until then), so GetMethodName, GetMethodDeclaringClass, ...
 *             may be called on it inside the callbacks. Do not keep it past endStackTrace without
 *             pinning its class yourself.
 *  location:  the bytecode index (jlocation) within the method; -1 when unknown (e.g. native).
 * Returns JVMKIT_FRAME_CONTINUE (0) to receive the next frame, or any other value (use
 * JVMKIT_FRAME_STOP) to end this trace early. */
typedef jint(JNICALL* jvmtiStackFrameCallback)(jvmtiFrameType frameType, jmethodID methodId, jlocation location,
                                               void* user_data);

/* The JEP draft uses this second name for the same frame callback type. */
typedef jvmtiStackFrameCallback jvmtiStackTraceCallback;

/* Called instead of beginStackTrace/stackFrame/endStackTrace when no trace can be reported for an
 * accepted request (the reason is counted, see JvmkitGetStackWalkCounters). Never called after
 * beginStackTrace for the same request. thread may be NULL when the thread had already ended. */
typedef void(JNICALL* jvmtiStackTraceFailureCallback)(jthread thread, void* user_data);

typedef struct {
  jvmtiBeginStackTraceCallback beginStackTrace;
  jvmtiEndStackTraceCallback endStackTrace;
  jvmtiStackFrameCallback stackFrame;
  jvmtiStackTraceFailureCallback failure;
} jvmtiStackTraceCallbacks;

/* ------------------------------------------------------------------------------------------------
 * Functions of the JEP
 * ---------------------------------------------------------------------------------------------- */

/* Requests a stack trace of THREAD, reported later through CALLBACKS.
 *  env:       the caller's jvmtiEnv (must not be NULL).
 *  thread:    NULL for the current thread, or a pointer to a jthread (a reference valid in the
 *             calling thread). *thread == NULL, or a jthread naming the calling thread itself, is
 *             the same as thread == NULL. Other threads are always traced biased.
 *  ucontext:  the ucontext_t* a signal handler received, or NULL (then the trace is biased; for the
 *             current thread it is still the stack of this moment, see above).
 *  callbacks: all four members must be non-NULL. Copied: the struct need not outlive the call.
 *  user_data: passed back unchanged to every callback of this request.
 * Returns:
 *  JVMTI_ERROR_NONE              accepted: exactly one outcome follows, either beginStackTrace,
 *                                stackFrame* and endStackTrace, or failure alone.
 *  JVMTI_ERROR_NOT_AVAILABLE     EnableRequestStackTrace has not been called (or Disable has);
 *                                or, for the current thread, it was called in Agent_OnLoad and
 *                                VMInit has not come yet.
 *  JVMTI_ERROR_NULL_POINTER      env is NULL, or a member of callbacks is NULL.
 *  JVMTI_ERROR_INVALID_THREAD    *thread is not a live Java thread (or not a thread at all).
 *  JVMTI_ERROR_UNATTACHED_THREAD thread is NULL and the calling thread is not a Java thread.
 *  JVMTI_ERROR_OUT_OF_MEMORY     the preallocated request pool is full (the request is dropped
 *                                and counted; see JvmkitGetStackWalkCounters).
 * A request that returns an error gets no callback. Async-signal-safe when thread is NULL. */
JVMKIT_WALK_EXPORT jvmtiError RequestStackTrace(jvmtiEnv* env, jthread* thread, void* ucontext,
                                                jvmtiStackTraceCallbacks callbacks, void* user_data);

/* Enables the functionality, from Agent_OnLoad or in the live phase (Agent_OnAttach, a JNI call).
 * env is the caller's environment; it is left as found: jvmkit creates its own jvmtiEnv from the
 * JavaVM for its own capabilities and events, so the caller's callbacks and events are untouched.
 * The JavaVM is found with JNI_GetCreatedJavaVMs, which HotSpot answers only once JNI_CreateJavaVM
 * has returned: before that (Agent_OnLoad, VMStart/VMInit callbacks) call JvmkitSetJavaVM first.
 * Called in the OnLoad phase (after JvmkitSetJavaVM), it sets up jvmkit's environment at once and
 * does the rest (registering existing threads and classes, starting the agent thread) at VMInit,
 * on its own environment; requests are accepted from then on (if that setup fails, it says why on
 * stderr and nothing stays enabled). Called in the live phase, it must run on a thread attached to
 * the JVM, and requests are accepted when it returns.
 * Returns JVMTI_ERROR_NONE; JVMTI_ERROR_NULL_POINTER for a NULL env; JVMTI_ERROR_NOT_AVAILABLE when
 * the JVM lacks what is needed (AsyncGetCallTrace is not exported, no JavaVM is known yet, see
 * JvmkitSetJavaVM, or HotSpot's thread key, which signal handlers need, cannot be found) or it is
 * already enabled; JVMTI_ERROR_OUT_OF_MEMORY when the request pool (sized for the depth limit, see
 * JvmkitSetMaxStackDepth) cannot be mapped; JVMTI_ERROR_WRONG_PHASE when called in the dead phase;
 * JVMTI_ERROR_UNATTACHED_THREAD when called in the live phase from a thread not attached to the JVM;
 * another JVMTI error if jvmkit's own environment cannot be set up (nothing stays enabled then). */
JVMKIT_WALK_EXPORT jvmtiError EnableRequestStackTrace(jvmtiEnv* env);

/* Disables the functionality. Requests accepted before still get their one outcome (delivered, or
 * failure) before this returns; later requests return JVMTI_ERROR_NOT_AVAILABLE. Everything Enable
 * set up (agent thread, own jvmtiEnv, class references) is released; Enable may be called again.
 * In the dead phase (Agent_OnUnload) no callback can run any more: it returns at once and requests
 * still queued stay pending; call it from VMDeath to get every outcome.
 * Returns JVMTI_ERROR_NONE; JVMTI_ERROR_NULL_POINTER for a NULL env; JVMTI_ERROR_NOT_AVAILABLE when
 * not enabled. Must not be called from a stack-trace callback. */
JVMKIT_WALK_EXPORT jvmtiError DisableRequestStackTrace(jvmtiEnv* env);

/* The JEP draft's spelling of DisableRequestStackTrace; identical behaviour. */
JVMKIT_WALK_EXPORT jvmtiError DisablesRequestStackTrace(jvmtiEnv* env);

/* The name of jvmkit's delivery thread, the JVMTI agent thread that runs the callbacks. The kernel
 * keeps the first 15 bytes of it as the thread's comm (/proc/<pid>/task/<tid>/comm). A sampling
 * tool should leave the thread out: it runs no Java code. */
#define JVMKIT_WALK_THREAD_NAME "jvmkit stack walker"

/* ------------------------------------------------------------------------------------------------
 * Extension: the JavaVM.
 * ---------------------------------------------------------------------------------------------- */

/* Optional: tells jvmkit which JavaVM it runs in. jvmkit finds it by itself, also in Agent_OnLoad
 * (before JNI_CreateJavaVM has returned HotSpot's JNI_GetCreatedJavaVMs reports none; jvmkit then
 * reads it from libjvm.so's symbol table). Only on a libjvm.so stripped of that table is this call
 * needed before an EnableRequestStackTrace made while the VM starts (Agent_OnLoad, VMStart, VMInit,
 * a Java agent's premain). Returns JVMTI_ERROR_NULL_POINTER for a NULL vm, else JVMTI_ERROR_NONE.
 * Call it before EnableRequestStackTrace, not concurrently with it. */
JVMKIT_WALK_EXPORT jvmtiError JvmkitSetJavaVM(JavaVM* vm);

/* ------------------------------------------------------------------------------------------------
 * Extension: stack depth and truncation. A trace holds at most a set number of frames: those
 * nearest the top (the executing frame first). A thread with more frames gets a trace cut at the
 * root end, flagged truncated. Truncation is exact: jvmkit walks one frame more than the limit
 * (AsyncGetCallTrace and, on the biased path, GetStackTrace), so a stack of exactly the limit is
 * delivered whole and not flagged. See docs/stack_walk.md "Stack depth and truncation".
 * ---------------------------------------------------------------------------------------------- */

/* The depth limit until JvmkitSetMaxStackDepth is called, and the range it accepts. */
#define JVMKIT_STACK_DEPTH_DEFAULT 2048
#define JVMKIT_STACK_DEPTH_MIN 1
#define JVMKIT_STACK_DEPTH_MAX 65536

/* Sets the most frames a delivered trace holds: max_frames from JVMKIT_STACK_DEPTH_MIN (1) to
 * JVMKIT_STACK_DEPTH_MAX (65536); JVMKIT_STACK_DEPTH_DEFAULT (2048) until called. It takes effect
 * at the next EnableRequestStackTrace and holds for every later one until set again (Disable keeps
 * it). Returns:
 *  JVMTI_ERROR_NONE
 *  JVMTI_ERROR_ILLEGAL_ARGUMENT  max_frames is out of range (checked first; nothing changes).
 *  JVMTI_ERROR_WRONG_PHASE       the walker is enabled: from EnableRequestStackTrace (also one made
 *                                in Agent_OnLoad that waits for VMInit) until DisableRequestStackTrace
 *                                has returned; nothing changes. Enable sizes the request pool for
 *                                the limit, so the limit changes only between sessions: call this
 *                                before Enable, or after Disable.
 * Memory: Enable maps the pool's frames at once, 16 bytes a frame, max_frames + 1 frames for each of
 * clamp(1,049,600 / (max_frames + 1), 64, 1024) slots: about 16 MiB of address space for limits up to
 * 16,399 frames (1,024 slots up to a limit of 1,024, 512 at the default 2,048, 128 at 8,192), then
 * 64 slots, 64 MiB at 65,536. Only the pages traces write are backed (a freed slot is the first
 * reused), so resident memory follows the depth of the stacks sampled and the requests waiting at
 * once, not the limit. The delivery thread adds 20 bytes per frame of the limit. Costs beyond
 * memory: fewer slots, so bursts fill the pool sooner (JVMTI_ERROR_OUT_OF_MEMORY from
 * RequestStackTrace); and a capture in a signal handler walks up to max_frames + 1 frames.
 * Any thread, also inside a stack-trace callback (where it returns JVMTI_ERROR_WRONG_PHASE); not
 * from a signal handler. Not concurrently with Enable or Disable (while one of them runs it may
 * return JVMTI_ERROR_WRONG_PHASE). */
JVMKIT_WALK_EXPORT jvmtiError JvmkitSetMaxStackDepth(jint max_frames);

/* Called inside beginStackTrace, stackFrame or endStackTrace, on the thread that runs them:
 * JNI_TRUE when the trace being delivered was truncated at the depth limit (the thread had more
 * frames than the limit; the trace holds the limit's number of frames nearest the top and lacks
 * those at the root end, down to the frame the thread started with). The same answer in every
 * callback of one trace, also when the frame callback stopped it early. JNI_FALSE for a trace with
 * all its frames (also one of exactly the limit), inside a failure callback, and anywhere else.
 * Truncated traces are counted (jvmkitStackWalkCounters.truncated). Never fails. */
JVMKIT_WALK_EXPORT jboolean JvmkitCurrentTraceTruncated(void);

/* Called inside beginStackTrace, stackFrame or endStackTrace, on the thread that runs them:
 * JNI_TRUE when the trace being delivered is that of a request for the current thread that could
 * not be captured at its call (counted: served_later, see the top of this file): the delivery
 * thread took it with GetStackTrace later, so its frames are the thread's stack at that later
 * moment, not at the request. An agent that ties a trace to an event of the request's moment (an
 * allocation, a lock) can leave such traces out. JNI_FALSE for a trace captured at the request, for
 * a request for another thread (always taken at delivery, as documented above), inside a failure
 * callback, and anywhere else. Never fails. */
JVMKIT_WALK_EXPORT jboolean JvmkitCurrentTraceServedLater(void);

/* Called inside beginStackTrace, stackFrame or endStackTrace, on the thread that runs them: the
 * CLOCK_MONOTONIC time, in nanoseconds, at which RequestStackTrace accepted the request whose trace
 * is being delivered, so that a tool can timestamp each sample. For a request for the current
 * thread that is the moment its stack was captured: in the signal handler, when called from one.
 * For a request for another thread (and a current-thread request served later, see
 * JvmkitCurrentTraceServedLater) it is still the moment of the request, though the frames were
 * taken later, at delivery (as documented above). clock_gettime is async-signal-safe: a request
 * costs one more vDSO call. The same answer in every callback of one trace. 0 inside a failure
 * callback and anywhere else. Never fails. */
JVMKIT_WALK_EXPORT jlong JvmkitCurrentTraceTime(void);

/* ------------------------------------------------------------------------------------------------
 * Extension: virtual threads (JDK 21+; docs/stack_walk.md "Virtual threads").
 *
 * A current-thread request taken while a virtual thread is mounted (its carrier was interrupted)
 * is, on JDK 24 and later, the virtual thread's trace: beginStackTrace's thread is the virtual
 * thread, and its frames end with the virtual thread's own first frame, above the continuation's
 * entry (jdk.internal.vm.Continuation.enterSpecial). On JDK 21 to 23 the same holds for a sample
 * that interrupted Java code with the Serial, Parallel or G1 collector; other traces taken while
 * a virtual thread was mounted are the carrier's, with every frame (the virtual thread's,
 * enterSpecial, the carrier's). The frames HotSpot has not thawed back onto the stack yet are read
 * from the continuation's stack chunks in the heap when the sample interrupted Java code with the
 * Serial, Parallel or G1 collector (the trace is whole); elsewhere they are completed at delivery
 * only where the virtual thread then waits, and the trace is biased. On JDK 17 there are no
 * virtual threads. docs/stack_walk.md, "Virtual threads", gives every case.
 * ---------------------------------------------------------------------------------------------- */

/* RequestStackTrace for the calling thread (thread NULL, no ucontext), for callers that do not run
 * in a signal handler: JVMTI event callbacks, JNI native methods. NOT async-signal-safe. The trace
 * is the stack of the moment of the call, as for RequestStackTrace without a ucontext (biased); and
 * where a virtual thread is mounted, whose frames HotSpot thaws lazily so that a walk of the stack
 * sees only their top, it is the virtual thread's whole stack, taken before this returns with JVMTI
 * GetStackTrace of the calling thread itself (docs/stack_walk.md "Virtual threads"). Returns what
 * RequestStackTrace returns. */
JVMKIT_WALK_EXPORT jvmtiError JvmkitRequestCurrentStackTrace(jvmtiEnv* env, jvmtiStackTraceCallbacks callbacks,
                                                             void* user_data);

/* Whether traces of mounted virtual threads go on below the continuation's entry with the
 * carrier's frames (enterSpecial, VirtualThread.runContinuation, the scheduler's): JNI_FALSE by
 * default. The thread stays the virtual thread. May be called at any time, from any thread (not a
 * signal handler); it applies to the traces delivered from then on. Returns JVMTI_ERROR_NONE. */
JVMKIT_WALK_EXPORT jvmtiError JvmkitSetCarrierFrames(jboolean include);

/* Called inside beginStackTrace, stackFrame or endStackTrace: Thread.threadId() of the virtual
 * thread whose trace is being delivered, else 0 (a platform thread's trace, a failure callback,
 * anywhere else). Non-zero also when that virtual thread could not be found at delivery (it had
 * unmounted and was never met before): the trace's thread is then its carrier, and this id is what
 * is left of it (counted in virtual_unnamed). Never fails. */
JVMKIT_WALK_EXPORT jlong JvmkitCurrentVirtualThreadId(void);

/* Called inside the callbacks of a trace of a virtual thread (JvmkitCurrentVirtualThreadId() != 0):
 * the carrier it was mounted on, a local reference valid until endStackTrace returns; else NULL.
 * Never fails. */
JVMKIT_WALK_EXPORT jthread JvmkitCurrentCarrierThread(void);

/* ------------------------------------------------------------------------------------------------
 * Extension: accounting. Every accepted request ends in exactly one outcome, so at any moment
 *   accepted == delivered + failed + pending
 * and, once pending is 0, accepted == delivered + failed.
 * ---------------------------------------------------------------------------------------------- */

/* Why an accepted request ended in failure. */
typedef enum {
  JVMKIT_FAILURE_NO_JAVA_FRAMES = 0, /* the thread was not executing Java code (no Java frames) */
  JVMKIT_FAILURE_NOT_WALKABLE = 1,   /* the stack could not be walked at that PC (stub, prologue...) */
  JVMKIT_FAILURE_GC_ACTIVE = 2,      /* a GC was moving objects; walking was not safe */
  JVMKIT_FAILURE_DEOPTIMIZING = 3,   /* the top frame was being deoptimized */
  JVMKIT_FAILURE_CLASS_UNLOADED = 4, /* a frame's class was unloaded between capture and delivery */
  JVMKIT_FAILURE_THREAD_ENDED = 5,   /* the thread ended, or its Thread object could not be found */
  JVMKIT_FAILURE_DISABLED = 6,       /* DisableRequestStackTrace ran before a trace could be taken */
  JVMKIT_FAILURE_JVMTI_ERROR = 7,    /* GetStackTrace (biased path) returned an error */
  JVMKIT_FAILURE_OTHER = 8,
  JVMKIT_FAILURE_CUT_SHORT = 9, /* AsyncGetCallTrace's trace ended above Java frames that the
                                   capture's own frame walk found below it */
  JVMKIT_FAILURE_REASON_COUNT = 10
} jvmkitFailureReason;

/* Called from inside a failure callback, on the thread that runs it: why that request failed.
 * Anywhere else: JVMKIT_FAILURE_REASON_COUNT. Lets an agent count or show lost samples by cause and
 * by thread (the counters below give only totals). Never fails. */
JVMKIT_WALK_EXPORT jvmkitFailureReason JvmkitCurrentFailureReason(void);

/* Why RequestStackTrace returned an error (the request was never accepted). */
typedef enum {
  JVMKIT_REJECT_NOT_ENABLED = 0,       /* JVMTI_ERROR_NOT_AVAILABLE */
  JVMKIT_REJECT_NULL_ARGUMENT = 1,     /* JVMTI_ERROR_NULL_POINTER */
  JVMKIT_REJECT_INVALID_THREAD = 2,    /* JVMTI_ERROR_INVALID_THREAD */
  JVMKIT_REJECT_UNATTACHED_THREAD = 3, /* JVMTI_ERROR_UNATTACHED_THREAD */
  JVMKIT_REJECT_POOL_FULL = 4,         /* JVMTI_ERROR_OUT_OF_MEMORY */
  JVMKIT_REJECT_REASON_COUNT = 5
} jvmkitRejectReason;

typedef struct {
  jlong accepted;  /* requests that returned JVMTI_ERROR_NONE */
  jlong delivered; /* ... and ended with beginStackTrace ... endStackTrace */
  jlong failed;    /* ... and ended with failure */
  jlong pending;   /* ... and have no outcome yet */
  jlong unbiased;  /* delivered traces with biased == JNI_FALSE */
  jlong failed_by_reason[JVMKIT_FAILURE_REASON_COUNT];
  jlong rejected; /* requests that returned an error */
  jlong rejected_by_reason[JVMKIT_REJECT_REASON_COUNT];
  jlong truncated; /* delivered traces truncated at the depth limit (JvmkitCurrentTraceTruncated) */
  /* Requests for the current thread without a ucontext (fields added last, so that the fields
   * above keep their offsets): */
  jlong captured_at_call; /* ... whose stack was captured in RequestStackTrace, from the thread's
                             last Java frame (the stack of the moment of the request) */
  jlong served_later;     /* ... that could not be captured then (the thread was running Java code,
                             e.g. a signal handler that passed no ucontext, or its last Java frame
                             was not walkable): GetStackTrace on the delivery thread */
  /* Delivered traces of current-thread requests taken while a virtual thread was mounted (JDK 24+;
   * docs/stack_walk.md "Virtual threads"; fields added last): */
  jlong virtual_threads;   /* ... all of them */
  jlong virtual_unnamed;   /* ... reported for the carrier, because the virtual thread had unmounted
                              before the delivery and was not met before (JvmkitCurrentVirtualThreadId
                              still gives its id) */
  jlong virtual_completed; /* ... whose frames below the part HotSpot had thawed (copied back to the
                              stack) come from the virtual thread's stack at delivery: biased */
  jlong virtual_frozen;    /* captures of a mounted virtual thread that read the frames HotSpot had
                              not thawed from the continuation's stack chunks in the heap */
} jvmkitStackWalkCounters;

/* Copies the counters, totals since the library was loaded (they survive Disable/Enable cycles),
 * into *counters. Returns JVMTI_ERROR_NULL_POINTER for a NULL counters, else JVMTI_ERROR_NONE.
 * May be called at any time from any thread (not from a signal handler). */
JVMKIT_WALK_EXPORT jvmtiError JvmkitGetStackWalkCounters(jvmkitStackWalkCounters* counters);

/* A short lower-case name for a failure or rejection reason ("not_walkable", "pool_full"), for
 * reports; "unknown" for a value out of range. The strings are static. */
JVMKIT_WALK_EXPORT const char* JvmkitFailureReasonName(jvmkitFailureReason reason);
JVMKIT_WALK_EXPORT const char* JvmkitRejectReasonName(jvmkitRejectReason reason);

/* ------------------------------------------------------------------------------------------------
 * Extension: recovery of samples AsyncGetCallTrace cannot place. When the interrupted PC is in a
 * stub (intrinsics such as Math.log, arraycopy, vtable/itable dispatch, runtime stubs) or in a
 * compiled method's prologue/epilogue, AsyncGetCallTrace fails (unknown_Java). jvmkit then looks
 * the PC up in its map of the code cache and retries from the caller (its return address and
 * stack pointer), after checking that the recovered PC is in known Java code right after a call
 * instruction. A recovered trace is still unbiased: it starts at the Java frame that was executing
 * (for a stub: the Java method at the exact call site of the stub; for a prologue/epilogue: the
 * compiled method itself, reported first with location -1, then its caller at the call site).
 * See docs/stack_walk.md "Recovery".
 * ---------------------------------------------------------------------------------------------- */

/* Where the return address of a recovered sample was found. */
typedef enum {
  JVMKIT_RECOVERY_STUB_ENTRY = 0,            /* PC in a stub, frame not set up (or torn down): at [sp] */
  JVMKIT_RECOVERY_STUB_PUSHED = 1,           /* PC in a stub right after "push rbp": at [sp + 8] */
  JVMKIT_RECOVERY_STUB_FRAME = 2,            /* PC in a stub with an rbp frame: at [rbp + 8]; in a
                                                stub built like C2's code ("sub rsp, N" first: C2's
                                                runtime stubs), at [sp + N] */
  JVMKIT_RECOVERY_VTABLE_STUB = 3,           /* PC in a vtable or itable stub (frameless): at [sp] */
  JVMKIT_RECOVERY_NMETHOD_ENTRY = 4,         /* PC in a compiled method's prologue/epilogue: at [sp] */
  JVMKIT_RECOVERY_NMETHOD_PUSHED = 5,        /* ... after "push rbp" in the prologue: at [sp + 8] */
  JVMKIT_RECOVERY_NATIVE_LEAF = 6,           /* PC in a leaf runtime call (e.g. a GC barrier) made from a
                                                stub or compiled code: rbp chain up to Java code */
  JVMKIT_RECOVERY_NMETHOD_PROLOGUE = 7,      /* ... after the prologue's "sub rsp, N", before rbp is
                                                saved: at [sp + N] (C2) or [sp + N + 8] (C1) */
  JVMKIT_RECOVERY_SIGNAL_FRAME = 8,          /* PC in another signal handler (e.g. JFR's sampler holding
                                                the thread suspended): the Java context it interrupted,
                                                read from its signal frame */
  JVMKIT_RECOVERY_NMETHOD_INTRINSIC = 9,     /* PC in compiled code whose inline intrinsic (e.g. the
                                               String.indexOf or compareTo code) has pushed registers:
                                               the walk starts from the frame's real SP, a few words
                                               above the interrupted one */
  JVMKIT_RECOVERY_INTERPRETER_ENTRY = 10,    /* PC in an interpreter method entry before the method's
                                                frame is built: the method (from its Method*), at
                                                bci 0, then its caller (return address at [sp], in a
                                                register, or at [rbp + 8]) */
  JVMKIT_RECOVERY_SAFEPOINT_POLL = 11,       /* PC at the first instruction of a safepoint handler
                                                blob, where a safepoint poll in compiled code just sent
                                                the thread: the walk starts at the poll (its PC kept in
                                                the thread's saved exception PC) */
  JVMKIT_RECOVERY_STUB_SAVED_REGISTERS = 12, /* PC in a stub that pushed registers (and maybe
                                                 reserved more) without a frame, e.g. C1's
                                                 slow_subtype_check: at [sp + the bytes it saved] */
  JVMKIT_RECOVERY_VM_ANCHOR = 13,            /* PC in the JVM's own code (a Java thread inside the VM:
                                                the allocation slow path, class resolution, a runtime
                                                call, a collector's pause): the Java frames from the
                                                thread's frame anchor, its PC the word below its SP as
                                                HotSpot makes it walkable; each caller at its call; a
                                                frame stopped at a safepoint poll at the poll */
  JVMKIT_RECOVERY_DEOPTIMIZED = 14,          /* a compiled frame being deoptimized, at the original PC
                                                HotSpot keeps in it: a thread in the deoptimization
                                                blob (AsyncGetCallTrace's -9) walked from that frame,
                                                or a trace AsyncGetCallTrace stopped right above such
                                                a frame (it reports success there) completed below it */
  JVMKIT_RECOVERY_KIND_COUNT = 15
} jvmkitRecoveryKind;

/* Why a sample that AsyncGetCallTrace could not place was not recovered either. */
typedef enum {
  JVMKIT_UNRECOVERED_UNKNOWN_PC = 0,      /* the PC is in no code jvmkit knows of, and its rbp chain
                                             leads to none either */
  JVMKIT_UNRECOVERED_INTERPRETER = 1,     /* the PC is in the interpreter, outside the method entries'
                                             first instructions (not recovered) */
  JVMKIT_UNRECOVERED_NO_CALLER = 2,       /* no candidate return address passed validation */
  JVMKIT_UNRECOVERED_RETRY_FAILED = 3,    /* AsyncGetCallTrace failed from the validated caller too */
  JVMKIT_UNRECOVERED_NO_STACK_BOUNDS = 4, /* the thread's stack bounds are unknown (the JavaThread
                                             layout failed its start-up check), so jvmkit does not
                                             read the stack: AsyncGetCallTrace's answer stands */
  JVMKIT_UNRECOVERED_REASON_COUNT = 5
} jvmkitUnrecoveredReason;

typedef struct {
  jlong attempted; /* captures where AsyncGetCallTrace failed with a code a recovery tries (-2 to -6,
                      -9), or stopped right above a frame being deoptimized */
  jlong recovered_by_kind[JVMKIT_RECOVERY_KIND_COUNT];
  jlong unrecovered_by_reason[JVMKIT_UNRECOVERED_REASON_COUNT];
  /* attempted == sum(recovered_by_kind) + sum(unrecovered_by_reason) once no capture is running */
} jvmkitRecoveryCounters;

/* Copies the recovery totals since the library was loaded into *counters. Returns
 * JVMTI_ERROR_NULL_POINTER for a NULL counters, else JVMTI_ERROR_NONE. Any thread, not from a
 * signal handler. */
JVMKIT_WALK_EXPORT jvmtiError JvmkitGetRecoveryCounters(jvmkitRecoveryCounters* counters);

/* Short names for reports ("stub_entry", "retry_failed"); "unknown" when out of range. */
JVMKIT_WALK_EXPORT const char* JvmkitRecoveryKindName(jvmkitRecoveryKind kind);
JVMKIT_WALK_EXPORT const char* JvmkitUnrecoveredReasonName(jvmkitUnrecoveredReason reason);

#ifdef __cplusplus
}
#endif

#endif /* JVMKIT_STACK_WALK_H */
