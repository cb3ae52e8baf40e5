/*
 * jvmkit/stack_walk_native.h: native frames (C/C++, the JVM's own code, the kernel) in the same
 * traces as the Java frames: jvmkit's extension of the Unbiased Stack-Walk API, the follow-up the
 * JEP draft names ("It is currently not a goal to report native frames").
 *
 * Opting in takes two steps, and nothing changes for an agent that takes neither:
 *  1. JvmkitSetNativeFrames(JVMKIT_NATIVE_ON) before EnableRequestStackTrace: Enable then prepares
 *     unwind tables of every loaded object, and a watcher thread ("jvmkit native") prepares those
 *     loaded later (within 50 ms plus their preparation time, usually from the first sample that
 *     meets one plus that time; see docs/native_frames.md).
 *  2. JvmkitRequestStackTraceNative instead of RequestStackTrace, for the requests that want native
 *     frames: the JEP's callbacks, plus a jvmkitNativeRequest whose nativeFrame callback receives
 *     the native frames. RequestStackTrace itself never delivers one, so an agent written to the
 *     JEP alone sees exactly what it saw before, also when it shares the library with one that
 *     opted in.
 *
 * One trace is still beginStackTrace, frames leaf first, endStackTrace (or failure alone). Java
 * frames come to stackFrame, as always; native frames come to nativeFrame, at their real place
 * between them:
 *   kernel frames (the ones the request passed)
 *   the native frames above the top Java frame: C called from a native method (zlib's deflate,
 *     then Java_java_util_zip_Deflater_deflateBytesBytes), or the JVM's own code a Java thread is
 *     in (the allocation slow path, class loading), each run ending where it joins the Java frames
 *   the Java frames
 *   for a thread with no Java frames (a compiler thread, a GC worker, the VM thread): its native
 *     frames down to its first one (start_thread, clone3)
 * A run that cannot be unwound exactly to where it joins ends with one JVMKIT_FRAME_MARKER frame
 * that says why (jvmkitNativeEnd): never with a guessed frame.
 *
 * biased keeps the JEP's meaning: it describes the Java part.
 */
#ifndef JVMKIT_STACK_WALK_NATIVE_H
#define JVMKIT_STACK_WALK_NATIVE_H

#include <jvmkit/stack_walk.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Modes of JvmkitSetNativeFrames. */
#define JVMKIT_NATIVE_OFF 0  /* the default: no tables, JvmkitRequestStackTraceNative not available */
#define JVMKIT_NATIVE_ON 1   /* Enable prepares tables in the background and watches for new objects */
#define JVMKIT_NATIVE_WAIT 2 /* with JVMKIT_NATIVE_ON: Enable returns once the loaded objects are prepared */

/* Chooses whether the next EnableRequestStackTrace prepares native frames: JVMKIT_NATIVE_OFF, or
 * JVMKIT_NATIVE_ON optionally or'ed with JVMKIT_NATIVE_WAIT. Holds for every later Enable until set
 * again (Disable keeps it). With ON alone, Enable returns at once and samples taken before a
 * library is prepared end their native part with an unprepared_library marker; with WAIT, Enable
 * prepares every object loaded at that moment first (libjvm takes the longest: about a second of
 * CPU, see docs/native_frames.md). Returns:
 *  JVMTI_ERROR_NONE
 *  JVMTI_ERROR_ILLEGAL_ARGUMENT  mode is not one of the above (checked first; nothing changes)
 *  JVMTI_ERROR_WRONG_PHASE       the walker is enabled (as JvmkitSetMaxStackDepth)
 * Any thread but a signal handler. */
JVMKIT_WALK_EXPORT jvmtiError JvmkitSetNativeFrames(jint mode);

/* Why a native part ends at a JVMKIT_FRAME_MARKER frame. */
typedef enum {
  JVMKIT_NATIVE_END_UNPREPARED_LIBRARY = 0, /* a PC in an object whose table is not built (yet) */
  JVMKIT_NATIVE_END_UNKNOWN_CODE = 1,       /* a PC in no loaded object and not in the code cache */
  JVMKIT_NATIVE_END_NO_UNWIND_INFO = 2,     /* no call-frame information covers a PC */
  JVMKIT_NATIVE_END_UNSUPPORTED_RULE = 3,   /* a call-frame rule the signal-side table does not hold */
  JVMKIT_NATIVE_END_BAD_FRAME = 4,          /* a caller off the stack, not above its callee, or whose
                                               return address follows no call instruction */
  JVMKIT_NATIVE_END_DEPTH = 5,              /* more native frames than a request's storage holds */
  JVMKIT_NATIVE_END_JOIN_MISMATCH = 6,      /* reached Java code, but not the frame the thread's
                                               last-Java-frame anchor names */
  JVMKIT_NATIVE_END_NO_STACK_BOUNDS = 7,    /* the thread's stack bounds are unknown: its stack is
                                               not read, only the interrupted PC is given */
  JVMKIT_NATIVE_END_JAVA_UNWALKABLE = 8,    /* the native part joins Java frames that could not be
                                               walked from there */
  JVMKIT_NATIVE_END_NOT_CAPTURED = 9,       /* a trace taken later (another thread, served later):
                                               its native frames are unknown */
  JVMKIT_NATIVE_END_REASON_COUNT = 10
} jvmkitNativeEnd;

/* Flags of a jvmkitNativeFrame. */
#define JVMKIT_NATIVE_FRAME_CALLER 1     /* pc is a return address: its symbol is looked up at pc - 1 */
#define JVMKIT_NATIVE_FRAME_SIGNAL 2     /* pc is where a signal interrupted the code */
#define JVMKIT_NATIVE_FRAME_DEBUG_FILE 4 /* the symbol came from a separate debug file */
#define JVMKIT_NATIVE_FRAME_DYNSYM 8     /* the symbol came from the dynamic symbol table only */

typedef struct {
  jint size;             /* sizeof(jvmkitNativeFrame) of this jvmkit; fields are only ever added last */
  jvmtiFrameType kind;   /* JVMKIT_FRAME_NATIVE_CODE, _JVM, _KERNEL or _MARKER */
  jlong pc;              /* the absolute PC; for a marker, the PC that ended the native part when the
                            end is unknown_code or unprepared_library, else 0 */
  const char* symbol;    /* demangled name ("deflate", "JavaCalls::call_helper(...)"), or NULL */
  jlong symbol_offset;   /* pc - the symbol's start, with a symbol */
  const char* library;   /* the object's path, "[vdso]", "[code cache]" (HotSpot's stubs),
                            "[kernel.kallsyms]", or "[unknown]"; NULL for a marker */
  jlong library_offset;  /* pc - the object's load bias: the 0x1234 of libfoo.so+0x1234 */
  jint flags;            /* JVMKIT_NATIVE_FRAME_* */
  jvmkitNativeEnd end;   /* a marker: why the native part ends here */
  jlong function_offset; /* library offset of the start of the function holding pc: its symbol's, else
                            the start of its call-frame information (so that frames of one unnamed
                            function share libfoo.so+0x<function_offset>); -1 when unknown */
} jvmkitNativeFrame;     /* strings stay valid until DisableRequestStackTrace returns */

/* Called for each native frame, in stack order between the Java frames. Returns
 * JVMKIT_FRAME_CONTINUE or JVMKIT_FRAME_STOP, as stackFrame; either callback's STOP ends the
 * trace's frames (endStackTrace still comes). */
typedef jint(JNICALL* jvmkitNativeFrameCallback)(const jvmkitNativeFrame* frame, void* user_data);

#define JVMKIT_MAX_KERNEL_FRAMES 128

typedef struct {
  jint size;                             /* sizeof(jvmkitNativeRequest): checked */
  jvmkitNativeFrameCallback nativeFrame; /* must not be NULL */
  const jlong* kernel_pcs;               /* optional: the kernel call chain of this moment, leaf first
                                            (e.g. a perf_event sample's); copied */
  jint kernel_count;                     /* 0 .. JVMKIT_MAX_KERNEL_FRAMES */
} jvmkitNativeRequest;

/* RequestStackTrace with native frames: the same arguments, errors and one-outcome rule, and also
 *  JVMTI_ERROR_NOT_AVAILABLE     the walker was enabled without JvmkitSetNativeFrames(ON)
 *                                (counted under reject reason not_enabled);
 *  JVMTI_ERROR_NULL_POINTER      native or native->nativeFrame is NULL (reject reason null_argument);
 *  JVMTI_ERROR_ILLEGAL_ARGUMENT  native->size is smaller than this header's, or kernel_count is out
 *                                of range (reject reason null_argument).
 * Unlike RequestStackTrace, it accepts a request for the current thread on a thread of HotSpot's
 * own that has no java.lang.Thread (a compiler thread, a GC worker, the VM thread): its callbacks
 * get thread == NULL, and JvmkitCurrentTraceThread names it. A request for another thread (or one
 * served later) gets its Java frames at delivery, as RequestStackTrace's, after one
 * JVMKIT_NATIVE_END_NOT_CAPTURED marker. Async-signal-safe when thread is NULL. */
JVMKIT_WALK_EXPORT jvmtiError JvmkitRequestStackTraceNative(jvmtiEnv* env, jthread* thread, void* ucontext,
                                                            jvmtiStackTraceCallbacks callbacks,
                                                            const jvmkitNativeRequest* native, void* user_data);

/* The thread a trace was taken on. */
typedef struct {
  jint tid;             /* the kernel's thread id */
  jboolean java_thread; /* JNI_FALSE for HotSpot's own threads without a java.lang.Thread */
  /* the kernel's name of the thread (/proc/self/task/<tid>/comm), read at delivery at most once
   * a second per thread: a rename shows within a second */
  char name[16];
} jvmkitTraceThread;

/* Inside any callback of a JvmkitRequestStackTraceNative request, on the thread that runs it:
 * fills *out and returns JVMTI_ERROR_NONE. JVMTI_ERROR_NULL_POINTER for a NULL out;
 * JVMTI_ERROR_NOT_AVAILABLE anywhere else. */
JVMKIT_WALK_EXPORT jvmtiError JvmkitCurrentTraceThread(jvmkitTraceThread* out);

typedef struct {
  jlong requests;         /* accepted JvmkitRequestStackTraceNative requests */
  jlong native_only;      /* ... on threads without Java frames (HotSpot's own threads) */
  jlong frames_delivered; /* native, JVM and kernel frames delivered (markers not counted) */
  jlong runs;             /* native runs captured */
  jlong ended_at_java;    /* ... that joined the Java frames */
  jlong ended_outermost;  /* ... that reached the thread's first frame */
  jlong ended_by_reason[JVMKIT_NATIVE_END_REASON_COUNT]; /* ... and markers, by reason */
  jlong objects_prepared;                                /* loaded objects with an unwind table */
  jlong objects_failed;                                  /* loaded objects whose table could not be built */
  jlong unwind_rows;                                     /* rows in the current tables */
  jlong prepare_ns;                                      /* time spent building tables, in all */
} jvmkitNativeCounters;

/* Copies the native-frame totals since the library was loaded (the objects and rows: of the
 * current tables). JVMTI_ERROR_NULL_POINTER for a NULL counters, else JVMTI_ERROR_NONE. Any thread,
 * not from a signal handler. */
JVMKIT_WALK_EXPORT jvmtiError JvmkitGetNativeCounters(jvmkitNativeCounters* counters);

/* A short name for a jvmkitNativeEnd ("unprepared_library"); "unknown" when out of range. */
JVMKIT_WALK_EXPORT const char* JvmkitNativeEndName(jvmkitNativeEnd end);

#ifdef __cplusplus
}
#endif

#endif /* JVMKIT_STACK_WALK_NATIVE_H */
