// The JVMTI agent: libjvmkit_prof.so.
//
// Two ways in:
//   -agentpath:libjvmkit_prof.so=OPTIONS   Agent_OnLoad: options checked at once (a bad one: message
//                 and JNI_ERR, the JVM exits); sampling starts at VMInit and the profile is written
//                 when the JVM exits.
//   HotSpot's attach "load" command         Agent_OnAttach: every `jvmkit` command (start, stop,
//                 dump, status) is one load of this library with the command in its options; the
//                 library stays loaded, so each later load reaches the same profiler. The answer
//                 goes to the reply= file (attach passes back only Agent_OnAttach's number).
// A second copy of the library (another path, e.g. the tool's copy next to an -agentpath one)
// forwards its commands to the copy that runs, when both are the same version.
// The Java API (org.jvmkit.Profiler, natives in java_api.cpp) sends the same commands through
// command_from_java, with the answer's text handed back instead of written to a reply file.
//
// Stack traces are only ever obtained through stack_walk.h (RequestStackTrace from the signal
// handler, or JvmkitRequestStackTraceNative of stack_walk_native.h with cstack=native); the
// profiler's own jvmtiEnv is used for thread events and for naming methods and threads.
#include <dlfcn.h>
#include <fcntl.h>
#include <jvmkit/stack_walk.h>
#include <jvmti.h>
#include <link.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "base/thread_id.hpp"
#include "hotspot/jvmti_capabilities.hpp"
#include "profiler/context/context_agent.hpp"
#include "profiler/events/alloc_sampler.hpp"
#include "profiler/events/lock_sampler.hpp"
#include "profiler/options.hpp"
#include "profiler/recording/thread_info.hpp"
#include "profiler/run/agent_command.hpp"
#include "profiler/run/profiler.hpp"

#define JVMKIT_PROF_EXPORT __attribute__((visibility("default")))

extern "C" {
// The version of this copy of the agent, and whether it runs the profiler in this JVM; and its
// command entry points. Other copies of the library look these up (see find_running_copy):
// jvmkit_prof_command answers as Agent_OnAttach does (the text to the reply= file);
// jvmkit_prof_answer as the Java API needs: the code and text handed to RECEIVE, then the code.
typedef void (*jvmkit_prof_receiver)(void* context, jint code, const char* text);
JVMKIT_PROF_EXPORT const char* jvmkit_prof_version(void);
JVMKIT_PROF_EXPORT jint jvmkit_prof_loaded(void);
JVMKIT_PROF_EXPORT jint jvmkit_prof_command(JavaVM* vm, const char* options);
JVMKIT_PROF_EXPORT jint jvmkit_prof_answer(JavaVM* vm, const char* options, jvmkit_prof_receiver receive,
                                           void* context);
}

namespace jvmkit::prof {
namespace {

Profiler* g_profiler = nullptr;  // created once, lives until the process ends

// --- JVMTI events of the profiler's own environment ---
void JNICALL on_vm_init(jvmtiEnv* jvmti, JNIEnv* jni, jthread) {
  JavaVM* vm = nullptr;
  if (jni->GetJavaVM(&vm) == JNI_OK) prepare_context_labels(vm, jvmti, jni, false);
  if (g_profiler) g_profiler->vm_init();
}
void JNICALL on_vm_death(jvmtiEnv*, JNIEnv*) {
  if (g_profiler) g_profiler->vm_death();
}
// The stack-walk library's delivery thread (named in stack_walk.h) runs the callbacks and no Java
// code: sampling it would only cost time and add failures.
bool is_stack_walker_thread(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread) {
  ThreadInfo info(jvmti, jni, thread);
  return info.name() != nullptr && std::strcmp(info.name(), JVMKIT_WALK_THREAD_NAME) == 0;
}
void JNICALL on_thread_start(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread) {
  if (g_profiler && !is_stack_walker_thread(jvmti, jni, thread)) g_profiler->thread_started(jvmkit::current_tid());
}
void JNICALL on_thread_end(jvmtiEnv*, JNIEnv* jni, jthread) {
  context_thread_ended(jni);
  if (g_profiler) g_profiler->thread_ended(jvmkit::current_tid());
}

// The profiler's jvmtiEnv with its events; LIVE: in the live phase (no VMInit to wait for).
jvmtiEnv* make_environment(JavaVM* vm, bool live) {
  jvmtiEnv* jvmti = nullptr;
  // JVMTI 11 for SampledObjectAlloc.
  if (vm->GetEnv(reinterpret_cast<void**>(&jvmti), JVMTI_VERSION_11) != JNI_OK) return nullptr;
  jvmtiCapabilities caps{};
  caps.can_get_source_file_name = 1;
  caps.can_get_line_numbers = 1;
  jvmti->AddCapabilities(&caps);  // optional: without them frames simply have no file/line
  // JDK 21+: JVMTI posts events of virtual threads (lock's monitor events) only to environments
  // that have this, and some JVMs grant it only while the VM starts. Refused by JDK 17: harmless.
  jvmtiCapabilities virtual_threads{};
  hotspot::set_can_support_virtual_threads(&virtual_threads);
  jvmti->AddCapabilities(&virtual_threads);
  jvmtiEventCallbacks callbacks{};
  callbacks.VMInit = on_vm_init;
  callbacks.VMDeath = on_vm_death;
  callbacks.ThreadStart = on_thread_start;
  callbacks.ThreadEnd = on_thread_end;
  // The JVM events (alloc, lock): enabled only while a run samples them.
  callbacks.SampledObjectAlloc = on_sampled_object_alloc;
  callbacks.ObjectFree = on_object_free;
  callbacks.MonitorContendedEnter = on_monitor_contended_enter;
  callbacks.MonitorContendedEntered = on_monitor_contended_entered;
  jvmti->SetEventCallbacks(&callbacks, sizeof(callbacks));
  for (jvmtiEvent ev : {JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END}) {
    jvmti->SetEventNotificationMode(JVMTI_ENABLE, ev, nullptr);
  }
  if (!live) jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, nullptr);
  return jvmti;
}

Profiler* profiler_for(JavaVM* vm, bool live) {
  if (g_profiler != nullptr) return g_profiler;
  jvmtiEnv* jvmti = make_environment(vm, live);
  if (jvmti == nullptr) return nullptr;
  g_profiler = new Profiler(vm, jvmti);
  // Loaded into a running JVM: JvmkitContext classes initialized before now learn of the agent.
  JNIEnv* jni = nullptr;
  if (live && vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6) == JNI_OK) {
    prepare_context_labels(vm, jvmti, jni, true);
  }
  return g_profiler;
}

jint fail_at_load(const std::string& message) {
  std::fprintf(stderr, "jvmkit profiler: %s\n", message.c_str());
  std::fflush(stderr);
  return JNI_ERR;
}

jint load(JavaVM* vm, const char* options_text) {
  Options options;
  if (Error e = parse_options(options_text, static_cast<int>(getpid()), &options)) {
    return fail_at_load("bad option: " + e.message());
  }
  if (options.action != Action::kStart) {
    return fail_at_load(std::string("bad option: ") + action_name(options.action) +
                        ": only start at JVM start (stop, dump and status are for a running JVM: jvmkit " +
                        action_name(options.action) + " <pid>)");
  }
  if (!options.reply.empty()) return fail_at_load("bad option: reply: only through the attach mechanism");
  Profiler* profiler = profiler_for(vm, false);
  if (profiler == nullptr) return fail_at_load("cannot get a JVMTI environment");
  if (Error e = profiler->prepare(options)) return fail_at_load(e.message());
  return JNI_OK;
}

// Hands ANSWER to the tool: in the reply file it named (created here, never an existing file or a
// symbolic link), else on the JVM's stderr.
void send_reply(const std::string& path, const Answer& answer) {
  std::string text = answer.text;
  if (text.empty() || text.back() != '\n') text += '\n';
  if (!path.empty()) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) {
      size_t done = 0;
      while (done < text.size()) {
        const ssize_t n = write(fd, text.data() + done, text.size() - done);
        if (n <= 0) break;
        done += static_cast<size_t>(n);
      }
      close(fd);
      return;
    }
  }
  for (size_t start = 0; start < text.size();) {
    const size_t end = text.find('\n', start);
    std::fprintf(stderr, "jvmkit profiler: %s\n", text.substr(start, end - start).c_str());
    start = end + 1;
  }
  std::fflush(stderr);
}

// A command through the attach mechanism, carried out here; the answer goes to its reply file.
AnswerCode command(JavaVM* vm, const char* options_text) {
  const Answer answer = run_command(vm, options_text, CommandSource::kAttach);
  send_reply(reply_option(options_text != nullptr ? options_text : ""), answer);
  return answer.code;
}

// Another copy of this library in the process that runs the profiler, found among the loaded
// objects by its exported functions.
struct OtherCopy {
  std::string path;
  std::string version;
  jint (*command)(JavaVM*, const char*) = nullptr;
  // Null in a copy built before the Java API with the same version number (a development build).
  jint (*answer)(JavaVM*, const char*, jvmkit_prof_receiver, void*) = nullptr;
};

bool find_running_copy(OtherCopy* out) {
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&jvmkit_prof_version), &self) == 0) return false;
  struct Search {
    const void* self_base;
    OtherCopy* out;
    bool found;
  } search{self.dli_fbase, out, false};
  dl_iterate_phdr(
      [](struct dl_phdr_info* info, size_t, void* data) -> int {
        auto* s = static_cast<Search*>(data);
        if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;
        if (reinterpret_cast<const void*>(info->dlpi_addr) == s->self_base) return 0;
        void* handle = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
        if (handle == nullptr) return 0;
        auto version = reinterpret_cast<const char* (*)()>(dlsym(handle, "jvmkit_prof_version"));
        auto loaded = reinterpret_cast<jint (*)()>(dlsym(handle, "jvmkit_prof_loaded"));
        auto command = reinterpret_cast<jint (*)(JavaVM*, const char*)>(dlsym(handle, "jvmkit_prof_command"));
        if (version != nullptr && loaded != nullptr && command != nullptr && loaded() != 0) {
          s->out->path = info->dlpi_name;
          s->out->version = version();
          s->out->command = command;
          s->out->answer = reinterpret_cast<decltype(OtherCopy::answer)>(dlsym(handle, "jvmkit_prof_answer"));
          s->found = true;
        }
        dlclose(handle);  // the JVM still holds the library
        return s->found ? 1 : 0;
      },
      &search);
  return search.found;
}

Answer other_version_answer(const OtherCopy& other, const std::string& advice) {
  return {AnswerCode::kOtherVersion, "another version of the jvmkit agent (" + other.version + ", " + other.path +
                                         ") runs in this JVM; this is " + jvmkit_prof_version() + ": " + advice};
}

jint attach(JavaVM* vm, const char* options) {
  OtherCopy other;
  if (g_profiler == nullptr && find_running_copy(&other)) {
    if (other.version == jvmkit_prof_version()) return other.command(vm, options);
    send_reply(reply_option(options != nullptr ? options : ""),
               other_version_answer(other, "use the jvmkit tool of that version"));
    return static_cast<jint>(AnswerCode::kOtherVersion);
  }
  return static_cast<jint>(command(vm, options));
}

// jvmkit_prof_answer's receiver: the running copy's answer, copied into this copy's Answer (the
// two copies may not share a C++ runtime: only C strings cross).
void receive_answer(void* context, jint code, const char* text) {
  auto* answer = static_cast<Answer*>(context);
  answer->code = static_cast<AnswerCode>(code);
  answer->text = text != nullptr ? text : "";
}

}  // namespace

Answer run_command(JavaVM* vm, const char* options_text, CommandSource source) {
  Options options;
  if (Error e = parse_options(options_text, static_cast<int>(getpid()), &options)) {
    return {AnswerCode::kBadOption, "bad option: " + e.message()};
  }
  if (source == CommandSource::kJava && !options.reply.empty()) {
    return {AnswerCode::kBadOption,
            "bad option: reply=" + options.reply + ": only through the attach mechanism (Java gets the answer back)"};
  }
  Profiler* profiler = profiler_for(vm, true);
  if (profiler == nullptr) return {AnswerCode::kCannotStart, "cannot get a JVMTI environment"};
  return profiler->execute(options);
}

Answer command_from_java(JavaVM* vm, const char* options_text) {
  OtherCopy other;
  if (g_profiler == nullptr && find_running_copy(&other)) {
    if (other.version != jvmkit_prof_version() || other.answer == nullptr) {
      return other_version_answer(other, "use jvmkit.jar and the agent library of one version");
    }
    // A running copy that could not make its answer (out of memory) leaves this one.
    Answer answer{static_cast<AnswerCode>(-1), "the jvmkit agent at " + other.path + " gave no answer"};
    other.answer(vm, options_text, receive_answer, &answer);
    return answer;
  }
  return run_command(vm, options_text, CommandSource::kJava);
}

}  // namespace jvmkit::prof

extern "C" {

JVMKIT_PROF_EXPORT const char* jvmkit_prof_version(void) { return JVMKIT_VERSION; }

JVMKIT_PROF_EXPORT jint jvmkit_prof_loaded(void) { return jvmkit::prof::g_profiler != nullptr ? 1 : 0; }

JVMKIT_PROF_EXPORT jint jvmkit_prof_command(JavaVM* vm, const char* options) {
  return static_cast<jint>(jvmkit::prof::command(vm, options));
}

// Called by another copy of the library, whose C++ runtime may not be this one's: nothing thrown
// may leave. An answer that could not be made (out of memory) is the result -1 alone.
JVMKIT_PROF_EXPORT jint jvmkit_prof_answer(JavaVM* vm, const char* options, jvmkit_prof_receiver receive,
                                           void* context) {
  try {
    const jvmkit::prof::Answer answer = jvmkit::prof::run_command(vm, options, jvmkit::prof::CommandSource::kJava);
    receive(context, static_cast<jint>(answer.code), answer.text.c_str());
    return static_cast<jint>(answer.code);
  } catch (...) {
    return -1;
  }
}

JVMKIT_PROF_EXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void* /*reserved*/) {
  return jvmkit::prof::load(vm, options);
}

JVMKIT_PROF_EXPORT jint JNICALL Agent_OnAttach(JavaVM* vm, char* options, void* /*reserved*/) {
  return jvmkit::prof::attach(vm, options);
}

JVMKIT_PROF_EXPORT void JNICALL Agent_OnUnload(JavaVM* /*vm*/) {
  if (jvmkit::prof::g_profiler) jvmkit::prof::g_profiler->vm_death();
}

}  // extern "C"
