# Compiling the project's Java programs (demo, test programs) with the JDKs found by JvmkitJdks.

# The Java API (java/api, package org.jvmkit; built by java/CMakeLists.txt): its jar, and the JNI
# headers javac writes for its native methods, which the agent's natives (src/profiler) include so
# that their signatures are checked against the Java declarations. Fixed paths: src/ is configured
# before java/.
set(JVMKIT_JAR "${CMAKE_BINARY_DIR}/java/jvmkit.jar")
set(JVMKIT_JNI_HEADERS "${CMAKE_BINARY_DIR}/java/jni")

# jvmkit_add_java_classes(<target> RELEASE <n> SOURCES <files...> [CLASSPATH <entries...>]
#                         [DEPENDS <targets or files...>])
# Compiles Java sources with javac --release <n> into ${CMAKE_BINARY_DIR}/classes/<target>. The
# JDK 17 javac is used for release 17; newer releases use the newest JDK found, and the target is
# not created (JVMKIT_HAVE_JAVA_<target> is OFF) when no JDK is new enough.
# CLASSPATH: jars or class directories the sources compile against (and run with), e.g.
# ${JVMKIT_JAR} with DEPENDS jvmkit_jar.
# Sets JVMKIT_CLASSES_<target> (the class directory) and JVMKIT_CLASSPATH_<target> (the class
# directory and CLASSPATH, for java -cp) for the whole project.
function(jvmkit_add_java_classes target)
  cmake_parse_arguments(ARG "" "RELEASE" "SOURCES;CLASSPATH;DEPENDS" ${ARGN})
  if(NOT ARG_RELEASE)
    set(ARG_RELEASE 17)
  endif()
  set(javac "${JVMKIT_JAVAC}")
  if(ARG_RELEASE GREATER 17)
    if(JVMKIT_JDK_FEATURE_${JVMKIT_NEWEST_JDK_TAG} LESS ARG_RELEASE)
      set(JVMKIT_HAVE_JAVA_${target} OFF CACHE INTERNAL "")
      return()
    endif()
    set(javac "${JVMKIT_JDK_HOME_${JVMKIT_NEWEST_JDK_TAG}}/bin/javac")
  endif()
  set(outdir "${CMAKE_BINARY_DIR}/classes/${target}")
  set(stamp "${CMAKE_BINARY_DIR}/classes/${target}.stamp")
  set(classpath_args "")
  if(ARG_CLASSPATH)
    list(JOIN ARG_CLASSPATH ":" classpath)
    set(classpath_args -cp "${classpath}")
  endif()
  add_custom_command(
    OUTPUT "${stamp}"
    COMMAND ${CMAKE_COMMAND} -E rm -rf "${outdir}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${outdir}"
    COMMAND "${javac}" --release ${ARG_RELEASE} -Xlint:all,-options -Werror ${classpath_args} -d "${outdir}"
            ${ARG_SOURCES}
    COMMAND ${CMAKE_COMMAND} -E touch "${stamp}"
    DEPENDS ${ARG_SOURCES} ${ARG_CLASSPATH} ${ARG_DEPENDS}
    WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
    COMMENT "javac --release ${ARG_RELEASE}: ${target}"
    VERBATIM)
  add_custom_target(${target} ALL DEPENDS "${stamp}")
  set(JVMKIT_HAVE_JAVA_${target} ON CACHE INTERNAL "")
  set(JVMKIT_CLASSES_${target} "${outdir}" CACHE INTERNAL "")
  list(JOIN ARG_CLASSPATH ":" classpath)
  if(classpath)
    set(classpath "${outdir}:${classpath}")
  else()
    set(classpath "${outdir}")
  endif()
  set(JVMKIT_CLASSPATH_${target} "${classpath}" CACHE INTERNAL "")
endfunction()

# jvmkit_add_jar(<target> OUTPUT <jar> SOURCES <files...> [JNI_HEADERS <dir>])
# Compiles Java sources with the JDK 17 javac (--release 17) and packs the classes with that JDK's
# jar tool into OUTPUT, with a manifest that gives the project's name and version. JNI_HEADERS: the
# directory javac -h writes a C header to for each class with native methods.
function(jvmkit_add_jar target)
  cmake_parse_arguments(ARG "" "OUTPUT;JNI_HEADERS" "SOURCES" ${ARGN})
  get_filename_component(jdk_bin "${JVMKIT_JAVAC}" DIRECTORY)
  if(NOT EXISTS "${jdk_bin}/jar")
    message(FATAL_ERROR "${jdk_bin}/jar not found: the JDK at ${JVMKIT_JDK17_HOME} has no jar tool")
  endif()
  set(classes "${CMAKE_CURRENT_BINARY_DIR}/${target}.classes")
  set(manifest "${CMAKE_CURRENT_BINARY_DIR}/${target}.manifest")
  # Written only when it changes (a new manifest would rebuild the jar at every configure).
  file(CONFIGURE OUTPUT "${manifest}"
       CONTENT "Implementation-Title: ${PROJECT_NAME}\nImplementation-Version: ${PROJECT_VERSION}\n")
  set(header_args "")
  if(ARG_JNI_HEADERS)
    set(header_args -h "${ARG_JNI_HEADERS}")
  endif()
  add_custom_command(
    OUTPUT "${ARG_OUTPUT}"
    COMMAND ${CMAKE_COMMAND} -E rm -rf "${classes}" "${ARG_OUTPUT}" ${ARG_JNI_HEADERS}
    COMMAND ${CMAKE_COMMAND} -E make_directory "${classes}"
    COMMAND "${JVMKIT_JAVAC}" --release 17 -Xlint:all,-options -Werror ${header_args} -d "${classes}" ${ARG_SOURCES}
    COMMAND "${jdk_bin}/jar" --create --file "${ARG_OUTPUT}" --manifest "${manifest}" -C "${classes}" .
    DEPENDS ${ARG_SOURCES} "${manifest}"
    WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
    COMMENT "javac --release 17, jar: ${ARG_OUTPUT}"
    VERBATIM)
  add_custom_target(${target} ALL DEPENDS "${ARG_OUTPUT}")
endfunction()

