// The C API of include/jvmkit/native_state.h: argument checks, the spec's error convention, and
// the JNI side of identity (weak global references compared with IsSameObject). The table logic
// is in state_map.hpp.
#include "jvmkit/native_state.h"

#include <atomic>
#include <mutex>
#include <new>

#include "hotspot/java_thread.hpp"
#include "native_state/state_map.hpp"

using jvmkit::native_state::SetResult;
using jvmkit::native_state::StateMap;

namespace {

// The `native_state` fields of classes other than the table's (and not its subclasses) whose
// objects were stored in a table: GNU Classpath keeps objects of unrelated classes, each with its
// own field, in one table. Append-only, looked up without a lock; a class found in no slot (more
// than kSlots classes) has its field looked up on every call.
class ForeignFields {
 public:
  static constexpr int kSlots = 16;

  // The field of OBJ's class, or nullptr with NoSuchFieldError (or another exception) pending.
  // REMEMBER (writers only): cache a class not seen yet; readers stay lock-free and look an
  // unseen class's field up each time (it has no state in the table: only writers store).
  jfieldID of(JNIEnv* env, jobject obj, bool remember_class) {
    jclass clazz = env->GetObjectClass(obj);
    jfieldID field = find(env, clazz);
    if (field == nullptr) {
      field = env->GetFieldID(clazz, "native_state", "I");
      if (field != nullptr && remember_class) remember(env, clazz, field);
    }
    env->DeleteLocalRef(clazz);
    return field;
  }

  void release(JNIEnv* env) {
    for (int i = 0; i < count_.load(std::memory_order_acquire); i++) env->DeleteGlobalRef(slots_[i].clazz);
    count_.store(0);
  }

 private:
  struct Slot {
    jclass clazz;  // global reference
    jfieldID field;
  };

  jfieldID find(JNIEnv* env, jclass clazz) const {
    const int n = count_.load(std::memory_order_acquire);
    for (int i = 0; i < n; i++) {
      if (env->IsSameObject(slots_[i].clazz, clazz)) return slots_[i].field;
    }
    return nullptr;
  }

  void remember(JNIEnv* env, jclass clazz, jfieldID field) {
    std::lock_guard<std::mutex> lock(append_);
    if (find(env, clazz) != nullptr) return;
    const int n = count_.load(std::memory_order_relaxed);
    if (n == kSlots) return;
    jclass global = static_cast<jclass>(env->NewGlobalRef(clazz));
    if (global == nullptr) return;  // only the cache failed (no exception): the call goes on
    slots_[n] = Slot{global, field};
    count_.store(n + 1, std::memory_order_release);
  }

  Slot slots_[kSlots] = {};
  std::atomic<int> count_{0};
  std::mutex append_;
};

}  // namespace

struct state_table {
  jclass clazz = nullptr;    // global reference: objects of it and its subclasses use `field`
  jfieldID field = nullptr;  // the `int native_state` field holding the identity hash
  // Set once an object of another class was stored: from then on every call checks the class.
  // Until then, get_state costs what it always did (a table used with one class hierarchy).
  std::atomic<bool> mixed{false};
  ForeignFields foreign;
  StateMap<jweak> map;

  explicit state_table(size_t size) : map(size) {}
};

namespace {

// GNU Classpath's table size: the default starting size.
constexpr jint kDefaultSize = 97;

// Writer-side reference policy of StateMap for one call's object (see state_map.hpp).
class JniRefs {
 public:
  JniRefs(JNIEnv* env, jobject obj) : env_(env), obj_(obj) {}
  bool same(jweak r) const { return env_->IsSameObject(r, obj_) == JNI_TRUE; }
  jweak make() const { return env_->NewWeakGlobalRef(obj_); }
  void drop(jweak r) const { env_->DeleteWeakGlobalRef(r); }
  bool dead(jweak r) const { return env_->IsSameObject(r, nullptr) == JNI_TRUE; }

 private:
  JNIEnv* env_;
  jobject obj_;
};

void throw_new(JNIEnv* env, const char* class_name, const char* message) {
  jclass c = env->FindClass(class_name);
  if (c != nullptr) {
    env->ThrowNew(c, message);
    env->DeleteLocalRef(c);
  }  // else FindClass left its own error (e.g. OutOfMemoryError) pending
}

void throw_out_of_memory(JNIEnv* env, const char* what) {
  if (!env->ExceptionCheck()) throw_new(env, "java/lang/OutOfMemoryError", what);
}

// Whether the caller has an exception pending (every call then fails and leaves it as it is).
// ExceptionCheck is a transition into the VM and back, a third of get_state's cost; once
// init_state_table has checked the JavaThread layout, the thread's own field answers the same.
bool exception_pending(JNIEnv* env) {
  if (const jvmkit::hotspot::JavaThreadLayout* layout = jvmkit::hotspot::known_java_thread_layout()) {
    return layout->has_pending_exception(env);
  }
  return env->ExceptionCheck();
}

// The checks every high-level call starts with. False (with the exception pending) on failure.
bool check_object_call(JNIEnv* env, jobject obj, state_table* table) {
  if (exception_pending(env)) return false;  // leave the caller's exception as it is
  if (table == nullptr) {
    throw_new(env, "java/lang/NullPointerException", "native state table is NULL");
    return false;
  }
  if (obj == nullptr) {
    throw_new(env, "java/lang/NullPointerException", "native state object is NULL");
    return false;
  }
  return true;
}

// The lock of the low-level calls: LOCK's monitor for the whole call, or nothing when LOCK is NULL.
class OidLock {
 public:
  OidLock(JNIEnv* env, jobject lock) : env_(env), lock_(lock) {
    held_ = lock_ == nullptr || env_->MonitorEnter(lock_) == JNI_OK;
  }
  ~OidLock() {
    // MonitorExit is legal with an exception pending (e.g. one the operation raised).
    if (held_ && lock_ != nullptr) env_->MonitorExit(lock_);
  }
  bool held() const { return held_; }

 private:
  JNIEnv* env_;
  jobject lock_;
  bool held_;
};

// The `native_state` field to read OBJ's key from. A table that only ever stored objects of its
// class (and subclasses) answers without a JNI call; once it holds objects of other classes, an
// object that is not an instance of the table's class has its own class's field (nullptr with
// NoSuchFieldError pending when that class has none).
jfieldID object_field(JNIEnv* env, jobject obj, state_table* table) {
  if (!table->mixed.load(std::memory_order_acquire) || env->IsInstanceOf(obj, table->clazz)) return table->field;
  return table->foreign.of(env, obj, false);
}

bool check_oid_call(JNIEnv* env, state_table* table) {
  if (env->ExceptionCheck()) return false;
  if (table == nullptr) {
    throw_new(env, "java/lang/NullPointerException", "native state table is NULL");
    return false;
  }
  return true;
}

}  // namespace

extern "C" {

struct state_table* init_state_table_with_size(JNIEnv* env, jclass clazz, jint size) {
  if (env->ExceptionCheck()) return nullptr;
  if (clazz == nullptr) {
    throw_new(env, "java/lang/NullPointerException", "init_state_table: CLAZZ is NULL");
    return nullptr;
  }
  if (size <= 0) {
    throw_new(env, "java/lang/IllegalArgumentException", "init_state_table_with_size: SIZE must be >= 1");
    return nullptr;
  }
  // Missing, static or non-int field: GetFieldID fails with NoSuchFieldError pending.
  jfieldID field = env->GetFieldID(clazz, "native_state", "I");
  if (field == nullptr) return nullptr;
  // Once per process (a no-op after): lets exception_pending skip ExceptionCheck. On failure (an
  // unexpected JVM, or a virtual thread) ExceptionCheck stays in use.
  jvmkit::hotspot::learn_java_thread_layout(env);
  state_table* table = new (std::nothrow) state_table(static_cast<size_t>(size));
  if (table == nullptr || !table->map.ok()) {
    delete table;
    throw_out_of_memory(env, "init_state_table");
    return nullptr;
  }
  table->field = field;
  table->clazz = static_cast<jclass>(env->NewGlobalRef(clazz));
  if (table->clazz == nullptr) {
    delete table;
    throw_out_of_memory(env, "init_state_table");
    return nullptr;
  }
  return table;
}

struct state_table* init_state_table(JNIEnv* env, jclass clazz) {
  return init_state_table_with_size(env, clazz, kDefaultSize);
}

jint set_state(JNIEnv* env, jobject obj, struct state_table* table, void* state) {
  if (!check_object_call(env, obj, table)) return -1;
  jfieldID field = table->field;
  if (!env->IsInstanceOf(obj, table->clazz)) {
    // GNU Classpath's compatibility: an object of another class with its own field.
    field = table->foreign.of(env, obj, true);
    if (field == nullptr) return -1;  // NoSuchFieldError pending
    table->mixed.store(true, std::memory_order_release);
  }
  jint key = env->GetIntField(obj, field);
  JniRefs refs(env, obj);
  if (state == nullptr) {
    // GNU Classpath's compatibility: storing NULL leaves OBJ without a state.
    table->map.remove(key, refs);
    return 0;
  }
  if (table->map.set(key, state, refs) != SetResult::kOk) {
    throw_out_of_memory(env, "set_state");
    return -1;
  }
  return 0;
}

void* get_state(JNIEnv* env, jobject obj, struct state_table* table) {
  if (!check_object_call(env, obj, table)) return nullptr;
  jfieldID field = object_field(env, obj, table);
  if (field == nullptr) return nullptr;
  jint key = env->GetIntField(obj, field);
  return table->map.get(key, [env, obj](jweak r) { return env->IsSameObject(r, obj) == JNI_TRUE; });
}

void* remove_state_slot(JNIEnv* env, jobject obj, struct state_table* table) {
  if (!check_object_call(env, obj, table)) return nullptr;
  jfieldID field = object_field(env, obj, table);
  if (field == nullptr) return nullptr;
  jint key = env->GetIntField(obj, field);
  JniRefs refs(env, obj);
  return table->map.remove(key, refs);
}

void set_state_oid(JNIEnv* env, jobject lock, struct state_table* table, jint object_id, void* state) {
  if (!check_oid_call(env, table)) return;
  OidLock held(env, lock);
  if (!held.held()) return;
  JniRefs refs(env, nullptr);
  if (state == nullptr) {
    // As set_state: storing NULL leaves the id without a state.
    table->map.remove_oid(object_id, refs);
    return;
  }
  if (table->map.set_oid(object_id, state, refs) != SetResult::kOk) throw_out_of_memory(env, "set_state_oid");
}

void* get_state_oid(JNIEnv* env, jobject lock, struct state_table* table, jint object_id) {
  if (!check_oid_call(env, table)) return nullptr;
  OidLock held(env, lock);
  if (!held.held()) return nullptr;
  return table->map.get_oid(object_id);
}

void* remove_state_oid(JNIEnv* env, jobject lock, struct state_table* table, jint object_id) {
  if (!check_oid_call(env, table)) return nullptr;
  OidLock held(env, lock);
  if (!held.held()) return nullptr;
  JniRefs refs(env, nullptr);
  return table->map.remove_oid(object_id, refs);
}

jint sweep_state_table(JNIEnv* env, struct state_table* table, state_table_callback callback, void* arg) {
  if (!check_oid_call(env, table)) return -1;
  if (callback == nullptr) {
    throw_new(env, "java/lang/NullPointerException", "sweep_state_table: CALLBACK is NULL");
    return -1;
  }
  JniRefs refs(env, nullptr);
  size_t n = table->map.sweep(refs, [&](void* state) { callback(env, state, arg); });
  return static_cast<jint>(n);
}

void free_state_table(JNIEnv* env, struct state_table* table, state_table_callback callback, void* arg) {
  if (table == nullptr) return;
  JniRefs refs(env, nullptr);
  table->map.destroy(refs, [&](void* state) {
    if (callback != nullptr) callback(env, state, arg);
  });
  table->foreign.release(env);
  env->DeleteGlobalRef(table->clazz);
  delete table;
}

jint state_table_size(struct state_table* table) {
  if (table == nullptr) return -1;
  return static_cast<jint>(table->map.size());
}

}  // extern "C"
