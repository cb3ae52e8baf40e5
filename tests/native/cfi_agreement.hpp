// Compares compiled unwind rows with libdw, PC by PC (see cfi_oracle.hpp), and measures what
// share of an object's code each kind of row covers. Test code only.
#pragma once

#include <libelf.h>

#include <cstdint>
#include <string>
#include <vector>

#include "native/cfi_rows.hpp"
#include "native/unwind_table.hpp"

namespace jvmkit::native::oracle {

struct Agreement {
  uint64_t pcs = 0;            // PCs compared
  uint64_t disagreements = 0;  // PCs where the row and libdw differ
  uint64_t unsupported = 0;    // PCs whose row is kUnsupported (libdw holds a rule the table does not)
  uint64_t no_info = 0;        // PCs in no FDE (both agree)
  uint64_t outermost = 0;
  uint64_t signal_frames = 0;
  uint64_t rbp_unknown = 0;           // PCs that unwind but lose the caller's rbp
  std::vector<std::string> examples;  // the first disagreements, described
};

// [start, end) ELF vaddrs of ELF's executable PT_LOAD segments.
std::vector<std::pair<uint64_t, uint64_t>> executable_ranges(Elf* elf);

// Compares ROWS (compiled from ELF) with libdw's own frames of a separate opening of ELF
// (DEBUG_FRAME: its .debug_frame) at every row's first and last byte and at RANDOM_PCS PCs drawn
// uniformly from the executable segments (fixed SEED), each on fresh random registers.
Agreement compare_with_libdw(const std::vector<UnwindRow>& rows, Elf* elf, bool debug_frame, uint64_t random_pcs,
                             uint64_t seed);

// Bytes of the executable segments by the kind of row that holds them.
struct ByteShares {
  uint64_t text = 0;
  uint64_t covered = 0;  // in some FDE (not kNoInfo)
  uint64_t unsupported = 0;
  uint64_t rbp_unknown = 0;
};
ByteShares byte_shares(const std::vector<UnwindRow>& rows, const std::vector<std::pair<uint64_t, uint64_t>>& text);

// One line of figures: FDEs, rows, bytes, ms, unsupported by reason.
std::string describe(const std::string& name, const CfiStats& stats, const ByteShares& shares,
                     const Agreement& agreement);

}  // namespace jvmkit::native::oracle
