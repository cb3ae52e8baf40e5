// The unwind-table compiler: one ELF object's DWARF CFI, as elfutils' libdw understands it,
// becomes the sorted UnwindRows the signal side searches (unwind_table.hpp).
//
// For each FDE of the object's .eh_frame_hdr table, the rows of its program come from one pass
// over it (cfi_program.hpp) when it is of the common shapes, and otherwise from libdw
// (dwarf_cfi_addrframe, dwarf_frame_info, and each row's rules from dwarf_frame_cfa and
// dwarf_frame_register); cfi_expr.cpp turns the rules into one UnwindRow, or an unsupported row.
// Adjacent rows with the same rule are merged, and a kNoInfo row marks every FDE end that no other
// FDE follows at once, so that a PC in a gap never inherits the rule of the code before it.
//
// The object is read from its file, which is only valid for the image in memory if it is the same
// build: compile_cfi_file refuses a file whose build-id is not the expected one (a library
// replaced on disk by a package upgrade keeps no table, rather than a wrong one).
//
// Not signal context: libelf and libdw allocate. Not thread-safe: an Elf*, and the Dwarf_CFI made
// from it, belong to the one thread that prepares tables. Nothing here throws; failures are values.
#pragma once

#include <libelf.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "native/cfi_expr.hpp"
#include "native/elfutils_handles.hpp"
#include "native/unwind_table.hpp"

namespace jvmkit::native {

// What one compilation found, for reports and tests.
struct CfiStats {
  uint32_t fdes = 0;                                   // distinct FDE starts
  uint32_t libdw_fdes = 0;                             // of those, compiled row by row through libdw
  uint32_t empty_fdes = 0;                             // FDEs libdw finds no row in (zero length)
  uint32_t overlapping_fdes = 0;                       // FDEs whose range runs past the next FDE's start
  uint32_t libdw_rows = 0;                             // rows as libdw gives them, before merging
  uint32_t rows = 0;                                   // UnwindRows kept, kNoInfo rows included
  uint32_t no_info_rows = 0;                           // kNoInfo rows: gaps after FDEs
  uint32_t unsupported_rows = 0;                       // kUnsupported rows kept
  uint32_t rbp_unknown_rows = 0;                       // rows kept that unwind but lose the caller's rbp
  uint32_t unsupported[kUnsupportedReasonCount] = {};  // libdw rows by reason, before merging
  uint64_t bytes = 0;                                  // the rows' memory
  uint64_t compile_ns = 0;                             // opening, checking and compiling
  bool debug_frame = false;                            // compiled from .debug_frame: the object has no .eh_frame
};

enum class CfiError : uint8_t {
  kNone = 0,
  kOpen,             // the file could not be opened or is not an ELF object
  kNoBuildId,        // the image in memory or the file has no build-id: nothing ties them together
  kBuildIdMismatch,  // the file is not the build that is loaded
  kNoCfi,            // neither .eh_frame nor .debug_frame
  kEhFrameHdr,       // .eh_frame without a usable .eh_frame_hdr table
  kAddressRange,     // an FDE 4 GiB or more above the object's base: rows hold 32-bit offsets
  kLibdw,            // libdw refused the object's CFI
};

// A short name for reports ("build-id mismatch").
const char* to_string(CfiError error) noexcept;

struct CompiledCfi {
  CfiError error = CfiError::kNone;
  std::string detail;           // with an error: what exactly failed
  std::vector<UnwindRow> rows;  // sorted by start; empty with an error
  // Where each function's call-frame information starts (its FDE), sorted: the function a PC
  // without a symbol lies in, so that frames of one unnamed function share one name.
  std::vector<uint32_t> function_starts;
  CfiStats stats;
};

// An ELF object opened for reading with libelf: a file (mapped, ELF_C_READ_MMAP) or a private copy
// of an image in memory (the vDSO, which has no file). Owns its descriptor and Elf*.
class ElfImage {
 public:
  ElfImage() = default;
  ElfImage(ElfImage&&) noexcept = default;
  // Not assignable: the members' order of release (the Elf* before what it reads) is kept only
  // by destruction.
  ElfImage& operator=(ElfImage&&) = delete;

  // An invalid image (elf() == nullptr) on failure, with the reason in *WHY.
  static ElfImage open_file(const std::string& path, std::string* why);
  static ElfImage from_memory(std::span<const uint8_t> image, std::string* why);

  Elf* elf() const noexcept { return elf_.get(); }
  // The NT_GNU_BUILD_ID of the object; empty if it has none.
  std::vector<uint8_t> build_id() const;

 private:
  // Declared before elf_, so that they outlive it.
  FileDescriptor fd_;
  std::vector<uint8_t> copy_;  // from_memory: the bytes libelf reads
  ElfHandle elf_;
};

// How FDE programs are compiled: kFastPath runs the common ones in one pass (cfi_program.hpp) and
// the rest through libdw; kLibdwOnly asks libdw for every row (the reference the tests compare
// the fast path with).
enum class CfiPrograms : uint8_t { kFastPath, kLibdwOnly };

// Compiles the CFI of ELF into rows. Uses .eh_frame (what the loader and libgcc's unwinder use)
// through its .eh_frame_hdr table; .debug_frame only when the object has no .eh_frame at all.
// Does not check which build ELF is.
CompiledCfi compile_cfi(Elf* elf, CfiPrograms programs = CfiPrograms::kFastPath);

// Opens PATH and compiles its CFI if its build-id equals EXPECTED_BUILD_ID (the one the image in
// memory carries; see loaded_objects.hpp); else kBuildIdMismatch or kNoBuildId.
CompiledCfi compile_cfi_file(const std::string& path, std::span<const uint8_t> expected_build_id);

// The same for an image in memory (copied first).
CompiledCfi compile_cfi_image(std::span<const uint8_t> image, std::span<const uint8_t> expected_build_id);

}  // namespace jvmkit::native
