# jvmkit_install_library(<target> EXPORT_NAME <name> DESCRIPTION <text> [LIBS_PRIVATE <libs...>])
# Installs a shipped library under lib/, exports it as jvmkit::<name> in the CMake package, and
# writes lib/pkgconfig/jvmkit-<name>.pc. Cflags name both include/ (for <jvmkit/x.h>) and
# include/jvmkit/ (for the drop-in "native_state.h"), plus the JNI headers jvmkit was built with.
# LIBS_PRIVATE: system libraries a static library needs at link time (pkg-config Libs.private).
function(jvmkit_install_library target)
  cmake_parse_arguments(ARG "" "EXPORT_NAME;DESCRIPTION" "LIBS_PRIVATE" ${ARGN})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${ARG_EXPORT_NAME})
  target_include_directories(${target} INTERFACE
    "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>"
    "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include/jvmkit>"
    "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>"
    "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/jvmkit>")
  target_include_directories(${target} SYSTEM INTERFACE ${JNI_INCLUDE_DIRS})
  install(TARGETS ${target} EXPORT jvmkitTargets
          LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
  set_property(GLOBAL APPEND PROPERTY JVMKIT_EXPORTED_TARGETS ${target})

  get_target_property(type ${target} TYPE)
  get_target_property(output_name ${target} OUTPUT_NAME)
  if(NOT output_name)
    set(output_name ${target})
  endif()
  set(jni_cflags "")
  foreach(dir IN LISTS JNI_INCLUDE_DIRS)
    string(APPEND jni_cflags " -I${dir}")
  endforeach()
  set(libs_private "")
  if(type STREQUAL "STATIC_LIBRARY")
    set(libs_private "-lpthread -ldl -lstdc++")
    foreach(lib IN LISTS ARG_LIBS_PRIVATE)
      string(APPEND libs_private " -l${lib}")
    endforeach()
  endif()
  file(GENERATE OUTPUT "${PROJECT_BINARY_DIR}/pkgconfig/jvmkit-${ARG_EXPORT_NAME}.pc" CONTENT
"prefix=\${pcfiledir}/../..
libdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}
includedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}

Name: jvmkit-${ARG_EXPORT_NAME}
Description: ${ARG_DESCRIPTION}
Version: ${PROJECT_VERSION}
Cflags: -I\${includedir} -I\${includedir}/jvmkit${jni_cflags}
Libs: -L\${libdir} -l${output_name}
Libs.private: ${libs_private}
")
  install(FILES "${PROJECT_BINARY_DIR}/pkgconfig/jvmkit-${ARG_EXPORT_NAME}.pc"
          DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
endfunction()
