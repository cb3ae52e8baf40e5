# elfutils (Debian's libelf-dev and libdw-dev): libelf reads ELF headers and symbol tables
# (src/hotspot, src/native), libdw tells what a CFI rule means and libdwfl finds symbols and
# separate debug files (src/native). Found once here, before any component, because jvmkit_hotspot
# is configured before jvmkit_native and both need them.
#
# Linked by plain library names, so that the installed CMake package and the static library's
# pkg-config file name them as -ldw -lelf.
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBDW REQUIRED libdw libelf)
pkg_check_modules(LIBELF REQUIRED libelf)

# For the libraries that take jvmkit_native's objects (they link these themselves).
set(JVMKIT_NATIVE_LIBRARIES ${LIBDW_LIBRARIES} CACHE INTERNAL "What jvmkit_native's objects link")
# For the targets that take only jvmkit_hotspot's objects: libelf alone, so that libjvmkit_state.so
# and the command-line tool do not depend on libdw and what it pulls in (libz, liblzma, libbz2).
set(JVMKIT_ELF_LIBRARIES ${LIBELF_LIBRARIES} CACHE INTERNAL "What jvmkit_hotspot's objects link")
