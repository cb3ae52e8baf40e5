/*
 * jvmkit/native_state.h: the GNU Classpath Native State API (version 0.99.1), implemented by
 * libjvmkit_state. A drop-in for C code written for GNU Classpath: `#include "native_state.h"` with
 * -I<prefix>/include/jvmkit (pkg-config jvmkit-state gives it) and link with -ljvmkit_state.
 *
 * The eight functions of the spec keep its names, signatures and return conventions. Everything
 * jvmkit adds is an extension, marked "EXTENSION" below, with a name the spec does not use.
 *
 * Error convention (the spec's): a function that fails returns NULL or a negative value, and a Java
 * exception may then be pending in ENV. It is never cleared; dealing with it is the caller's job.
 * In particular, when an exception is ALREADY pending on entry, every function fails at once
 * (NULL / -1 / nothing done), calls no JNI function that would be illegal with a pending
 * exception, and leaves that exception exactly as it was.
 *
 * Thread safety: every function may be called from any thread attached to the JVM, concurrently,
 * on the same table, except free_state_table (which must be the last call on its table).
 * get_state and get_state_oid with a NULL LOCK never block and write no memory shared with other
 * threads (details and the correctness argument: docs/native_state.md).
 *
 * Identity: a table keys its entries by the object's `native_state` value (its identity hash) AND
 * by the object itself (a weak global reference compared with IsSameObject). Two live objects whose
 * identity hashes are equal never share a state, and a new object never sees the state of a dead
 * object that had the same hash. The table does not keep objects alive.
 */
#ifndef JVMKIT_NATIVE_STATE_H
#define JVMKIT_NATIVE_STATE_H

#include <jni.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define JVMKIT_STATE_EXPORT __attribute__((visibility("default")))
#else
#define JVMKIT_STATE_EXPORT
#endif

/* A table mapping Java objects (high-level API) or jint object ids (low-level API) to C states
 * (void *, never NULL). Opaque: use it only through the functions below. One table may serve both
 * APIs at once: an object and an object id never match each other. */
struct state_table;

/* ------------------------------------------------------------------------------------------------
 * High-level API
 *
 * OBJ must be an instance of CLAZZ (or of a subclass) whose `final int native_state` field (an
 * instance field of CLAZZ or a superclass) holds System.identityHashCode(OBJ). The field is looked
 * up once, in init_state_table*, and read on every call. Passing an object of another class is
 * undefined, as for any JNI field access with a foreign jfieldID (set_state checks it, see below).
 * ---------------------------------------------------------------------------------------------- */

/* Creates a table of the default size (97, the size GNU Classpath used) for objects of CLAZZ.
 * Returns NULL on error:
 *  - CLAZZ has no instance field `native_state` of type int (missing, static, or another type):
 *    NoSuchFieldError pending (raised by GetFieldID);
 *  - CLAZZ is NULL: NullPointerException pending;
 *  - out of memory: OutOfMemoryError pending;
 *  - an exception pending on entry: it is left as it was.
 * The table holds a global reference to CLAZZ until free_state_table. */
JVMKIT_STATE_EXPORT struct state_table* init_state_table(JNIEnv* env, jclass clazz);

/* Like init_state_table, with a starting size of SIZE entries. SIZE need not be prime (the spec asks
 * for a prime; any SIZE >= 1 works): it is a starting capacity, and the table grows as needed.
 * Returns NULL on error, as init_state_table, and also when SIZE <= 0, with
 * IllegalArgumentException pending. */
JVMKIT_STATE_EXPORT struct state_table* init_state_table_with_size(JNIEnv* env, jclass clazz, jint size);

/* Associates STATE with OBJ in TABLE, replacing any state OBJ had. Returns 0 on success, and a
 * negative value on failure:
 *  - OBJ is NULL: -1, NullPointerException pending;
 *  - OBJ's class has no instance field `native_state` of type int: -1, NoSuchFieldError pending;
 *  - TABLE is NULL: -1, NullPointerException pending;
 *  - out of memory (entry or weak reference): -1, OutOfMemoryError pending;
 *  - an exception pending on entry: -1, the exception left as it was, nothing changed.
 * Compatibility with GNU Classpath's implementation, whose C code relies on both:
 *  - STATE may be NULL (the spec says it must not be): returns 0, and OBJ is left without a state,
 *    exactly as after remove_state_slot (the table does not grow from it);
 *  - OBJ need not be an instance of the table's class: an object of any class that has its own
 *    `final int native_state` field may be kept in the table (its class's field is looked up once
 *    and cached). From the first such object on, the table's calls check each object's class
 *    (one JNI call more); until then get_state and remove_state_slot take OBJ to be of the table's
 *    class, as the spec does.
 * Reentrant: set_state, get_state and remove_state_slot may be called at the same time, from any
 * threads. Writers (set/remove, both APIs) are serialised per table by an internal lock. */
JVMKIT_STATE_EXPORT jint set_state(JNIEnv* env, jobject obj, struct state_table* table, void* state);

/* Returns the state associated with OBJ in TABLE, or NULL when there is none or on failure:
 *  - OBJ is NULL: NULL, NullPointerException pending;
 *  - TABLE is NULL: NULL, NullPointerException pending;
 *  - an exception pending on entry: NULL, the exception left as it was.
 * Lock-free: it never blocks and writes no memory shared with other threads (it announces itself
 * in a slot that only the calling thread writes). Reentrant, as set_state. */
JVMKIT_STATE_EXPORT void* get_state(JNIEnv* env, jobject obj, struct state_table* table);

/* Removes OBJ's entry from TABLE and returns the state it held, or NULL when OBJ had none (or on
 * failure, with the same cases as get_state). After it returns, get_state(OBJ) returns NULL until
 * the next set_state. Usually called from the class's finalize() method (supported: a JNI weak
 * reference still resolves to an object that is being finalized), or see the EXTENSION
 * sweep_state_table for classes cleaned with java.lang.ref.Cleaner. Reentrant, as set_state. */
JVMKIT_STATE_EXPORT void* remove_state_slot(JNIEnv* env, jobject obj, struct state_table* table);

/* ------------------------------------------------------------------------------------------------
 * Low-level API: states keyed by any jint OBJECT_ID (negative values and INT_MIN included).
 *
 * On entry a lock is obtained on LOCK's monitor (MonitorEnter), and it is released (MonitorExit) on
 * exit, as the spec says: a Java thread inside `synchronized (LOCK)` holds these calls off.
 * EXTENSION: LOCK may be NULL, meaning "internal synchronisation only" (get_state_oid then never
 * blocks; set/remove are still serialised among themselves by the table's internal lock).
 * Failures (void functions report them only through the pending exception):
 *  - an exception pending on entry: nothing is done, NULL returned, the exception left as it was;
 *  - TABLE is NULL: NullPointerException pending;
 *  - MonitorEnter fails: the exception it raised is pending, nothing is done;
 *  - set_state_oid with a NULL STATE: not an error (as in GNU Classpath's implementation): the id
 *    is left without a state, as after remove_state_oid;
 *  - out of memory in set_state_oid: OutOfMemoryError pending, nothing is done.
 * ---------------------------------------------------------------------------------------------- */

/* Associates STATE (not NULL) with OBJECT_ID in TABLE, replacing any previous state. */
JVMKIT_STATE_EXPORT void set_state_oid(JNIEnv* env, jobject lock, struct state_table* table, jint object_id,
                                       void* state);

/* Returns the state associated with OBJECT_ID in TABLE, or NULL when there is none. */
JVMKIT_STATE_EXPORT void* get_state_oid(JNIEnv* env, jobject lock, struct state_table* table, jint object_id);

/* Removes OBJECT_ID's entry and returns its state, or NULL when it had none. After it returns,
 * get_state_oid(OBJECT_ID) returns NULL until the next set_state_oid. */
JVMKIT_STATE_EXPORT void* remove_state_oid(JNIEnv* env, jobject lock, struct state_table* table, jint object_id);

/* ------------------------------------------------------------------------------------------------
 * EXTENSIONS (not in the GNU Classpath spec)
 * ---------------------------------------------------------------------------------------------- */

/* EXTENSION: a callback receiving a state the table lets go of. ENV is the caller's JNIEnv; the
 * callback may call JNI functions but must not call functions of this header on the same table
 * (the table's writer lock is held while it runs). ARG is the caller's, unchanged. */
typedef void (*state_table_callback)(JNIEnv* env, void* state, void* arg);

/* EXTENSION: hands the state of every entry whose object has been garbage-collected to CALLBACK
 * (which typically frees it), removes those entries, and returns how many there were (>= 0), or -1
 * on failure (TABLE or CALLBACK NULL: NullPointerException pending; an exception pending on entry:
 * left as it was). Object-id entries (low-level API) are never swept: they have no object.
 * This is how states of classes cleaned with java.lang.ref.Cleaner (or not cleaned at all) are
 * reclaimed: the Cleaner action cannot reach the object, so it calls a native method that sweeps.
 * It may run concurrently with every other function of this header except free_state_table. */
JVMKIT_STATE_EXPORT jint sweep_state_table(JNIEnv* env, struct state_table* table, state_table_callback callback,
                                           void* arg);

/* EXTENSION: destroys TABLE: hands every remaining state (of live and dead objects, and of object
 * ids) to CALLBACK when it is not NULL, deletes the table's JNI references and frees its memory.
 * It must be the last call on TABLE: no other thread may be using it, or start to. A NULL TABLE is
 * ignored. Works with an exception pending (it only deletes references, which JNI allows then),
 * but CALLBACK is then responsible for not calling JNI functions that are illegal in that state. */
JVMKIT_STATE_EXPORT void free_state_table(JNIEnv* env, struct state_table* table, state_table_callback callback,
                                          void* arg);

/* EXTENSION: the number of entries (objects and object ids with a state) in TABLE, dead objects not
 * yet swept included; -1 when TABLE is NULL. A snapshot, for tests and diagnostics. Lock-free. */
JVMKIT_STATE_EXPORT jint state_table_size(struct state_table* table);

#ifdef __cplusplus
}
#endif

#endif /* JVMKIT_NATIVE_STATE_H */
