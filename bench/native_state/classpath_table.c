#include "classpath_table.h"

#include <stdlib.h>

struct cp_node {
  jint key;
  void* state;
  struct cp_node* next;
};

struct cp_table {
  jint size;
  jfieldID hash;
  jclass clazz; /* the lock */
  struct cp_node** head;
};

struct cp_table* cp_init(JNIEnv* env, jclass clazz, jint size) {
  struct cp_table* t = (struct cp_table*)malloc(sizeof *t);
  t->size = size;
  t->hash = (*env)->GetFieldID(env, clazz, "native_state", "I");
  t->clazz = (jclass)(*env)->NewGlobalRef(env, clazz);
  t->head = (struct cp_node**)calloc((size_t)size, sizeof(struct cp_node*));
  return t;
}

static jint bucket(struct cp_table* t, jint key) {
  jint b = key % t->size;
  return b < 0 ? -b : b;
}

/* The original reads the key, then asks the VM whether that raised an exception
 * (ExceptionOccurred, a transition into the VM) before it takes the monitor: every high-level call
 * pays it. Returns nonzero when the call must fail. */
static int read_key(JNIEnv* env, jobject obj, struct cp_table* t, jint* key) {
  *key = (*env)->GetIntField(env, obj, t->hash);
  return (*env)->ExceptionOccurred(env) != NULL;
}

/* Finds KEY's node and moves it to the front of its chain (the original's "cache"). */
static struct cp_node* find_mtf(struct cp_table* t, jint key) {
  struct cp_node** slot = &t->head[bucket(t, key)];
  struct cp_node *prev = NULL, *n = *slot;
  while (n != NULL && n->key != key) {
    prev = n;
    n = n->next;
  }
  if (n != NULL && prev != NULL) {
    prev->next = n->next;
    n->next = *slot;
    *slot = n;
  }
  return n;
}

jint cp_set(JNIEnv* env, jobject obj, struct cp_table* t, void* state) {
  jint key;
  struct cp_node* n;
  if (read_key(env, obj, t, &key)) return -1;
  if ((*env)->MonitorEnter(env, t->clazz) != 0) return -1;
  n = find_mtf(t, key);
  if (n != NULL) {
    n->state = state;
  } else {
    n = (struct cp_node*)malloc(sizeof *n);
    n->key = key;
    n->state = state;
    n->next = t->head[bucket(t, key)];
    t->head[bucket(t, key)] = n;
  }
  (*env)->MonitorExit(env, t->clazz);
  return 0;
}

void* cp_get(JNIEnv* env, jobject obj, struct cp_table* t) {
  jint key;
  struct cp_node* n;
  void* s;
  if (read_key(env, obj, t, &key)) return NULL;
  if ((*env)->MonitorEnter(env, t->clazz) != 0) return NULL;
  n = find_mtf(t, key);
  s = n != NULL ? n->state : NULL;
  (*env)->MonitorExit(env, t->clazz);
  return s;
}

void* cp_remove(JNIEnv* env, jobject obj, struct cp_table* t) {
  jint key;
  struct cp_node **p, *n;
  void* s = NULL;
  if (read_key(env, obj, t, &key)) return NULL;
  if ((*env)->MonitorEnter(env, t->clazz) != 0) return NULL;
  for (p = &t->head[bucket(t, key)]; (n = *p) != NULL; p = &n->next) {
    if (n->key == key) {
      *p = n->next;
      s = n->state;
      free(n);
      break;
    }
  }
  (*env)->MonitorExit(env, t->clazz);
  return s;
}
