# Finds the JDKs the JVM tests run on, and the JNI headers everything compiles against.
#
# JDKs, in this order:
#   - Debian's JDK 17 (JVMKIT_JDK17_HOME): required; its headers are the ones we compile against.
#   - Temurin 25 (JVMKIT_JDK25_HOME): used when present, skipped (and said so) otherwise.
#   - Any JDK homes named in the environment variable JVMKIT_EXTRA_JDKS (colon-separated).
# The result is JVMKIT_JDK_TAGS (e.g. "jdk17;jdk25") with, for each tag, JVMKIT_JDK_HOME_<tag> and
# JVMKIT_JDK_FEATURE_<tag>; and ${CMAKE_BINARY_DIR}/jdk-report.txt, which says what runs and why.

set(JVMKIT_JDK17_HOME "/usr/lib/jvm/java-17-openjdk-amd64" CACHE PATH "Debian's JDK 17 (required)")
set(JVMKIT_JDK25_HOME "/usr/lib/jvm/temurin-25-jdk-amd64" CACHE PATH "Temurin 25 (optional)")

if(NOT EXISTS "${JVMKIT_JDK17_HOME}/bin/java")
  message(FATAL_ERROR "JDK 17 not found at ${JVMKIT_JDK17_HOME}: run scripts/setup.sh "
                      "(it installs openjdk-17-jdk-headless) or set -DJVMKIT_JDK17_HOME=...")
endif()

set(JAVA_HOME "${JVMKIT_JDK17_HOME}")
set(ENV{JAVA_HOME} "${JVMKIT_JDK17_HOME}")
find_package(JNI REQUIRED)
set(JVMKIT_JAVAC "${JVMKIT_JDK17_HOME}/bin/javac")

# Reads KEY="value" from a JDK's `release` file into OUT (empty when absent).
function(_jvmkit_release_value home key out)
  set(value "")
  if(EXISTS "${home}/release")
    file(STRINGS "${home}/release" lines REGEX "^${key}=")
    if(lines)
      list(GET lines 0 line)
      string(REGEX REPLACE "^${key}=\"?([^\"]*)\"?$" "\\1" value "${line}")
    endif()
  endif()
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

set(JVMKIT_JDK_TAGS "")
set(_jvmkit_jdk_report "")

# Registers the JDK at HOME (named by WHY in the report) when it exists, or records why it is skipped.
function(_jvmkit_add_jdk home why)
  if(NOT EXISTS "${home}/bin/java")
    set(_jvmkit_jdk_report "${_jvmkit_jdk_report}skipped ${why} at ${home}: not installed\n" PARENT_SCOPE)
    return()
  endif()
  _jvmkit_release_value("${home}" JAVA_VERSION version)
  _jvmkit_release_value("${home}" IMPLEMENTOR vendor)
  string(REGEX MATCH "^[0-9]+" feature "${version}")
  if(NOT feature OR feature LESS 17)
    set(_jvmkit_jdk_report "${_jvmkit_jdk_report}skipped ${why} at ${home}: version '${version}' is not 17 or later\n" PARENT_SCOPE)
    return()
  endif()
  set(tag "jdk${feature}")
  if(tag IN_LIST JVMKIT_JDK_TAGS)
    set(_jvmkit_jdk_report "${_jvmkit_jdk_report}skipped ${why} at ${home}: a JDK ${feature} is already used\n" PARENT_SCOPE)
    return()
  endif()
  set(JVMKIT_JDK_TAGS ${JVMKIT_JDK_TAGS} ${tag} PARENT_SCOPE)
  set(JVMKIT_JDK_HOME_${tag} "${home}" PARENT_SCOPE)
  set(JVMKIT_JDK_FEATURE_${tag} "${feature}" PARENT_SCOPE)
  set(_jvmkit_jdk_report "${_jvmkit_jdk_report}runs ${tag}: ${vendor} ${version} at ${home} (${why})\n" PARENT_SCOPE)
endfunction()

_jvmkit_add_jdk("${JVMKIT_JDK17_HOME}" "Debian JDK 17")
_jvmkit_add_jdk("${JVMKIT_JDK25_HOME}" "Temurin 25")
if(DEFINED ENV{JVMKIT_EXTRA_JDKS})
  string(REPLACE ":" ";" _extra "$ENV{JVMKIT_EXTRA_JDKS}")
  foreach(home IN LISTS _extra)
    if(home)
      _jvmkit_add_jdk("${home}" "JVMKIT_EXTRA_JDKS")
    endif()
  endforeach()
endif()

# The newest JDK found, for Java sources that need a newer --release (virtual threads, ...).
set(JVMKIT_NEWEST_JDK_TAG "jdk17")
foreach(tag IN LISTS JVMKIT_JDK_TAGS)
  if(JVMKIT_JDK_FEATURE_${tag} GREATER JVMKIT_JDK_FEATURE_${JVMKIT_NEWEST_JDK_TAG})
    set(JVMKIT_NEWEST_JDK_TAG ${tag})
  endif()
endforeach()

file(WRITE "${CMAKE_BINARY_DIR}/jdk-report.txt" "${_jvmkit_jdk_report}")
message(STATUS "JDKs for the JVM tests:\n${_jvmkit_jdk_report}")
