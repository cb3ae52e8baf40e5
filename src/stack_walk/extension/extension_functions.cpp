#include "stack_walk/extension/extension_functions.hpp"

#include <jvmkit/stack_walk.h>
#include <jvmkit/stack_walk_native.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

namespace jvmkit::walk::extension {
namespace {

// ---- jvmkit's own extensions: the C functions take no jvmtiEnv, extension functions must. ----

jvmtiError JNICALL get_stack_walk_counters(jvmtiEnv*, jvmkitStackWalkCounters* counters) {
  return JvmkitGetStackWalkCounters(counters);
}
jvmtiError JNICALL get_recovery_counters(jvmtiEnv*, jvmkitRecoveryCounters* counters) {
  return JvmkitGetRecoveryCounters(counters);
}
jvmtiError JNICALL set_java_vm(jvmtiEnv*, JavaVM* vm) { return JvmkitSetJavaVM(vm); }
jvmtiError JNICALL get_current_failure_reason(jvmtiEnv*, jint* reason) {
  if (reason == nullptr) return JVMTI_ERROR_NULL_POINTER;
  *reason = JvmkitCurrentFailureReason();
  return JVMTI_ERROR_NONE;
}
jvmtiError JNICALL set_max_stack_depth(jvmtiEnv*, jint max_frames) { return JvmkitSetMaxStackDepth(max_frames); }
jvmtiError JNICALL get_current_trace_truncated(jvmtiEnv*, jboolean* truncated) {
  if (truncated == nullptr) return JVMTI_ERROR_NULL_POINTER;
  *truncated = JvmkitCurrentTraceTruncated();
  return JVMTI_ERROR_NONE;
}
jvmtiError JNICALL get_current_trace_served_later(jvmtiEnv*, jboolean* served_later) {
  if (served_later == nullptr) return JVMTI_ERROR_NULL_POINTER;
  *served_later = JvmkitCurrentTraceServedLater();
  return JVMTI_ERROR_NONE;
}
jvmtiError JNICALL get_current_trace_time(jvmtiEnv*, jlong* time_ns) {
  if (time_ns == nullptr) return JVMTI_ERROR_NULL_POINTER;
  *time_ns = JvmkitCurrentTraceTime();
  return JVMTI_ERROR_NONE;
}
jvmtiError JNICALL set_native_frames(jvmtiEnv*, jint mode) { return JvmkitSetNativeFrames(mode); }
jvmtiError JNICALL get_current_trace_thread(jvmtiEnv*, jvmkitTraceThread* thread) {
  return JvmkitCurrentTraceThread(thread);
}
jvmtiError JNICALL set_carrier_frames(jvmtiEnv*, jboolean include) { return JvmkitSetCarrierFrames(include); }
jvmtiError JNICALL get_current_virtual_thread_id(jvmtiEnv*, jlong* id) {
  if (id == nullptr) return JVMTI_ERROR_NULL_POINTER;
  *id = JvmkitCurrentVirtualThreadId();
  return JVMTI_ERROR_NONE;
}
jvmtiError JNICALL get_current_carrier_thread(jvmtiEnv*, jthread* carrier) {
  if (carrier == nullptr) return JVMTI_ERROR_NULL_POINTER;
  *carrier = JvmkitCurrentCarrierThread();
  return JVMTI_ERROR_NONE;
}
jvmtiError JNICALL get_native_counters(jvmtiEnv*, jvmkitNativeCounters* counters) {
  return JvmkitGetNativeCounters(counters);
}

// ---- What GetExtensionFunctions reports about each function (jvmtiExtensionFunctionInfo). ----

struct Param {
  const char* name;
  jvmtiParamKind kind;
  jvmtiParamTypes base_type;
  bool null_ok;
};

struct Function {
  jvmtiExtensionFunction func;
  const char* id;
  const char* description;
  std::vector<Param> params;       // after the jvmtiEnv*, which every extension function takes first
  std::vector<jvmtiError> errors;  // the non-universal ones, as JVMTI lists them
};

template <typename F>
jvmtiExtensionFunction as_extension(F f) {
  return reinterpret_cast<jvmtiExtensionFunction>(f);
}

// JVMTI's parameter types have no struct passed by value: RequestStackTrace's callbacks are listed
// as kind IN of type CVOID, and the description gives the C prototype to cast the pointer to.
const std::array<Function, 19>& functions() {
  static const std::array<Function, 19> table = {{
      {as_extension(&RequestStackTrace),
       "com.sun.hotspot.functions.RequestStackTrace",
       "jvmtiError RequestStackTrace(jvmtiEnv* env, jthread* thread, void* ucontext, jvmtiStackTraceCallbacks "
       "callbacks, void* user_data): requests a stack trace of the current thread (thread NULL; with the "
       "ucontext of a signal handler, unbiased) or of another thread (biased), reported later through the "
       "callbacks (a struct passed by value). Async-signal-safe. Unbiased Stack-Walk API.",
       {{"thread", JVMTI_KIND_IN_PTR, JVMTI_TYPE_JTHREAD, true},
        {"ucontext", JVMTI_KIND_IN_PTR, JVMTI_TYPE_CVOID, true},
        {"callbacks", JVMTI_KIND_IN, JVMTI_TYPE_CVOID, false},
        {"user_data", JVMTI_KIND_IN_PTR, JVMTI_TYPE_CVOID, true}},
       {JVMTI_ERROR_INVALID_THREAD, JVMTI_ERROR_NOT_AVAILABLE}},
      {as_extension(&EnableRequestStackTrace),
       "com.sun.hotspot.functions.EnableRequestStackTrace",
       "jvmtiError EnableRequestStackTrace(jvmtiEnv* env): enables RequestStackTrace, from Agent_OnLoad on. "
       "Unbiased Stack-Walk API.",
       {},
       {JVMTI_ERROR_NOT_AVAILABLE}},
      {as_extension(&DisableRequestStackTrace),
       "com.sun.hotspot.functions.DisableRequestStackTrace",
       "jvmtiError DisableRequestStackTrace(jvmtiEnv* env): disables RequestStackTrace; returns once every "
       "accepted request has had its outcome. Unbiased Stack-Walk API.",
       {},
       {JVMTI_ERROR_NOT_AVAILABLE}},
      {as_extension(&get_stack_walk_counters),
       "jvmkit.functions.GetStackWalkCounters",
       "jvmtiError GetStackWalkCounters(jvmtiEnv* env, jvmkitStackWalkCounters* counters): "
       "JvmkitGetStackWalkCounters (jvmkit/stack_walk.h).",
       {{"counters", JVMTI_KIND_OUT_BUF, JVMTI_TYPE_CVOID, false}},
       {}},
      {as_extension(&get_recovery_counters),
       "jvmkit.functions.GetRecoveryCounters",
       "jvmtiError GetRecoveryCounters(jvmtiEnv* env, jvmkitRecoveryCounters* counters): "
       "JvmkitGetRecoveryCounters (jvmkit/stack_walk.h).",
       {{"counters", JVMTI_KIND_OUT_BUF, JVMTI_TYPE_CVOID, false}},
       {}},
      {as_extension(&set_java_vm),
       "jvmkit.functions.SetJavaVM",
       "jvmtiError SetJavaVM(jvmtiEnv* env, JavaVM* vm): JvmkitSetJavaVM (jvmkit/stack_walk.h).",
       {{"vm", JVMTI_KIND_IN_PTR, JVMTI_TYPE_CVOID, false}},
       {}},
      {as_extension(&get_current_failure_reason),
       "jvmkit.functions.GetCurrentFailureReason",
       "jvmtiError GetCurrentFailureReason(jvmtiEnv* env, jint* reason): JvmkitCurrentFailureReason "
       "(jvmkit/stack_walk.h), for use inside a failure callback.",
       {{"reason", JVMTI_KIND_OUT, JVMTI_TYPE_JINT, false}},
       {}},
      {as_extension(&set_max_stack_depth),
       "jvmkit.functions.SetMaxStackDepth",
       "jvmtiError SetMaxStackDepth(jvmtiEnv* env, jint max_frames): JvmkitSetMaxStackDepth "
       "(jvmkit/stack_walk.h), the most frames a trace holds from the next Enable on (1..65536, default 2048); "
       "JVMTI_ERROR_WRONG_PHASE while enabled.",
       {{"max_frames", JVMTI_KIND_IN, JVMTI_TYPE_JINT, false}},
       {JVMTI_ERROR_ILLEGAL_ARGUMENT}},
      {as_extension(&get_current_trace_truncated),
       "jvmkit.functions.GetCurrentTraceTruncated",
       "jvmtiError GetCurrentTraceTruncated(jvmtiEnv* env, jboolean* truncated): JvmkitCurrentTraceTruncated "
       "(jvmkit/stack_walk.h), for use inside the callbacks of a trace.",
       {{"truncated", JVMTI_KIND_OUT, JVMTI_TYPE_JBOOLEAN, false}},
       {}},
      {as_extension(&get_current_trace_served_later),
       "jvmkit.functions.GetCurrentTraceServedLater",
       "jvmtiError GetCurrentTraceServedLater(jvmtiEnv* env, jboolean* served_later): JvmkitCurrentTraceServedLater "
       "(jvmkit/stack_walk.h), for use inside the callbacks of a trace.",
       {{"served_later", JVMTI_KIND_OUT, JVMTI_TYPE_JBOOLEAN, false}},
       {}},
      {as_extension(&get_current_trace_time),
       "jvmkit.functions.GetCurrentTraceTime",
       "jvmtiError GetCurrentTraceTime(jvmtiEnv* env, jlong* time_ns): JvmkitCurrentTraceTime "
       "(jvmkit/stack_walk.h), the CLOCK_MONOTONIC ns of the request, for use inside the callbacks of a trace.",
       {{"time_ns", JVMTI_KIND_OUT, JVMTI_TYPE_JLONG, false}},
       {}},
      {as_extension(&JvmkitRequestStackTraceNative),
       "jvmkit.functions.RequestStackTraceNative",
       "jvmtiError RequestStackTraceNative(jvmtiEnv* env, jthread* thread, void* ucontext, jvmtiStackTraceCallbacks "
       "callbacks, const jvmkitNativeRequest* native, void* user_data): JvmkitRequestStackTraceNative "
       "(jvmkit/stack_walk_native.h), RequestStackTrace with native frames (callbacks by value). "
       "Async-signal-safe for the current thread.",
       {{"thread", JVMTI_KIND_IN_PTR, JVMTI_TYPE_JTHREAD, true},
        {"ucontext", JVMTI_KIND_IN_PTR, JVMTI_TYPE_CVOID, true},
        {"callbacks", JVMTI_KIND_IN, JVMTI_TYPE_CVOID, false},
        {"native", JVMTI_KIND_IN_PTR, JVMTI_TYPE_CVOID, false},
        {"user_data", JVMTI_KIND_IN_PTR, JVMTI_TYPE_CVOID, true}},
       {JVMTI_ERROR_INVALID_THREAD, JVMTI_ERROR_NOT_AVAILABLE, JVMTI_ERROR_ILLEGAL_ARGUMENT}},
      {as_extension(&set_native_frames),
       "jvmkit.functions.SetNativeFrames",
       "jvmtiError SetNativeFrames(jvmtiEnv* env, jint mode): JvmkitSetNativeFrames (jvmkit/stack_walk_native.h), "
       "JVMKIT_NATIVE_OFF (0), JVMKIT_NATIVE_ON (1), or ON|WAIT (3), before Enable.",
       {{"mode", JVMTI_KIND_IN, JVMTI_TYPE_JINT, false}},
       {JVMTI_ERROR_ILLEGAL_ARGUMENT}},
      {as_extension(&get_current_trace_thread),
       "jvmkit.functions.GetCurrentTraceThread",
       "jvmtiError GetCurrentTraceThread(jvmtiEnv* env, jvmkitTraceThread* thread): JvmkitCurrentTraceThread "
       "(jvmkit/stack_walk_native.h), inside the callbacks of a native request.",
       {{"thread", JVMTI_KIND_OUT_BUF, JVMTI_TYPE_CVOID, false}},
       {JVMTI_ERROR_NOT_AVAILABLE}},
      {as_extension(&get_native_counters),
       "jvmkit.functions.GetNativeCounters",
       "jvmtiError GetNativeCounters(jvmtiEnv* env, jvmkitNativeCounters* counters): JvmkitGetNativeCounters "
       "(jvmkit/stack_walk_native.h).",
       {{"counters", JVMTI_KIND_OUT_BUF, JVMTI_TYPE_CVOID, false}},
       {}},
      {as_extension(&JvmkitRequestCurrentStackTrace),
       "jvmkit.functions.RequestCurrentStackTrace",
       "jvmtiError RequestCurrentStackTrace(jvmtiEnv* env, jvmtiStackTraceCallbacks callbacks, void* user_data): "
       "JvmkitRequestCurrentStackTrace (jvmkit/stack_walk.h), the calling thread's stack from normal context "
       "(callbacks by value); not async-signal-safe.",
       {{"callbacks", JVMTI_KIND_IN, JVMTI_TYPE_CVOID, false},
        {"user_data", JVMTI_KIND_IN_PTR, JVMTI_TYPE_CVOID, true}},
       {JVMTI_ERROR_NOT_AVAILABLE}},
      {as_extension(&set_carrier_frames),
       "jvmkit.functions.SetCarrierFrames",
       "jvmtiError SetCarrierFrames(jvmtiEnv* env, jboolean include): JvmkitSetCarrierFrames "
       "(jvmkit/stack_walk.h), whether a virtual thread's traces go on with its carrier's frames.",
       {{"include", JVMTI_KIND_IN, JVMTI_TYPE_JBOOLEAN, false}},
       {}},
      {as_extension(&get_current_virtual_thread_id),
       "jvmkit.functions.GetCurrentVirtualThreadId",
       "jvmtiError GetCurrentVirtualThreadId(jvmtiEnv* env, jlong* id): JvmkitCurrentVirtualThreadId "
       "(jvmkit/stack_walk.h), inside the callbacks of a trace.",
       {{"id", JVMTI_KIND_OUT, JVMTI_TYPE_JLONG, false}},
       {}},
      {as_extension(&get_current_carrier_thread),
       "jvmkit.functions.GetCurrentCarrierThread",
       "jvmtiError GetCurrentCarrierThread(jvmtiEnv* env, jthread* carrier): JvmkitCurrentCarrierThread "
       "(jvmkit/stack_walk.h), inside the callbacks of a trace of a virtual thread.",
       {{"carrier", JVMTI_KIND_OUT, JVMTI_TYPE_JTHREAD, false}},
       {}},
  }};
  return table;
}

// ---- Memory the caller frees with Deallocate, as the JVMTI specification says. ----

template <typename T>
jvmtiError allocate(jvmtiEnv* env, size_t count, T** out) {
  *out = nullptr;
  if (count == 0) return JVMTI_ERROR_NONE;
  unsigned char* memory = nullptr;
  jvmtiError err = env->Allocate(static_cast<jlong>(count * sizeof(T)), &memory);
  if (err == JVMTI_ERROR_NONE) {
    std::memset(memory, 0, count * sizeof(T));
    *out = reinterpret_cast<T*>(memory);
  }
  return err;
}

jvmtiError copy_string(jvmtiEnv* env, const char* text, char** out) {
  jvmtiError err = allocate(env, std::strlen(text) + 1, out);
  if (err == JVMTI_ERROR_NONE) std::strcpy(*out, text);
  return err;
}

void deallocate(jvmtiEnv* env, void* memory) {
  if (memory != nullptr) env->Deallocate(static_cast<unsigned char*>(memory));
}

// Frees what describe() allocated, also a partial description.
void release(jvmtiEnv* env, jvmtiExtensionFunctionInfo& info) {
  deallocate(env, info.id);
  deallocate(env, info.short_description);
  for (jint i = 0; info.params != nullptr && i < info.param_count; i++) deallocate(env, info.params[i].name);
  deallocate(env, info.params);
  deallocate(env, info.errors);
  info = jvmtiExtensionFunctionInfo{};
}

jvmtiError describe(jvmtiEnv* env, const Function& f, jvmtiExtensionFunctionInfo* info) {
  *info = jvmtiExtensionFunctionInfo{};
  info->func = f.func;
  jvmtiError err = copy_string(env, f.id, &info->id);
  if (err == JVMTI_ERROR_NONE) err = copy_string(env, f.description, &info->short_description);
  if (err == JVMTI_ERROR_NONE) err = allocate(env, f.params.size(), &info->params);
  if (err == JVMTI_ERROR_NONE) {
    info->param_count = static_cast<jint>(f.params.size());
    jint i = 0;
    for (const Param& p : f.params) {
      jvmtiParamInfo& out = info->params[i++];
      out.kind = p.kind;
      out.base_type = p.base_type;
      out.null_ok = p.null_ok ? JNI_TRUE : JNI_FALSE;
      if (err == JVMTI_ERROR_NONE) err = copy_string(env, p.name, &out.name);
    }
  }
  if (err == JVMTI_ERROR_NONE) err = allocate(env, f.errors.size(), &info->errors);
  if (err == JVMTI_ERROR_NONE) {
    info->error_count = static_cast<jint>(f.errors.size());
    std::copy(f.errors.begin(), f.errors.end(), info->errors);
  }
  if (err != JVMTI_ERROR_NONE) release(env, *info);
  return err;
}

// ---- Per function table: HotSpot's own, and jvmkit's copy of it. ----

// HotSpot gives every environment the same table (another one with -XX:TraceJVMTI): a few slots.
struct PatchedTable {
  std::atomic<const jvmtiInterface_1_*> original{nullptr};
  jvmtiInterface_1_ copy{};
};
std::array<PatchedTable, 4> g_tables;
std::mutex g_tables_mutex;

const jvmtiInterface_1_* original_of(const jvmtiEnv* env) {
  for (const PatchedTable& t : g_tables) {
    if (env->functions == &t.copy) return t.original.load(std::memory_order_acquire);
  }
  return env->functions;  // not ours (cannot happen: only our copies point here)
}

jvmtiError JNICALL get_extension_functions(jvmtiEnv* env, jint* count_ptr, jvmtiExtensionFunctionInfo** extensions) {
  if (count_ptr == nullptr || extensions == nullptr) return JVMTI_ERROR_NULL_POINTER;
  jint theirs_count = 0;
  jvmtiExtensionFunctionInfo* theirs = nullptr;
  jvmtiError err = original_of(env)->GetExtensionFunctions(env, &theirs_count, &theirs);
  if (err != JVMTI_ERROR_NONE) return err;
  const auto& ours = functions();
  jvmtiExtensionFunctionInfo* all = nullptr;
  err = allocate(env, static_cast<size_t>(theirs_count) + ours.size(), &all);
  if (err == JVMTI_ERROR_NONE) {
    // HotSpot's entries move over as they are: their strings stay the caller's to free.
    if (theirs_count > 0) std::memcpy(all, theirs, static_cast<size_t>(theirs_count) * sizeof(*all));
    size_t described = 0;
    for (; described < ours.size() && err == JVMTI_ERROR_NONE; described++) {
      err = describe(env, ours[described], &all[theirs_count + static_cast<jint>(described)]);
    }
    if (err != JVMTI_ERROR_NONE) {
      for (size_t i = 0; i < described; i++) release(env, all[theirs_count + static_cast<jint>(i)]);
      deallocate(env, all);
      all = nullptr;
    }
  }
  if (err != JVMTI_ERROR_NONE) {
    for (jint i = 0; i < theirs_count; i++) release(env, theirs[i]);
    deallocate(env, theirs);
    return err;
  }
  deallocate(env, theirs);
  *count_ptr = theirs_count + static_cast<jint>(ours.size());
  *extensions = all;
  return JVMTI_ERROR_NONE;
}

// The copy of `original` with jvmkit's GetExtensionFunctions, or nullptr when all slots are taken.
const jvmtiInterface_1_* patched(const jvmtiInterface_1_* original) {
  std::lock_guard<std::mutex> lock(g_tables_mutex);
  for (PatchedTable& t : g_tables) {
    const jvmtiInterface_1_* o = t.original.load(std::memory_order_relaxed);
    if (o == original || &t.copy == original) return &t.copy;
    if (o == nullptr) {
      t.copy = *original;
      t.copy.GetExtensionFunctions = get_extension_functions;
      t.original.store(original, std::memory_order_release);
      return &t.copy;
    }
  }
  return nullptr;
}

// ---- The JavaVM's GetEnv, through which every agent gets its environments. ----

std::atomic<const JNIInvokeInterface_*> g_original_invoke{nullptr};
JNIInvokeInterface_ g_invoke{};

bool is_jvmti_version(jint version) {
  return (version & JVMTI_VERSION_MASK_INTERFACE_TYPE) == JVMTI_VERSION_INTERFACE_JVMTI;
}

jint JNICALL get_env(JavaVM* vm, void** penv, jint version) {
  jint result = g_original_invoke.load(std::memory_order_acquire)->GetEnv(vm, penv, version);
  if (result == JNI_OK && is_jvmti_version(version) && penv != nullptr && *penv != nullptr) {
    auto* env = static_cast<jvmtiEnv*>(*penv);
    if (const jvmtiInterface_1_* copy = patched(env->functions)) env->functions = copy;
  }
  return result;
}

}  // namespace

bool install(JavaVM* vm, std::string* why) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (vm == nullptr || vm->functions == nullptr) {
    *why = "no JavaVM";
    return false;
  }
  if (vm->functions == &g_invoke) return true;
  if (g_original_invoke.load() != nullptr) {
    *why = "the JavaVM's invocation interface was replaced by someone else after jvmkit";
    return false;
  }
  g_invoke = *vm->functions;
  g_invoke.GetEnv = get_env;
  g_original_invoke.store(vm->functions, std::memory_order_release);
  // HotSpot's one JavaVM (main_vm) is writable data; every GetEnv reads its table pointer anew.
  vm->functions = &g_invoke;
  return true;
}

}  // namespace jvmkit::walk::extension
