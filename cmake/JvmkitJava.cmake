# Compiling the project's Java programs (demo, test programs) with the JDKs found by JvmkitJdks.

# jvmkit_add_java_classes(<target> RELEASE <n> SOURCES <files...>)
# Compiles Java sources with javac --release <n> into ${CMAKE_BINARY_DIR}/classes/<target>. The
# JDK 17 javac is used for release 17; newer releases use the newest JDK found, and the target is
# not created (JVMKIT_HAVE_JAVA_<target> is OFF) when no JDK is new enough.
# Sets JVMKIT_CLASSES_<target> (the class directory) for the whole project.
function(jvmkit_add_java_classes target)
  cmake_parse_arguments(ARG "" "RELEASE" "SOURCES" ${ARGN})
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
  add_custom_command(
    OUTPUT "${stamp}"
    COMMAND ${CMAKE_COMMAND} -E rm -rf "${outdir}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${outdir}"
    COMMAND "${javac}" --release ${ARG_RELEASE} -Xlint:all,-options -Werror -d "${outdir}" ${ARG_SOURCES}
    COMMAND ${CMAKE_COMMAND} -E touch "${stamp}"
    DEPENDS ${ARG_SOURCES}
    WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
    COMMENT "javac --release ${ARG_RELEASE}: ${target}"
    VERBATIM)
  add_custom_target(${target} ALL DEPENDS "${stamp}")
  set(JVMKIT_HAVE_JAVA_${target} ON CACHE INTERNAL "")
  set(JVMKIT_CLASSES_${target} "${outdir}" CACHE INTERNAL "")
endfunction()

