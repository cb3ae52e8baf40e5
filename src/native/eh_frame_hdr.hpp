// The binary-search table of an ELF object's .eh_frame_hdr (PT_GNU_EH_FRAME): the start address of
// every FDE of its .eh_frame, sorted. The linker writes it so that an unwinder finds a PC's FDE
// without reading .eh_frame; the unwind-table compiler uses it as the list of FDEs to compile.
//
// This is the one hand-written decoder of the native-frames code (no library exposes the table),
// so it accepts exactly the layout GNU ld (and lld) emit: version 1, eh_frame_ptr pcrel|sdata4,
// fde_count udata4, table datarel|sdata4. Anything else is refused, and the object stays
// unprepared rather than half-read.
//
// Not signal context (libelf allocates). Not thread-safe for one Elf*: libelf handles belong to
// the thread that prepares tables.
#pragma once

#include <libelf.h>

#include <cstdint>
#include <vector>

namespace jvmkit::native {

enum class EhFrameHdrStatus : uint8_t {
  kOk = 0,
  kAbsent,               // no PT_GNU_EH_FRAME program header
  kUnreadable,           // libelf could not read the segment, or it is shorter than its header
  kBadVersion,           // version is not 1
  kUnsupportedEncoding,  // an encoding other than GNU ld's
  kTruncated,            // the table is longer than the segment
  kUnsorted,             // the table is not sorted by address: no binary search could use it
};

// A short name for messages ("unsupported encoding").
const char* to_string(EhFrameHdrStatus status) noexcept;

struct EhFrameHdr {
  uint64_t vaddr = 0;           // where the header lies (ELF vaddr)
  uint64_t eh_frame_vaddr = 0;  // where .eh_frame begins
  // The FDEs' initial locations (ELF vaddrs) in the table's order: ascending; equal starts kept.
  std::vector<uint64_t> fde_starts;
  // Where each of those FDEs lies (ELF vaddrs, in .eh_frame), in the same order.
  std::vector<uint64_t> fde_vaddrs;
};

// Reads the table of ELF (opened for reading by the caller). On kOk fills OUT; on any other
// status OUT is left empty.
EhFrameHdrStatus read_eh_frame_hdr(Elf* elf, EhFrameHdr* out);

}  // namespace jvmkit::native
