# Included by tests/stack_walk/CMakeLists.txt (its variables: _walk_classes, ...): the JVM tests
# of native frames, with their own agent and JNI libraries.

# Native frames (jvmkit/stack_walk_native.h), with their own agent (native_agent/): every thread of
# the JVM sampled by wall clock with JvmkitRequestStackTraceNative, every trace's shape checked.
# native_deflate: the main thread in zlib below Deflater.deflateBytesBytes. native_vm_threads:
# HotSpot's own threads (compiler threads kept busy by fresh classes, GC workers and the VM thread
# by System.gc() loops) get native-only traces that reach their first frame.
file(GLOB _native_agent_sources CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/native_agent/*.cpp")
add_library(stack_walk_native_agent SHARED ${_native_agent_sources})
target_link_libraries(stack_walk_native_agent PRIVATE jvmkit_walk_static Threads::Threads ${CMAKE_DL_LIBS})
jvmkit_shared_library_defaults(stack_walk_native_agent)
target_include_directories(stack_walk_native_agent PRIVATE "${PROJECT_SOURCE_DIR}")
jvmkit_add_jvm_test(NAME stack_walk.native_deflate MAIN jvmkit.test.walk.DeflateMain CLASSES ${_walk_classes}
                    AGENT stack_walk_native_agent AGENT_OPTIONS "interval_us=1000,expect=deflate,min_samples=1000"
                    JVM_ARGS -XX:CICompilerCount=2 ARGS 3.5 TIMEOUT 90)
jvmkit_add_jvm_test(NAME stack_walk.native_vm_threads MAIN jvmkit.test.walk.VmThreadsMain CLASSES ${_walk_classes}
                    AGENT stack_walk_native_agent AGENT_OPTIONS "interval_us=1000,expect=vm_threads,min_samples=1000"
                    JVM_ARGS -XX:CICompilerCount=2 -XX:+UseParallelGC ARGS 3.5 TIMEOUT 60)

# C between Java frames, in their exact order (native/upcall_jni.c, UpcallMain): the main thread
# calls a -> native n1 -> C mid -> CallStaticVoidMethod -> b -> native n2 -> C leaf, where leaf
# works in its own loop, in libc's qsort (its comparator burning) or in memcpy, about 50 / 25 / 25 %
# of its wall time as the library measures it. >= 99 % of the main thread's samples in leaf's reach
# read leaf, n2's JNI function, n2, b, call_stub, libjvm, mid, n1's JNI function, n1, a, main,
# call_stub, libjvm, the launcher and libc down to the thread's first frame, without a marker; the
# shares of leaf's time in the traces are the measured ones within a total variation of 0.05. The
# library built with frame pointers and without (leaf's loop then also uses rbp as a register). The
# loop starts 200 ms after the load and again 200 ms after the first calls, past the windows where
# the library's table is being built and where jvmkit's code map has not yet learnt of n1's and n2's
# native wrappers (CompiledMethodLoad, posted later by HotSpot's service thread). Measured
# 2026-12-05 in 20 runs on each JDK: 100 % exact, TV 0.003-0.017, 1,900-3,000 samples in leaf's
# reach per run (fewer when delivery falls behind on a loaded host and requests find the pool full).
foreach(_variant fp nofp)
  add_library(stack_walk_upcall_${_variant} SHARED native/upcall_jni.c)
  jvmkit_shared_library_defaults(stack_walk_upcall_${_variant})
  target_include_directories(stack_walk_upcall_${_variant} SYSTEM PRIVATE ${JNI_INCLUDE_DIRS})
  jvmkit_add_jvm_test(NAME stack_walk.native_upcall_${_variant} MAIN jvmkit.test.walk.UpcallMain
                      CLASSES ${_walk_classes} AGENT stack_walk_native_agent
                      AGENT_OPTIONS "interval_us=1000,expect=upcall,min_samples=1000,min_leaf_samples=700"
                      JVM_ARGS -XX:CICompilerCount=2 "-Djvmkit.upcall.lib=$<TARGET_FILE:stack_walk_upcall_${_variant}>"
                      ARGS 3 TIMEOUT 60)
endforeach()
target_compile_options(stack_walk_upcall_fp PRIVATE -O2 -fno-omit-frame-pointer)
target_compile_options(stack_walk_upcall_nofp PRIVATE -O2 -fomit-frame-pointer)
target_compile_definitions(stack_walk_upcall_nofp PRIVATE UPCALL_NOFP)
add_dependencies(stack_walk_native_agent stack_walk_upcall_fp stack_walk_upcall_nofp)

# A library loaded while sampling (native/late_jni.c, LateMain): System.load after 1 s, then 2 s in
# its C code, which reads the clock through libc every 64 steps (about a fifth of its samples are in
# clock_gettime and the vDSO). Samples there, or in what it calls, end in unprepared_library markers
# until jvmkit's watcher prepared it (within 50 ms plus its preparation time, docs/native_frames.md),
# and in nothing else; of those later than 500 ms after the load (a bound generous for a loaded
# host; the delay measured is printed) >= 99 % unwind through it without a marker; no frame is ever
# said to be in another object than the dynamic loader's (dladdr). Measured 2026-12-05: the first
# complete trace 1.7-2.9 ms after System.load returned (the first sample there wakes the watcher;
# 8-60 ms with its 50 ms poll alone), every sample later than that complete.
add_library(stack_walk_late_jni SHARED native/late_jni.c)
jvmkit_shared_library_defaults(stack_walk_late_jni)
target_include_directories(stack_walk_late_jni SYSTEM PRIVATE ${JNI_INCLUDE_DIRS})
target_compile_options(stack_walk_late_jni PRIVATE -O2)
jvmkit_add_jvm_test(NAME stack_walk.native_dlopen MAIN jvmkit.test.walk.LateMain CLASSES ${_walk_classes}
                    AGENT stack_walk_native_agent
                    AGENT_OPTIONS "interval_us=1000,expect=late,min_samples=1000,min_late_samples=700"
                    JVM_ARGS -XX:CICompilerCount=2 "-Djvmkit.late.lib=$<TARGET_FILE:stack_walk_late_jni>" ARGS 1 2
                    TIMEOUT 60)
add_dependencies(stack_walk_native_agent stack_walk_late_jni)

# Torture (native/torture_jni.c, NativeTortureMain): dlopen/dlclose in a loop, rbp as a general
# register, an overwritten return address, threads started and ended in native code, fork from a
# JNI call, and garbage, at once, with every thread sampled at 1 kHz; under G1 and ZGC. The agent's
# checks of every trace's shape and of one outcome per request are the test.
add_library(stack_walk_torture_dl SHARED native/torture_dl.c)
target_compile_options(stack_walk_torture_dl PRIVATE -O2)
add_library(stack_walk_torture_jni SHARED native/torture_jni.c)
jvmkit_shared_library_defaults(stack_walk_torture_jni)
target_include_directories(stack_walk_torture_jni SYSTEM PRIVATE ${JNI_INCLUDE_DIRS})
target_compile_options(stack_walk_torture_jni PRIVATE -O2 -fomit-frame-pointer)
target_link_libraries(stack_walk_torture_jni PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
foreach(gc IN ITEMS G1 Z)
  string(TOLOWER "${gc}" _gc_name)
  jvmkit_add_jvm_test(NAME stack_walk.native_torture_${_gc_name} MAIN jvmkit.test.walk.NativeTortureMain
                      CLASSES ${_walk_classes} AGENT stack_walk_native_agent
                      AGENT_OPTIONS "interval_us=1000,min_samples=1000"
                      JVM_ARGS -XX:+Use${gc}GC -Xmx256m "-Djvmkit.torture.lib=$<TARGET_FILE:stack_walk_torture_jni>"
                               "-Djvmkit.torture.dl=$<TARGET_FILE:stack_walk_torture_dl>"
                      ARGS 4 TIMEOUT 90)
  add_dependencies(stack_walk_native_agent stack_walk_torture_dl stack_walk_torture_jni)
endforeach()

# RequestStackTrace with an explicit thread that is a virtual thread (JDK 21+): parked, running,
# ended (tests/stack_walk/virtual/other_thread_agent.cpp, OtherVirtualMain).
add_library(stack_walk_other_virtual_agent SHARED virtual/other_thread_agent.cpp)
target_link_libraries(stack_walk_other_virtual_agent PRIVATE jvmkit_walk_static)
jvmkit_shared_library_defaults(stack_walk_other_virtual_agent)
jvmkit_add_jvm_test(NAME stack_walk.other_virtual MAIN jvmkit.test.walk21.OtherVirtualMain
                    CLASSES java_test_stack_walk_jdk21 AGENT stack_walk_other_virtual_agent AGENT_OPTIONS "go"
                    MIN_JDK 21 TIMEOUT 60)
