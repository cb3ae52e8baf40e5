/* jep_profiler: a complete, minimal CPU profiler written only to the JEP draft "Unbiased Stack-Walk
 * JVMTI extension API". SIGPROF (setitimer) interrupts the threads that use CPU; the handler asks
 * for an unbiased stack trace of the interrupted thread; the callbacks count the top frames; at VM
 * death the profile's hottest methods are printed.
 *
 * It gets the API's three functions one of two ways (see docs/stack_walk.md, "Using the API from
 * your agent"):
 *   - built with -DJEP_PROFILER_LINKED and linked with libjvmkit_walk.so: the C functions;
 *   - built without it and not linked with jvmkit: the JVMTI extension functions
 *     com.sun.hotspot.functions.*, which exist when libjvmkit_walk.so was loaded as an agent first
 *     (java -agentpath:.../libjvmkit_walk.so -agentpath:.../libjep_profiler.so ...).
 *
 * Loaded at start-up (-agentpath:libjep_profiler.so=OPTION,OPTION...) or into a running JVM
 * (jcmd <pid> JVMTI.agent_load /path/to/libjep_profiler.so "OPTION,OPTION..."; then it enables and
 * starts sampling at once). Options:
 *   enable=onload|vmstart|vminit  where EnableRequestStackTrace is called at start-up (default onload)
 *   interval_us=N                 CPU time between samples, in microseconds (default 1000)
 *   top=N                         how many methods to print (default 10)
 *   list                          print all extension functions of the environment, with parameters
 */
#define _GNU_SOURCE
#include <jvmkit/stack_walk.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

typedef jvmtiError(JNICALL* RequestFunction)(jvmtiEnv*, jthread*, void*, jvmtiStackTraceCallbacks, void*);
typedef jvmtiError(JNICALL* SwitchFunction)(jvmtiEnv*);

static struct {
  RequestFunction request;
  SwitchFunction enable;
  SwitchFunction disable;
  const char* source;
} api;

static jvmtiEnv* jvmti;
static char enable_at[16] = "onload";
static long interval_us = 1000;
static int top_count = 10;
static int list_extensions;
static volatile int enabled;

/* Counted in the signal handler: lock-free atomics only. */
static long signals, accepted, refused;
/* Counted in the callbacks, which run one at a time on the library's delivery thread. */
static long traces, unbiased, failures;

#define MAX_METHODS 4096
struct method_samples {
  jmethodID method;
  long samples;
};
static struct method_samples methods[MAX_METHODS];
static int method_count;
static int in_trace_frames;

/* ---- Callbacks: a jmethodID is valid until endStackTrace returns, so it is counted by id and
 * named at the end only if its class is still loaded. ---- */

static void JNICALL on_begin(jthread thread, jboolean biased, void* user_data) {
  (void)thread;
  (void)user_data;
  traces++;
  if (!biased) unbiased++;
  in_trace_frames = 0;
}

static jint JNICALL on_frame(jvmtiFrameType type, jmethodID method, jlocation location, void* user_data) {
  (void)type;
  (void)location;
  (void)user_data;
  if (in_trace_frames++ > 0) return 0; /* only the top frame is counted */
  for (int i = 0; i < method_count; i++) {
    if (methods[i].method == method) {
      methods[i].samples++;
      return 0;
    }
  }
  if (method_count < MAX_METHODS) {
    methods[method_count].method = method;
    methods[method_count].samples = 1;
    method_count++;
  }
  return 0;
}

static void JNICALL on_end(jthread thread, void* user_data) {
  (void)thread;
  (void)user_data;
}

static void JNICALL on_failure(jthread thread, void* user_data) {
  (void)thread;
  (void)user_data;
  failures++;
}

/* ---- Sampling ---- */

static void on_sigprof(int signo, siginfo_t* info, void* ucontext) {
  (void)signo;
  (void)info;
  if (!enabled) return;
  jvmtiStackTraceCallbacks callbacks = {on_begin, on_end, on_frame, on_failure};
  __atomic_add_fetch(&signals, 1, __ATOMIC_RELAXED);
  /* NULL thread: the current one; its ucontext makes the trace unbiased. */
  if (api.request(jvmti, NULL, ucontext, callbacks, NULL) == JVMTI_ERROR_NONE) {
    __atomic_add_fetch(&accepted, 1, __ATOMIC_RELAXED);
  } else {
    __atomic_add_fetch(&refused, 1, __ATOMIC_RELAXED); /* e.g. a thread the JVM does not know */
  }
}

static void set_timer(long microseconds) {
  struct itimerval timer;
  timer.it_interval.tv_sec = microseconds / 1000000;
  timer.it_interval.tv_usec = microseconds % 1000000;
  timer.it_value = timer.it_interval;
  setitimer(ITIMER_PROF, &timer, NULL);
}

static void start_sampling(void) {
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_sigaction = on_sigprof;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(SIGPROF, &action, NULL);
  set_timer(interval_us);
}

/* ---- Finding the API ---- */

#ifdef JEP_PROFILER_LINKED
static int find_api(void) {
  api.request = RequestStackTrace;
  api.enable = EnableRequestStackTrace;
  api.disable = DisableRequestStackTrace;
  api.source = "the linked library";
  return 1;
}
#else
static void free_extension_info(jvmtiExtensionFunctionInfo* info) {
  (*jvmti)->Deallocate(jvmti, (unsigned char*)info->id);
  (*jvmti)->Deallocate(jvmti, (unsigned char*)info->short_description);
  for (jint p = 0; p < info->param_count; p++) (*jvmti)->Deallocate(jvmti, (unsigned char*)info->params[p].name);
  (*jvmti)->Deallocate(jvmti, (unsigned char*)info->params);
  (*jvmti)->Deallocate(jvmti, (unsigned char*)info->errors);
}

static void print_extension(const jvmtiExtensionFunctionInfo* info) {
  static const char* kinds[] = {"", "IN", "IN_PTR", "IN_BUF", "ALLOC_BUF", "ALLOC_ALLOC_BUF", "OUT", "OUT_BUF"};
  printf("jep_profiler: extension function %s (%d parameters)", info->id, (int)info->param_count);
  for (jint p = 0; p < info->param_count; p++) {
    const jvmtiParamInfo* param = &info->params[p];
    const int kind = (int)param->kind - JVMTI_KIND_IN + 1;
    printf(" %s:%s:%d%s", param->name, kind >= 1 && kind <= 7 ? kinds[kind] : "?", (int)param->base_type,
           param->null_ok ? ":null_ok" : "");
  }
  printf("\n");
}

/* With the option list: the extension events too (jvmkit adds none; HotSpot's stay as they are). */
static void list_extension_events(void) {
  jint count = 0;
  jvmtiExtensionEventInfo* events = NULL;
  if ((*jvmti)->GetExtensionEvents(jvmti, &count, &events) != JVMTI_ERROR_NONE) return;
  for (jint i = 0; i < count; i++) {
    printf("jep_profiler: extension event %s (%d parameters)\n", events[i].id, (int)events[i].param_count);
    (*jvmti)->Deallocate(jvmti, (unsigned char*)events[i].id);
    (*jvmti)->Deallocate(jvmti, (unsigned char*)events[i].short_description);
    for (jint p = 0; p < events[i].param_count; p++) {
      (*jvmti)->Deallocate(jvmti, (unsigned char*)events[i].params[p].name);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char*)events[i].params);
  }
  (*jvmti)->Deallocate(jvmti, (unsigned char*)events);
}

static int find_api(void) {
  jint count = 0;
  jvmtiExtensionFunctionInfo* functions = NULL;
  if (list_extensions) list_extension_events();
  if ((*jvmti)->GetExtensionFunctions(jvmti, &count, &functions) != JVMTI_ERROR_NONE) return 0;
  for (jint i = 0; i < count; i++) {
    const char* id = functions[i].id;
    if (list_extensions) print_extension(&functions[i]);
    if (strcmp(id, "com.sun.hotspot.functions.RequestStackTrace") == 0) {
      api.request = (RequestFunction)functions[i].func;
    } else if (strcmp(id, "com.sun.hotspot.functions.EnableRequestStackTrace") == 0) {
      api.enable = (SwitchFunction)functions[i].func;
    } else if (strcmp(id, "com.sun.hotspot.functions.DisableRequestStackTrace") == 0) {
      api.disable = (SwitchFunction)functions[i].func;
    }
    free_extension_info(&functions[i]);
  }
  (*jvmti)->Deallocate(jvmti, (unsigned char*)functions);
  api.source = "JVMTI extension functions";
  return api.request != NULL && api.enable != NULL && api.disable != NULL;
}
#endif

/* ---- Life cycle ---- */

static void enable_here(const char* place) {
  if (strcmp(enable_at, place) != 0) return;
  jvmtiError err = api.enable(jvmti);
  printf("jep_profiler: EnableRequestStackTrace in %s: JVMTI error %d\n", place, (int)err);
  fflush(stdout);
  if (err == JVMTI_ERROR_NONE) enabled = 1;
}

static void JNICALL on_vm_start(jvmtiEnv* env, JNIEnv* jni) {
  (void)env;
  (void)jni;
  enable_here("vmstart");
}

static void JNICALL on_vm_init(jvmtiEnv* env, JNIEnv* jni, jthread thread) {
  (void)env;
  (void)jni;
  (void)thread;
  enable_here("vminit");
  start_sampling();
}

static void print_method(jmethodID method, long samples) {
  const double percent = 100.0 * (double)samples / (double)traces;
  jclass holder = NULL;
  char* class_signature = NULL;
  char* name = NULL;
  if ((*jvmti)->GetMethodDeclaringClass(jvmti, method, &holder) != JVMTI_ERROR_NONE ||
      (*jvmti)->GetClassSignature(jvmti, holder, &class_signature, NULL) != JVMTI_ERROR_NONE ||
      (*jvmti)->GetMethodName(jvmti, method, &name, NULL, NULL) != JVMTI_ERROR_NONE) {
    printf("jep_profiler: %8ld %5.1f%%  (a method of an unloaded class)\n", samples, percent);
  } else {
    printf("jep_profiler: %8ld %5.1f%%  %s.%s\n", samples, percent, class_signature, name);
  }
  (*jvmti)->Deallocate(jvmti, (unsigned char*)class_signature);
  (*jvmti)->Deallocate(jvmti, (unsigned char*)name);
}

static int by_samples(const void* a, const void* b) {
  long x = ((const struct method_samples*)a)->samples, y = ((const struct method_samples*)b)->samples;
  return (y > x) - (y < x);
}

static void JNICALL on_vm_death(jvmtiEnv* env, JNIEnv* jni) {
  (void)env;
  (void)jni;
  set_timer(0);
  enabled = 0;
  /* Returns once every accepted request has had its outcome (trace or failure). */
  jvmtiError err = api.disable(jvmti);
  printf("jep_profiler: API from %s; DisableRequestStackTrace: JVMTI error %d\n", api.source, (int)err);
  printf("jep_profiler: signals %ld accepted %ld refused %ld traces %ld unbiased %ld failures %ld\n", signals, accepted,
         refused, traces, unbiased, failures);
  /* The jmethodIDs are still valid: the classes of these methods are named only if still loaded. */
  qsort(methods, (size_t)method_count, sizeof(methods[0]), by_samples);
  for (int i = 0; i < method_count && i < top_count; i++) print_method(methods[i].method, methods[i].samples);
  fflush(stdout);
}

static int parse_options(const char* options) {
  char copy[256];
  snprintf(copy, sizeof(copy), "%s", options ? options : "");
  for (char* option = strtok(copy, ","); option != NULL; option = strtok(NULL, ",")) {
    if (strncmp(option, "enable=", 7) == 0 &&
        (!strcmp(option + 7, "onload") || !strcmp(option + 7, "vmstart") || !strcmp(option + 7, "vminit"))) {
      snprintf(enable_at, sizeof(enable_at), "%s", option + 7);
    } else if (strncmp(option, "interval_us=", 12) == 0 && atol(option + 12) > 0) {
      interval_us = atol(option + 12);
    } else if (strncmp(option, "top=", 4) == 0 && atoi(option + 4) > 0) {
      top_count = atoi(option + 4);
    } else if (strcmp(option, "list") == 0) {
      list_extensions = 1;
    } else {
      fprintf(stderr, "jep_profiler: bad option '%s' (enable=onload|vmstart|vminit, interval_us=N, top=N, list)\n",
              option);
      return 0;
    }
  }
  return 1;
}

static jint start(JavaVM* vm, const char* options, int attached) {
  if (!parse_options(options)) return JNI_ERR;
  if ((*vm)->GetEnv(vm, (void**)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  if (!find_api()) {
    fprintf(stderr,
            "jep_profiler: this JVM has no Unbiased Stack-Walk API (load libjvmkit_walk.so as an agent before "
            "this one: -agentpath:<prefix>/lib/libjvmkit_walk.so)\n");
    return JNI_ERR;
  }
  jvmtiEventCallbacks events;
  memset(&events, 0, sizeof(events));
  events.VMStart = on_vm_start;
  events.VMInit = on_vm_init;
  events.VMDeath = on_vm_death;
  (*jvmti)->SetEventCallbacks(jvmti, &events, sizeof(events));
  (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_START, NULL);
  (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
  (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
  if (attached) {
    snprintf(enable_at, sizeof(enable_at), "attach");
    enable_here("attach");
    start_sampling();
  } else {
    enable_here("onload");
  }
  return JNI_OK;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void* reserved) {
  (void)reserved;
  return start(vm, options, 0);
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM* vm, char* options, void* reserved) {
  (void)reserved;
  return start(vm, options, 1);
}
