# Test helpers. Every test is driven by ctest and carries a label:
#   unit  GoogleTest tests of the C++ core (also built with sanitizers, see JVMKIT_SANITIZE)
#   jvm   a real `java` process that loads our library or agent, once per JDK in JVMKIT_JDK_TAGS
#   slow  long runs kept out of the default test command (run with: ctest -L slow)

find_package(GTest REQUIRED)
include(GoogleTest)

# jvmkit_add_unit_test(NAME <name> SOURCES <files...> [LIBS <targets...>] [THREADS])
# One GoogleTest executable; each TEST() becomes its own ctest test, named <name>.<Suite>.<Test>.
# THREADS: the tests run code on several threads; they get the label "unit-threads" and the target
# threaded_unit_tests, which the ThreadSanitizer build builds and runs.
function(jvmkit_add_unit_test)
  cmake_parse_arguments(ARG "THREADS" "NAME" "SOURCES;LIBS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  jvmkit_target_defaults(${ARG_NAME})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main Threads::Threads)
  # One label (gtest_discover_tests flattens a list of them): "unit", or "unit-threads", which
  # ctest -L unit selects too (-L takes a regular expression).
  set(label unit)
  if(ARG_THREADS)
    set(label unit-threads)
  endif()
  gtest_discover_tests(${ARG_NAME} TEST_PREFIX "${ARG_NAME}." PROPERTIES LABELS ${label} DISCOVERY_TIMEOUT 60)
  # The sanitizer builds build only these (targets unit_tests, threaded_unit_tests), not the agents
  # and JNI libraries.
  foreach(group unit_tests threaded_unit_tests)
    if(NOT TARGET ${group})
      add_custom_target(${group})
    endif()
  endforeach()
  add_dependencies(unit_tests ${ARG_NAME})
  if(ARG_THREADS)
    add_dependencies(threaded_unit_tests ${ARG_NAME})
  endif()
endfunction()

find_package(Threads REQUIRED)

# jvmkit_add_jdk_test(NAME <name> COMMAND <command...> [MIN_JDK <n>] [MAX_JDK <n>] [TIMEOUT <s>]
#                     [LABELS <labels...>] [ENVIRONMENT_MODIFICATION <VAR=op:value...>] [RUN_SERIAL])
# Adds one ctest test per JDK in JVMKIT_JDK_TAGS (of feature >= MIN_JDK, and <= MAX_JDK when given:
# MAX_JDK 17 for a test of what the JDK does not change, e.g. a page in a browser), named
# jvm.<name>.<jdk tag>, labelled jvm and <jdk tag>. COMMAND may use the placeholders @JAVA@ (that
# JDK's java), @JDK_HOME@, @JDK_FEATURE@, @JDK_TAG@, @BINARY_DIR@ and @TEST_NAME@; the environment has
# JAVA_HOME and JVMKIT_TEST_JDK (the tag) set, changed further by ENVIRONMENT_MODIFICATION (ctest's
# test property: JVMKIT_AGENT_PATH=unset: or JVMKIT_AGENT_PATH=set:/x). Use it for tests that drive
# java from a script.
# RUN_SERIAL is for tests whose result depends on CPU time being available (sampling rates, bias).
function(jvmkit_add_jdk_test)
  cmake_parse_arguments(ARG "RUN_SERIAL" "NAME;MIN_JDK;MAX_JDK;TIMEOUT" "COMMAND;LABELS;ENVIRONMENT_MODIFICATION" ${ARGN})
  if(JVMKIT_UNIT_TESTS_ONLY)
    return()
  endif()
  if(NOT ARG_MIN_JDK)
    set(ARG_MIN_JDK 17)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  foreach(tag IN LISTS JVMKIT_JDK_TAGS)
    set(feature ${JVMKIT_JDK_FEATURE_${tag}})
    if(feature LESS ARG_MIN_JDK OR (ARG_MAX_JDK AND feature GREATER ARG_MAX_JDK))
      continue()
    endif()
    set(home "${JVMKIT_JDK_HOME_${tag}}")
    set(test_name "jvm.${ARG_NAME}.${tag}")
    set(cmd ${ARG_COMMAND})
    list(TRANSFORM cmd REPLACE "@JAVA@" "${home}/bin/java")
    list(TRANSFORM cmd REPLACE "@JDK_HOME@" "${home}")
    list(TRANSFORM cmd REPLACE "@JDK_FEATURE@" "${feature}")
    list(TRANSFORM cmd REPLACE "@JDK_TAG@" "${tag}")
    list(TRANSFORM cmd REPLACE "@BINARY_DIR@" "${CMAKE_BINARY_DIR}")
    list(TRANSFORM cmd REPLACE "@TEST_NAME@" "${test_name}")
    add_test(NAME ${test_name} COMMAND ${cmd})
    set_tests_properties(${test_name} PROPERTIES LABELS "jvm;${tag};${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT}
                         ENVIRONMENT "JAVA_HOME=${home};JVMKIT_TEST_JDK=${tag}")
    if(ARG_RUN_SERIAL)
      set_tests_properties(${test_name} PROPERTIES RUN_SERIAL ON)
    endif()
    if(ARG_ENVIRONMENT_MODIFICATION)
      set_tests_properties(${test_name} PROPERTIES ENVIRONMENT_MODIFICATION "${ARG_ENVIRONMENT_MODIFICATION}")
    endif()
  endforeach()
endfunction()

# jvmkit_add_jvm_test(NAME <name> MAIN <class> CLASSES <java target>
#                     [AGENT <library target>] [AGENT_OPTIONS <string>]
#                     [NATIVE_LIBS <library targets...>]   (their directories go on java.library.path)
#                     [JVM_ARGS <args...>] [ARGS <args...>] [MIN_JDK <n>] [TIMEOUT <s>]
#                     [LABELS <labels...>] [ENVIRONMENT_MODIFICATION <VAR=op:value...>] [RUN_SERIAL])
# Adds one test per JDK (see jvmkit_add_jdk_test, same placeholders) that runs
#   java [-agentpath:<agent>=<options>] <JVM_ARGS> -cp <class path> <MAIN> <ARGS>
# and passes when java exits with status 0. The class path is the java target's classes and what
# they compile against (JVMKIT_CLASSPATH_<target>: jvmkit.jar for a folder that uses the Java API).
function(jvmkit_add_jvm_test)
  cmake_parse_arguments(ARG "RUN_SERIAL" "NAME;MAIN;CLASSES;AGENT;AGENT_OPTIONS;MIN_JDK;TIMEOUT"
                        "NATIVE_LIBS;JVM_ARGS;ARGS;LABELS;ENVIRONMENT_MODIFICATION" ${ARGN})
  if(JVMKIT_UNIT_TESTS_ONLY)
    return()
  endif()
  if(NOT JVMKIT_HAVE_JAVA_${ARG_CLASSES})
    message(STATUS "jvm.${ARG_NAME}: skipped, its Java classes (${ARG_CLASSES}) need a newer JDK")
    return()
  endif()
  set(cmd "@JAVA@")
  if(ARG_AGENT)
    if(ARG_AGENT_OPTIONS)
      list(APPEND cmd "-agentpath:$<TARGET_FILE:${ARG_AGENT}>=${ARG_AGENT_OPTIONS}")
    else()
      list(APPEND cmd "-agentpath:$<TARGET_FILE:${ARG_AGENT}>")
    endif()
  endif()
  set(libpath "")
  foreach(lib IN LISTS ARG_NATIVE_LIBS)
    list(APPEND libpath "$<TARGET_FILE_DIR:${lib}>")
  endforeach()
  if(libpath)
    list(JOIN libpath ":" libpath)
    list(APPEND cmd "-Djava.library.path=${libpath}")
  endif()
  set(classpath "${JVMKIT_CLASSPATH_${ARG_CLASSES}}")
  if(NOT classpath)
    set(classpath "${JVMKIT_CLASSES_${ARG_CLASSES}}")
  endif()
  list(APPEND cmd ${ARG_JVM_ARGS} -cp "${classpath}" ${ARG_MAIN} ${ARG_ARGS})
  set(serial "")
  if(ARG_RUN_SERIAL)
    set(serial RUN_SERIAL)
  endif()
  jvmkit_add_jdk_test(NAME ${ARG_NAME} COMMAND ${cmd} MIN_JDK ${ARG_MIN_JDK} TIMEOUT ${ARG_TIMEOUT}
                      LABELS ${ARG_LABELS} ENVIRONMENT_MODIFICATION ${ARG_ENVIRONMENT_MODIFICATION} ${serial})
endfunction()
