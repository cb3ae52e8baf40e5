// Where a loaded object's separate debug file is found, without the network.
//
// Distributions strip their libraries and ship the full symbol tables in separate debug files
// (Debian's libc6-dbg, *-dbgsym): /usr/lib/debug/.build-id/ab/cdef....debug, named by the
// object's build-id, or a file the object names in its .gnu_debuglink section. libdwfl's
// dwfl_standard_find_debuginfo also searches those, but may then ask a debuginfod server over the
// network (loading libdebuginfod and its 33 libraries); jvmkit never does. A debug file is used only
// when its build-id equals the object's: a stale or foreign file would name the wrong functions.
//
// Not signal context: these read files and allocate.
#pragma once

#include <elfutils/libdwfl.h>
#include <libelf.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace jvmkit::native {

// The debug-file search path in libdwfl's notation: entries separated by ':'; an empty entry is
// the object's own directory, a relative one a subdirectory of it (".debug"), an absolute one a
// debug root (its .build-id/ tree, and the object's directory under it). The value of
// $JVMKIT_DEBUGINFO_PATH when set and not empty, else ":.debug:/usr/lib/debug".
std::string debuginfo_path_from_environment();

// The files a .gnu_debuglink name DEBUGLINK of the object at OBJECT_PATH may be, in search order,
// for each entry of DEBUGINFO_PATH. For /usr/lib/x/libfoo.so, "libfoo.debug" and the default
// path: /usr/lib/x/libfoo.debug, /usr/lib/x/.debug/libfoo.debug,
// /usr/lib/debug/usr/lib/x/libfoo.debug. When the object's directory is reached through a
// symbolic link (Debian's /lib -> usr/lib), its real directory is tried too. Never the object.
std::vector<std::string> debuglink_candidates(const std::string& object_path, const std::string& debuglink,
                                              const std::string& debuginfo_path);

// True when ELF has an NT_GNU_BUILD_ID note equal to BUILD_ID, which must not be empty.
bool has_build_id(Elf* elf, std::span<const uint8_t> build_id);

// The module userdata that find_debuginfo reads and fills.
struct DebugFileSearch {
  std::string debuginfo_path;  // as debuginfo_path_from_environment() describes it
  std::string found;           // the debug file handed to libdwfl; empty when none was
};

// A Dwfl_Callbacks::find_debuginfo: first the build-id tree of each debug root
// (dwfl_build_id_find_debuginfo, which checks the file's build-id), then the .gnu_debuglink
// candidates, each opened and checked against the module's build-id (an object without a
// build-id gets no debug file: nothing could tell a matching one). *USERDATA must point to a
// DebugFileSearch. Returns an open descriptor that libdwfl takes over, or -1.
int find_debuginfo(Dwfl_Module* module, void** userdata, const char* module_name, Dwarf_Addr base,
                   const char* file_name, const char* debuglink, GElf_Word debuglink_crc, char** debuginfo_file_name);

}  // namespace jvmkit::native
