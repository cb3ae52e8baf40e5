# JVM tests of the native state tables: java/tests/native_state programs, run on every JDK, most of
# them under -Xcheck:jni with any JNI warning turned into a failure (run_checked.sh).

add_library(native_state_test_jni SHARED test_jni.cpp)
add_library(native_state_cpp_api_jni SHARED cpp_api_jni.cpp)
add_library(native_state_classpath_c SHARED classpath_consumer.c)
set_target_properties(native_state_classpath_c PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
target_compile_options(native_state_classpath_c PRIVATE -pedantic-errors)
foreach(lib native_state_test_jni native_state_cpp_api_jni native_state_classpath_c)
  target_link_libraries(${lib} PRIVATE jvmkit_state)
  jvmkit_shared_library_defaults(${lib})
  # The tests' JNI libraries go next to each other so that one java.library.path finds them.
  set_target_properties(${lib} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/jni")
endforeach()

set(_ns_classes "${JVMKIT_CLASSES_java_test_native_state}")
set(_ns_libpath "${CMAKE_CURRENT_BINARY_DIR}/jni")
set(_ns_hash_1 -XX:+UnlockExperimentalVMOptions -XX:hashCode=2)

# native_state_jvm_test(<name> <main class> [JVM <jvm args...>] [ARGS <args...>] [TIMEOUT <s>]
#                       [RUN_SERIAL] [NO_CHECK_JNI])
function(native_state_jvm_test name main)
  cmake_parse_arguments(ARG "RUN_SERIAL;NO_CHECK_JNI" "TIMEOUT" "JVM;ARGS" ${ARGN})
  set(check -Xcheck:jni)
  if(ARG_NO_CHECK_JNI)
    set(check "")
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 60)
  endif()
  set(serial "")
  if(ARG_RUN_SERIAL)
    set(serial)
  endif()
  jvmkit_add_jdk_test(NAME native_state.${name} TIMEOUT ${ARG_TIMEOUT} ${serial}
    COMMAND "${CMAKE_CURRENT_SOURCE_DIR}/run_checked.sh" @JAVA@ ${check} -Xmx256m
            "-Djava.library.path=${_ns_libpath}" ${ARG_JVM} -cp "${_ns_classes}"
            jvmkit.test.nativestate.${main} ${ARG_ARGS})
endfunction()

native_state_jvm_test(api ApiSemanticsTest)
native_state_jvm_test(classpath_c ClasspathPeer)
# GNU Classpath's own code: set_state(NULL), objects of unrelated classes with their own
# native_state field in one table, also when every identity hash collides.
native_state_jvm_test(classpath_compat ClasspathCompatTest)
native_state_jvm_test(classpath_compat_collisions ClasspathCompatTest JVM ${_ns_hash_1} ARGS 1500)
# 10,000 objects that all have identity hash 1: every lookup compares against every entry, and
# checked JNI makes each IsSameObject ~4x slower, so the full size runs unchecked and a smaller
# one checked.
native_state_jvm_test(collisions CollisionTest JVM ${_ns_hash_1} ARGS 10000 NO_CHECK_JNI)
native_state_jvm_test(collisions_checked CollisionTest JVM ${_ns_hash_1} ARGS 2000)
native_state_jvm_test(concurrency ConcurrencyTest ARGS 4 3000)
native_state_jvm_test(concurrency_collisions ConcurrencyTest JVM ${_ns_hash_1} ARGS 4 2000)
native_state_jvm_test(oid_lock OidLockTest)
native_state_jvm_test(finalize_cleaner FinalizeCleanerTest)
native_state_jvm_test(cpp_api CppApiTest)
