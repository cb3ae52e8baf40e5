/* Old-style C, as GNU Classpath's peers were written against native_state.h: the same include, the
 * same calls, no change. Built as strict C99 against the build tree (jvm.native_state.classpath_c)
 * and against an installed tree (tests/install). Java side: jvmkit.test.nativestate.ClasspathPeer. */
#include <jni.h>
#include <stdlib.h>
#include "native_state.h"

static struct state_table* native_state_table;

/* GNU Classpath's peers reached the table through macros of this shape (gtkpeer.h). */
#define NSA_GET_PTR(env, obj) get_state(env, obj, native_state_table)
#define NSA_SET_PTR(env, obj, ptr) set_state(env, obj, native_state_table, (void*)(ptr))
#define NSA_DEL_PTR(env, obj) remove_state_slot(env, obj, native_state_table)

struct peer_state {
  jint value;
};

JNIEXPORT jboolean JNICALL Java_jvmkit_test_nativestate_ClasspathPeer_initIDs(JNIEnv* env, jclass clazz) {
  native_state_table = init_state_table(env, clazz);
  return native_state_table != NULL ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jboolean JNICALL Java_jvmkit_test_nativestate_ClasspathPeer_create(JNIEnv* env, jobject obj, jint value) {
  struct peer_state* ps = (struct peer_state*)malloc(sizeof(struct peer_state));
  if (ps == NULL) return JNI_FALSE;
  ps->value = value;
  if (set_state(env, obj, native_state_table, ps) < 0) {
    free(ps);
    return JNI_FALSE;
  }
  return JNI_TRUE;
}

JNIEXPORT jint JNICALL Java_jvmkit_test_nativestate_ClasspathPeer_value(JNIEnv* env, jobject obj) {
  struct peer_state* ps = (struct peer_state*)get_state(env, obj, native_state_table);
  return ps != NULL ? ps->value : -1;
}

JNIEXPORT jboolean JNICALL Java_jvmkit_test_nativestate_ClasspathPeer_dispose(JNIEnv* env, jobject obj) {
  struct peer_state* ps = (struct peer_state*)remove_state_slot(env, obj, native_state_table);
  if (ps == NULL) return JNI_FALSE;
  free(ps);
  return JNI_TRUE;
}

JNIEXPORT jint JNICALL Java_jvmkit_test_nativestate_ClasspathPeer_oid(JNIEnv* env, jclass clazz, jint id, jint value) {
  struct peer_state *ps = (struct peer_state*)malloc(sizeof(struct peer_state)), *back;
  jint result;
  ps->value = value;
  set_state_oid(env, clazz, native_state_table, id, ps);
  back = (struct peer_state*)get_state_oid(env, clazz, native_state_table, id);
  result = back != NULL ? back->value : -1;
  free(remove_state_oid(env, clazz, native_state_table, id));
  return result;
}

/* ClasspathPeer.Graphics: an unrelated class with its own native_state field, kept in the table
 * made for ClasspathPeer (as Classpath kept GdkGraphics in GtkGenericPeer's), through the macros. */
JNIEXPORT jboolean JNICALL Java_jvmkit_test_nativestate_ClasspathPeer_00024Graphics_create(JNIEnv* env, jobject obj,
                                                                                           jint value) {
  struct peer_state* ps = (struct peer_state*)malloc(sizeof(struct peer_state));
  if (ps == NULL) return JNI_FALSE;
  ps->value = value;
  if (NSA_SET_PTR(env, obj, ps) < 0) {
    free(ps);
    return JNI_FALSE;
  }
  return JNI_TRUE;
}

JNIEXPORT jint JNICALL Java_jvmkit_test_nativestate_ClasspathPeer_00024Graphics_value(JNIEnv* env, jobject obj) {
  struct peer_state* ps = (struct peer_state*)NSA_GET_PTR(env, obj);
  return ps != NULL ? ps->value : -1;
}

/* Classpath cleared a pointer by storing NULL: the object is left without a state. */
JNIEXPORT jboolean JNICALL Java_jvmkit_test_nativestate_ClasspathPeer_00024Graphics_clear(JNIEnv* env, jobject obj) {
  struct peer_state* ps = (struct peer_state*)NSA_GET_PTR(env, obj);
  if (NSA_SET_PTR(env, obj, NULL) != 0) return JNI_FALSE;
  free(ps);
  return JNI_TRUE;
}

JNIEXPORT jboolean JNICALL Java_jvmkit_test_nativestate_ClasspathPeer_00024Graphics_dispose(JNIEnv* env, jobject obj) {
  struct peer_state* ps = (struct peer_state*)NSA_DEL_PTR(env, obj);
  if (ps == NULL) return JNI_FALSE;
  free(ps);
  return JNI_TRUE;
}
