// The objects the dynamic loader has mapped into this process (the program, its shared libraries,
// the vDSO), as the native-frames unwinder needs them: where each one's code is, its load bias,
// and the build-id that ties the image in memory to a file on disk.
//
// Not signal context: these walk the loader's list (dl_iterate_phdr takes the loader's lock) and
// allocate. The signal side reads immutable tables built from them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace jvmkit::native {

// [start, end) of absolute addresses.
struct AddressRange {
  uintptr_t start = 0;
  uintptr_t end = 0;
  bool holds(uintptr_t address) const { return address >= start && address < end; }
};

struct LoadedObject {
  // The path the loader opened: the program's own path (from /proc/self/exe) for the main
  // program, "[vdso]" for the vDSO, else the loader's name (absolute for libraries found by
  // search, as given for dlopen with a path).
  std::string path;
  uintptr_t bias = 0;              // dlpi_addr: addresses in the ELF file + bias = in memory
  std::vector<AddressRange> text;  // the executable PT_LOAD segments, absolute
  std::vector<uint8_t> build_id;   // the NT_GNU_BUILD_ID note of the image in memory; empty if none
  uintptr_t eh_frame_hdr = 0;      // absolute address of PT_GNU_EH_FRAME, 0 if none
  bool is_vdso = false;
  bool is_main_program = false;
  // Its dynamic section's DT_SONAME and DT_NEEDED names ("libz.so.1"): the objects the loader keeps
  // loaded as long as this one is.
  std::string soname;
  std::vector<std::string> needed;

  // True when ADDRESS lies in one of the executable segments.
  bool holds_code(uintptr_t address) const;
};

// Every loaded object with executable code, in the loader's order (the program first). Each call
// walks the loader's list anew.
std::vector<LoadedObject> loaded_objects();

// The loader's count of objects ever loaded and unloaded. Comparing two of these is the cheap
// test of "did anything change": when they are equal, loaded_objects() would answer the same.
struct LoadGeneration {
  unsigned long long adds = 0;
  unsigned long long subs = 0;
  bool operator==(const LoadGeneration&) const = default;
};
LoadGeneration load_generation();

// The build-id as the lower-case hex string the debug-file tree is named by
// (/usr/lib/debug/.build-id/ab/cdef....debug).
std::string hex(const std::vector<uint8_t>& build_id);

// The last path component ("libz.so.1" of "/lib/x86_64-linux-gnu/libz.so.1").
std::string base_name(const std::string& path);

}  // namespace jvmkit::native
