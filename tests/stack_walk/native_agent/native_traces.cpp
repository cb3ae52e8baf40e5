// The callbacks of every native request, checking the API's promises as they come: one outcome per
// request (beginStackTrace, frames, endStackTrace; or failure alone), the same user_data
// throughout, native frames before any Java frame, at most one marker and no native frame after
// it, each native frame with its PC and library (a marker with neither), no Java frame without a
// method; and, per trace, the thread it names.
//
// All callbacks run on jvmkit's one delivery thread, one request after another, so the open trace
// is plain state.
#include <cstdio>
#include <cstring>
#include <map>
#include <unordered_map>

#include "native_agent.hpp"

namespace nativetest {

namespace {

Trace g_open;
bool g_is_open = false;
std::vector<uint8_t> g_outcomes(kMaxSequence);  // by sequence number: outcomes delivered
std::unordered_map<jmethodID, std::string> g_method_names;
std::map<std::string, int64_t> g_trace_check_failures;

// A failed check about the open trace: says what and shows the trace, the first few times for each
// check (all are counted and listed at the end: print_trace_check_failures).
void trace_fail(const char* what) {
  const int64_t seen = ++g_trace_check_failures[what];
  if (seen > 3) {
    count_failure();
    return;
  }
  fail("%s: trace of %s (%s), %zu frames", what, g_open.thread_name.c_str(), thread_kind_name(g_open.kind),
       g_open.frames.size());
  for (size_t i = 0; i < g_open.frames.size(); i++) {
    std::fprintf(stderr, "    #%zu %s\n", i, describe_frame(g_open.frames[i]).c_str());
  }
}

// A callback of request UD must come inside its own open trace.
bool inside_open_trace(void* ud, const char* callback) {
  if (g_is_open && g_open.user_data == ud) return true;
  fail("%s for user_data %p outside its trace (open: %d, %p)", callback, ud, g_is_open, g_open.user_data);
  return false;
}

void count_outcome(void* ud) {
  const int64_t seq = ud_seq(ud);
  if (seq >= 0 && seq < kMaxSequence && g_outcomes[seq] < 255) g_outcomes[seq]++;
}

ThreadKind kind_of(const std::string& name, bool java_thread) {
  auto starts = [&name](const char* prefix) { return name.rfind(prefix, 0) == 0; };
  if (java_thread) return name == "main" ? kMain : kOtherJava;
  if (starts("C2 Compiler")) return kC2Compiler;
  if (starts("C1 Compiler")) return kC1Compiler;
  if (starts("GC Thread") || starts("G1 ")) return kGcWorker;
  if (name == "VM Thread") return kVmThread;
  return kOtherVm;
}

// The Java name of a Java thread, else the kernel's (comm) that JvmkitCurrentTraceThread read.
std::string name_of(jthread thread, const jvmkitTraceThread& who) {
  if (thread == nullptr) return who.name;
  jvmtiThreadInfo info;
  std::memset(&info, 0, sizeof(info));
  if (g_jvmti->GetThreadInfo(thread, &info) != JVMTI_ERROR_NONE || info.name == nullptr) return who.name;
  std::string name = info.name;
  g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(info.name));
  // The delivery thread makes many calls: local references are let go of at once.
  if (JNIEnv* jni = jni_env()) {
    if (info.thread_group) jni->DeleteLocalRef(info.thread_group);
    if (info.context_class_loader) jni->DeleteLocalRef(info.context_class_loader);
  }
  return name;
}

void JNICALL on_begin(jthread thread, jboolean biased, void* ud) {
  if (g_is_open) fail("beginStackTrace for %p inside the open trace of %p", ud, g_open.user_data);
  count_outcome(ud);
  g_is_open = true;
  g_open.user_data = ud;
  g_open.frames.clear();
  g_open.native_frames = g_open.java_frames = g_open.markers = g_open.top_native = 0;
  g_open.marker_end = JVMKIT_NATIVE_END_REASON_COUNT;
  g_open.all_markers.clear();
  g_open.last_was_marker = g_open.last_was_java = false;
  g_open.biased = biased == JNI_TRUE;
  g_open.has_thread = thread != nullptr;
  jvmkitTraceThread who;
  std::memset(&who, 0, sizeof(who));
  const jvmtiError err = JvmkitCurrentTraceThread(&who);
  g_open.thread_name = name_of(thread, who);
  g_open.kind = kind_of(g_open.thread_name, thread != nullptr);
  if (err != JVMTI_ERROR_NONE) fail("JvmkitCurrentTraceThread in beginStackTrace returned %d", err);
  if (err == JVMTI_ERROR_NONE && who.tid != ud_tid(ud)) {
    fail("trace of thread %d (%s) for a request made on thread %d", who.tid, who.name, ud_tid(ud));
  }
  // A thread without a java.lang.Thread gets thread == NULL, and only such a thread.
  if (err == JVMTI_ERROR_NONE && (who.java_thread == JNI_TRUE) != (thread != nullptr)) {
    fail("thread %s: java_thread %d but beginStackTrace's thread %p", who.name, who.java_thread,
         static_cast<void*>(thread));
  }
}

// Where a native frame may come, and what it must hold.
void check_native_frame(const jvmkitNativeFrame& f) {
  if (f.size != static_cast<jint>(sizeof(jvmkitNativeFrame))) trace_fail("a native frame of another size");
  // A marker ends a native part: Java frames follow it, or nothing.
  if (g_open.last_was_marker) trace_fail("a native frame after a marker");
  // Below a Java frame, native frames come where the VM called Java: the call stub first.
  if (g_open.last_was_java &&
      (f.kind != JVMKIT_FRAME_JVM || f.library == nullptr || std::strcmp(f.library, "[code cache]") != 0 ||
       f.symbol == nullptr || std::strcmp(f.symbol, "call_stub") != 0)) {
    trace_fail("native frames below a Java frame that do not start at the call stub");
  }
  if (f.kind == JVMKIT_FRAME_MARKER) {
    // Only a run that stopped at a PC of no known object (or of one not prepared yet) says where.
    const bool may_have_pc = f.end == JVMKIT_NATIVE_END_UNKNOWN_CODE || f.end == JVMKIT_NATIVE_END_UNPREPARED_LIBRARY;
    if ((f.pc != 0 && !may_have_pc) || f.library != nullptr || f.end < 0 || f.end >= JVMKIT_NATIVE_END_REASON_COUNT) {
      trace_fail("a marker with a PC, a library or no reason");
    }
    return;
  }
  if (f.kind != JVMKIT_FRAME_NATIVE_CODE && f.kind != JVMKIT_FRAME_JVM) {
    trace_fail("a native frame of an unexpected kind (no kernel PCs were passed)");
  }
  if (f.pc == 0 || f.library == nullptr || f.library[0] == '\0') trace_fail("a native frame without a PC or library");
  if (f.library == nullptr) return;
  // The JVM's code: libjvm's, and HotSpot's stubs in the code cache.
  const bool jvm_code =
      std::strcmp(basename_of(f.library), "libjvm.so") == 0 || std::strcmp(f.library, "[code cache]") == 0;
  if (jvm_code != (f.kind == JVMKIT_FRAME_JVM)) trace_fail("a frame's kind does not match its library");
  if (f.library_offset < 0) trace_fail("a native frame with a negative library offset");
}

jint JNICALL on_native_frame(const jvmkitNativeFrame* frame, void* ud) {
  if (!inside_open_trace(ud, "nativeFrame") || frame == nullptr) return JVMKIT_FRAME_CONTINUE;
  g_open.frames.push_back(Frame{});  // recorded first, so that a failed check shows it
  Frame& f = g_open.frames.back();
  f.type = frame->kind;
  f.pc = frame->pc;
  f.library = frame->library;
  f.library_offset = frame->library_offset;
  f.symbol = frame->symbol;
  f.flags = frame->flags;
  f.end = frame->end;
  check_native_frame(*frame);
  const bool top = g_open.java_frames == 0;
  if (frame->kind == JVMKIT_FRAME_MARKER) {
    if (top && g_open.markers++ == 0) g_open.marker_end = frame->end;
    g_open.all_markers.push_back(frame->end);
  } else {
    g_open.native_frames++;
    if (top) g_open.top_native++;
  }
  g_open.last_was_marker = frame->kind == JVMKIT_FRAME_MARKER;
  g_open.last_was_java = false;
  return JVMKIT_FRAME_CONTINUE;
}

jint JNICALL on_frame(jvmtiFrameType type, jmethodID method, jlocation, void* ud) {
  if (!inside_open_trace(ud, "stackFrame")) return JVMKIT_FRAME_CONTINUE;
  Frame f;
  f.java = true;
  f.type = type;
  f.method = method;
  g_open.frames.push_back(f);
  g_open.java_frames++;
  g_open.last_was_marker = false;
  g_open.last_was_java = true;
  if (method == nullptr) trace_fail("a Java frame without a method");
  if (type < JVMTI_FRAME_INTERPRETER || type > JVMTI_FRAME_NATIVE) trace_fail("a Java frame of a native kind");
  return JVMKIT_FRAME_CONTINUE;
}

// The trace as a whole.
void check_trace() {
  if (g_open.frames.empty()) trace_fail("a trace without frames");
  if (!g_open.has_thread && g_open.java_frames > 0) trace_fail("Java frames on a thread without a java.lang.Thread");
  if (g_open.frames.empty()) return;
  // Native frames below the last Java frame without a marker reached the thread's first frame.
  if (g_open.java_frames > 0) {
    const Frame& last = g_open.frames.back();
    if (!last.java && last.type != JVMKIT_FRAME_MARKER &&
        (last.library == nullptr || std::strncmp(basename_of(last.library), "libc.so", 7) != 0)) {
      trace_fail("native frames below the Java frames, without a marker, not ending in libc");
    }
    return;
  }
  if (g_open.markers > 0) return;
  // Native frames alone, no marker: they reached the thread's first frame (clone3 or start_thread,
  // in libc), and the trace is the whole stack.
  const Frame& last = g_open.frames.back();
  if (last.library == nullptr || std::strncmp(basename_of(last.library), "libc.so", 7) != 0) {
    trace_fail("native frames alone, without a marker, not ending in libc (the thread's first frame)");
  }
  if (g_open.biased) trace_fail("a whole native-only trace flagged biased");
}

void JNICALL on_end(jthread, void* ud) {
  if (!inside_open_trace(ud, "endStackTrace")) return;
  check_trace();
  record_trace(g_open);
  g_is_open = false;
}

void JNICALL on_failure(jthread thread, void* ud) {
  if (g_is_open) fail("failure for %p inside the open trace of %p", ud, g_open.user_data);
  count_outcome(ud);
  jvmkitTraceThread who;
  std::memset(&who, 0, sizeof(who));
  const jvmtiError err = JvmkitCurrentTraceThread(&who);
  if (err != JVMTI_ERROR_NONE) fail("JvmkitCurrentTraceThread in the failure callback returned %d", err);
  const jvmkitFailureReason reason = JvmkitCurrentFailureReason();
  if (reason < 0 || reason >= JVMKIT_FAILURE_REASON_COUNT) fail("a failure without a reason");
  const std::string name = name_of(thread, who);
  record_failure(kind_of(name, thread != nullptr || who.java_thread == JNI_TRUE), reason, sampled_pc(ud_seq(ud)),
                 ud_seq(ud));
}

}  // namespace

jvmtiStackTraceCallbacks checking_callbacks() {
  return jvmtiStackTraceCallbacks{on_begin, on_end, on_frame, on_failure};
}

jvmkitNativeFrameCallback native_frame_callback() { return on_native_frame; }

bool check_outcomes(int64_t accepted) {
  int64_t missing = 0, extra = 0, unasked = 0;
  for (int64_t seq = 0; seq < kMaxSequence; seq++) {
    const bool asked = sequence_accepted(seq);
    if (asked && g_outcomes[seq] == 0) missing++;
    if (asked && g_outcomes[seq] > 1) extra++;
    if (!asked && g_outcomes[seq] != 0) unasked++;
  }
  std::fprintf(stderr,
               "OUTCOMES: %lld requests accepted; without an outcome %lld, with several %lld, outcomes of "
               "requests never accepted %lld\n",
               (long long)accepted, (long long)missing, (long long)extra, (long long)unasked);
  if (missing + extra + unasked == 0) return true;
  fail("not exactly one outcome per accepted request (%lld missing, %lld repeated, %lld unasked)", (long long)missing,
       (long long)extra, (long long)unasked);
  return false;
}

std::string describe_frame(const Frame& f) {
  char line[512];
  if (f.java) {
    std::snprintf(line, sizeof(line), "java   %s type %d", method_name(f.method).c_str(), static_cast<int>(f.type));
  } else if (f.type == JVMKIT_FRAME_MARKER) {
    std::snprintf(line, sizeof(line), "marker %s%s", JvmkitNativeEndName(f.end),
                  f.pc != 0 ? (" at pc " + mapping_of(static_cast<uintptr_t>(f.pc))).c_str() : "");
  } else {
    std::snprintf(line, sizeof(line), "%s %s+0x%llx %.120s", f.type == JVMKIT_FRAME_JVM ? "jvm   " : "native",
                  f.library ? basename_of(f.library) : "(no library)",
                  static_cast<unsigned long long>(f.library_offset), f.symbol ? f.symbol : "");
  }
  if (!f.java && f.type != JVMKIT_FRAME_MARKER && f.library == nullptr) {
    return std::string(line) + ", pc " + mapping_of(static_cast<uintptr_t>(f.pc));
  }
  return line;
}

std::string mapping_of(uintptr_t pc) {
  char text[64];
  std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(pc));
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return text;
  std::string found = " in no mapping";
  char line[512];
  while (std::fgets(line, sizeof(line), maps) != nullptr) {
    unsigned long long start = 0, end = 0;
    if (std::sscanf(line, "%llx-%llx", &start, &end) != 2 || pc < start || pc >= end) continue;
    found = std::string(" in ") + line;
    if (!found.empty() && found.back() == '\n') found.pop_back();
    break;
  }
  std::fclose(maps);
  return text + found;
}

const char* basename_of(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

const std::string& method_name(jmethodID method) {
  auto it = g_method_names.find(method);
  if (it != g_method_names.end()) return it->second;
  std::string name = "(unresolved)";
  char* method_text = nullptr;
  jclass holder = nullptr;
  char* signature = nullptr;
  if (method != nullptr && g_jvmti->GetMethodName(method, &method_text, nullptr, nullptr) == JVMTI_ERROR_NONE &&
      g_jvmti->GetMethodDeclaringClass(method, &holder) == JVMTI_ERROR_NONE &&
      g_jvmti->GetClassSignature(holder, &signature, nullptr) == JVMTI_ERROR_NONE) {
    // "Ljava/util/zip/Deflater;" -> "java.util.zip.Deflater"
    std::string type = signature;
    if (type.size() > 2 && type.front() == 'L') type = type.substr(1, type.size() - 2);
    for (char& c : type) c = c == '/' ? '.' : c;
    name = type + "." + method_text;
  }
  if (method_text) g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(method_text));
  if (signature) g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(signature));
  JNIEnv* jni = jni_env();
  if (holder != nullptr && jni != nullptr) jni->DeleteLocalRef(holder);
  return g_method_names.emplace(method, name).first->second;
}

void print_trace_check_failures() {
  for (const auto& [what, count] : g_trace_check_failures) {
    std::fprintf(stderr, "TRACE CHECK FAILED %lld times: %s\n", (long long)count, what.c_str());
  }
}

const char* thread_kind_name(ThreadKind kind) {
  static const char* const names[kThreadKinds] = {"main",      "C2 compiler", "C1 compiler", "GC worker",
                                                  "VM Thread", "other Java",  "other VM"};
  return kind >= 0 && kind < kThreadKinds ? names[kind] : "?";
}

}  // namespace nativetest
