# `cmake --install` layout (README "Using it from another project"):
#   include/jvmkit/*.h, *.hpp               the public headers
#   lib/libjvmkit_*.so, lib/libjvmkit_*.a   the libraries
#   lib/cmake/jvmkit/                       CMake package: find_package(jvmkit) -> jvmkit::<name>
#   lib/pkgconfig/jvmkit-<name>.pc          pkg-config, one file per library
#   bin/                                    tools (jvmkit, the profiler's command-line tool)
#   share/java/jvmkit.jar                   the profiler's Java API (java/CMakeLists.txt)
# Components call jvmkit_install_library() for each library they ship.

include(CMakePackageConfigHelpers)

install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/jvmkit" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")

get_property(_jvmkit_exported GLOBAL PROPERTY JVMKIT_EXPORTED_TARGETS)
if(_jvmkit_exported)
  install(EXPORT jvmkitTargets NAMESPACE jvmkit:: DESTINATION "${CMAKE_INSTALL_LIBDIR}/cmake/jvmkit")
endif()
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/jvmkitConfig.cmake.in"
                              "${PROJECT_BINARY_DIR}/jvmkitConfig.cmake"
                              INSTALL_DESTINATION "${CMAKE_INSTALL_LIBDIR}/cmake/jvmkit")
write_basic_package_version_file("${PROJECT_BINARY_DIR}/jvmkitConfigVersion.cmake"
                                 COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/jvmkitConfig.cmake" "${PROJECT_BINARY_DIR}/jvmkitConfigVersion.cmake"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}/cmake/jvmkit")
