/* A reimplementation, for the benchmarks only, of the design of GNU Classpath's original
 * native_state.c: one table-wide lock (MonitorEnter on the Class object) around every call, a fixed
 * array of 97 buckets with chained nodes keyed by the identity hash alone (colliding objects are
 * merged, the flaw jvmkit fixes), move-to-front of the found node on every get (a read writes), and
 * an ExceptionOccurred check after reading the key in every call on an object.
 * Written from the design, not from the Classpath source. */
#ifndef JVMKIT_BENCH_CLASSPATH_TABLE_H
#define JVMKIT_BENCH_CLASSPATH_TABLE_H

#include <jni.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cp_table;

struct cp_table* cp_init(JNIEnv* env, jclass clazz, jint size);
jint cp_set(JNIEnv* env, jobject obj, struct cp_table* table, void* state);
void* cp_get(JNIEnv* env, jobject obj, struct cp_table* table);
void* cp_remove(JNIEnv* env, jobject obj, struct cp_table* table);

#ifdef __cplusplus
}
#endif

#endif
