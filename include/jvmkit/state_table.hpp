// jvmkit/state_table.hpp: EXTENSION. A typed C++ API over native_state.h, with RAII.
//
// jvmkit::StateTable<T> owns a state_table and the T objects bound in it: set() takes a
// std::unique_ptr<T>, remove() gives it back, sweep() and the destructor delete what is left.
// Errors are values, never exceptions: a failed call returns false / nullptr and leaves the Java
// exception pending, exactly as the C function it wraps (see native_state.h for every case).
//
//   auto table = jvmkit::StateTable<Peer>::create(env, clazz);   // empty optional on error
//   if (!table) return;                                         // Java exception pending
//   table->set(env, obj, std::make_unique<Peer>(...));
//   Peer* p = table->get(env, obj);                             // lock-free
//   std::unique_ptr<Peer> old = table->remove(env, obj);
//
// Threads: as native_state.h. The destructor must run when no other thread uses the table; it
// needs a JNIEnv, which it takes from the JavaVM (attaching the thread for the call if needed).
#pragma once

#include <jni.h>

#include <memory>
#include <optional>
#include <utility>

#include "jvmkit/native_state.h"

namespace jvmkit {

template <class T>
class StateTable {
 public:
  // A table for objects of CLAZZ (see init_state_table_with_size); empty on error.
  static std::optional<StateTable> create(JNIEnv* env, jclass clazz, jint size = 97) {
    JavaVM* vm = nullptr;
    if (env->ExceptionCheck() || env->GetJavaVM(&vm) != JNI_OK) return std::nullopt;
    state_table* t = init_state_table_with_size(env, clazz, size);
    if (t == nullptr) return std::nullopt;
    return StateTable(vm, t);
  }

  StateTable(StateTable&& other) noexcept
      : vm_(std::exchange(other.vm_, nullptr)), table_(std::exchange(other.table_, nullptr)) {}
  StateTable& operator=(StateTable&& other) noexcept {
    if (this != &other) {
      reset();
      vm_ = std::exchange(other.vm_, nullptr);
      table_ = std::exchange(other.table_, nullptr);
    }
    return *this;
  }
  StateTable(const StateTable&) = delete;
  StateTable& operator=(const StateTable&) = delete;
  ~StateTable() { reset(); }

  // OBJ's state, or nullptr (none, or an error with the exception pending). Lock-free.
  T* get(JNIEnv* env, jobject obj) const { return static_cast<T*>(get_state(env, obj, table_)); }

  // Binds STATE to OBJ; the table owns it from now on. Returns false on error (STATE is then
  // deleted, the exception pending). A state OBJ already had is deleted; a null STATE leaves OBJ
  // without one, as remove() followed by deleting the result. Note: replacing is a remove
  // followed by a set, so a concurrent get() may briefly see nullptr in between.
  bool set(JNIEnv* env, jobject obj, std::unique_ptr<T> state) {
    std::unique_ptr<T> old(static_cast<T*>(remove_state_slot(env, obj, table_)));
    if (!state) return !env->ExceptionCheck();
    if (env->ExceptionCheck()) return false;
    if (set_state(env, obj, table_, state.get()) != 0) return false;
    state.release();
    return true;
  }

  // Unbinds OBJ's state and gives it back (nullptr when it had none, or on error).
  std::unique_ptr<T> remove(JNIEnv* env, jobject obj) {
    return std::unique_ptr<T>(static_cast<T*>(remove_state_slot(env, obj, table_)));
  }

  // The low-level API: OBJECT_ID keys, LOCK's monitor held during the call (nullptr: none).
  T* get(JNIEnv* env, jobject lock, jint object_id) const {
    return static_cast<T*>(get_state_oid(env, lock, table_, object_id));
  }
  bool set(JNIEnv* env, jobject lock, jint object_id, std::unique_ptr<T> state) {
    std::unique_ptr<T> old(static_cast<T*>(remove_state_oid(env, lock, table_, object_id)));
    if (env->ExceptionCheck()) return false;
    if (!state) return true;  // as remove(), the old state deleted
    set_state_oid(env, lock, table_, object_id, state.get());
    if (env->ExceptionCheck()) return false;
    state.release();
    return true;
  }
  std::unique_ptr<T> remove(JNIEnv* env, jobject lock, jint object_id) {
    return std::unique_ptr<T>(static_cast<T*>(remove_state_oid(env, lock, table_, object_id)));
  }

  // Deletes the states of objects that have been collected; returns how many, or -1 on error.
  jint sweep(JNIEnv* env) { return sweep_state_table(env, table_, &delete_state, nullptr); }

  // Entries in the table (dead objects not yet swept included).
  jint size() const { return state_table_size(table_); }

  // The underlying C table, for code that mixes both APIs. Still owned by this object.
  state_table* c_table() const { return table_; }

 private:
  StateTable(JavaVM* vm, state_table* t) : vm_(vm), table_(t) {}

  static void delete_state(JNIEnv*, void* state, void*) { delete static_cast<T*>(state); }

  void reset() {
    if (table_ == nullptr) return;
    JNIEnv* env = nullptr;
    bool attached = false;
    if (vm_->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_6) == JNI_EDETACHED) {
      attached = vm_->AttachCurrentThreadAsDaemon(reinterpret_cast<void**>(&env), nullptr) == JNI_OK;
      if (!attached) env = nullptr;
    }
    if (env != nullptr) free_state_table(env, table_, &delete_state, nullptr);
    // Without an env (the VM is gone) the table's memory is left: there is nothing safe to do.
    if (attached) vm_->DetachCurrentThread();
    table_ = nullptr;
  }

  JavaVM* vm_ = nullptr;
  state_table* table_ = nullptr;
};

}  // namespace jvmkit
