// The natives of org.jvmkit.Profiler (java/api, docs/profiler/java_api.md "Control from Java"): the Java
// API sends the agent's commands (start, stop, dump, status) through command_from_java, the path
// the attach mechanism's commands take too (agent_command.hpp), and gets the answer's code and
// text back; the Java side turns the code into its exceptions.
//
// How HotSpot finds these functions (prims/nativeLookup.cpp, NativeLookup::lookup_style, JDK 17 to
// 25): by their JNI names, first among the libraries the class loader of org.jvmkit.Profiler
// loaded (System.load, ClassLoader.findNative), then in every JVMTI agent library: those of
// -agentpath and those loaded by the attach mechanism whose Agent_OnAttach returned JNI_OK
// (Arguments::agents() in JDK 17, JvmtiAgentList in 21 and later). So with the agent loaded either
// way, the API needs no System.load; without it, Profiler.load System.loads this library, and the
// first command makes the profiler in the live phase, as a first attach does. A failed lookup
// leaves the method unbound and is tried again at the next call, which is how Profiler.get() asks
// whether an agent is there (version0 throws UnsatisfiedLinkError when none is).
//
// Strings cross as UTF-8 bytes: JNI's own string functions use modified UTF-8, which differs
// from the file system's UTF-8 for characters outside the BMP. No C++ exception leaves a native:
// out of memory becomes a pending OutOfMemoryError, anything else the answer code -1, which the
// Java side reports as a ProfilerException.
#include <dlfcn.h>
#include <jni.h>

#include <exception>
#include <new>
#include <string>

#include "org_jvmkit_Profiler.h"  // written by javac -h from Profiler.java: the signatures below must match
#include "profiler/run/agent_command.hpp"

namespace jvmkit::prof {
namespace {

// The bytes of ARRAY as a string (NUL-free: the Java side refuses a NUL); false with a pending
// exception when they cannot be read.
bool string_from_bytes(JNIEnv* env, jbyteArray array, std::string* out) {
  const jsize length = env->GetArrayLength(array);
  out->assign(static_cast<size_t>(length), '\0');
  env->GetByteArrayRegion(array, 0, length, reinterpret_cast<jbyte*>(out->data()));
  return !env->ExceptionCheck();
}

// TEXT as a new byte[], null with a pending OutOfMemoryError when it cannot be made.
jbyteArray bytes_from_string(JNIEnv* env, const std::string& text) {
  const auto length = static_cast<jsize>(text.size());
  jbyteArray array = env->NewByteArray(length);
  if (array == nullptr) return nullptr;
  env->SetByteArrayRegion(array, 0, length, reinterpret_cast<const jbyte*>(text.data()));
  return env->ExceptionCheck() ? nullptr : array;
}

void throw_out_of_memory(JNIEnv* env) {
  if (env->ExceptionCheck()) return;
  jclass oom = env->FindClass("java/lang/OutOfMemoryError");
  if (oom != nullptr) env->ThrowNew(oom, "jvmkit agent: out of native memory");
}

// One command: its answer's text as UTF-8 bytes, its code in CODE[0].
jbyteArray execute(JNIEnv* env, jbyteArray command, jintArray code) {
  std::string options;
  if (!string_from_bytes(env, command, &options)) return nullptr;
  JavaVM* vm = nullptr;
  if (env->GetJavaVM(&vm) != JNI_OK) return nullptr;
  Answer answer;
  try {
    answer = command_from_java(vm, options.c_str());
  } catch (const std::bad_alloc&) {
    throw_out_of_memory(env);
    return nullptr;
  } catch (const std::exception& e) {
    answer = {static_cast<AnswerCode>(-1), std::string("jvmkit agent: ") + e.what()};
  }
  const auto value = static_cast<jint>(answer.code);
  env->SetIntArrayRegion(code, 0, 1, &value);
  if (env->ExceptionCheck()) return nullptr;
  return bytes_from_string(env, answer.text);
}

// The version of the jvmkit agent library loaded from PATH, or "" when the library loaded from
// there is not one (or is not loaded). dlopen with RTLD_NOLOAD only finds a library already
// loaded, by its path or by its file (glibc compares device and inode too).
std::string agent_version_at(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return "";
  auto version = reinterpret_cast<const char* (*)()>(dlsym(handle, "jvmkit_prof_version"));
  std::string out = version != nullptr ? version() : "";
  dlclose(handle);  // the JVM still holds the library
  return out;
}

}  // namespace
}  // namespace jvmkit::prof

extern "C" {

JNIEXPORT jstring JNICALL Java_org_jvmkit_Profiler_version0(JNIEnv* env, jclass) {
  return env->NewStringUTF(JVMKIT_VERSION);  // ASCII: modified UTF-8 is the same
}

JNIEXPORT jbyteArray JNICALL Java_org_jvmkit_Profiler_execute0(JNIEnv* env, jclass, jbyteArray command,
                                                               jintArray code) {
  try {
    return jvmkit::prof::execute(env, command, code);
  } catch (...) {  // only the string copies are left to throw (out of memory)
    jvmkit::prof::throw_out_of_memory(env);
    return nullptr;
  }
}

JNIEXPORT jstring JNICALL Java_org_jvmkit_Profiler_agentVersionAt0(JNIEnv* env, jclass, jbyteArray path) {
  try {
    std::string file;
    if (!jvmkit::prof::string_from_bytes(env, path, &file)) return nullptr;
    const std::string version = jvmkit::prof::agent_version_at(file);
    return version.empty() ? nullptr : env->NewStringUTF(version.c_str());
  } catch (...) {
    jvmkit::prof::throw_out_of_memory(env);
    return nullptr;
  }
}

}  // extern "C"
