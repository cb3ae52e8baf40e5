// The truth the unwind-table tests compare with: libdw's own description of the frame at a PC
// (dwarf_cfi_addrframe: the full Dwarf_Frame, every rule as DWARF operations), evaluated here on
// synthetic registers and synthetic memory by a small DWARF expression evaluator. Test code only.
#pragma once

#include <elfutils/libdw.h>
#include <libelf.h>

#include <cstdint>
#include <string>

namespace jvmkit::native::oracle {

// Memory where every address holds a word derived from the address (splitmix64), so that a
// dereference in the table's rule and in libdw's rule read the same value.
uint64_t synthetic_word(uint64_t address);

// Registers by DWARF number: 0..15 the GPRs, 16 the return-address column (the PC itself).
struct SyntheticRegs {
  uint64_t reg[17];
};

struct OracleFrame {
  bool found = false;  // libdw has a frame at the PC
  bool signal_frame = false;
  bool cfa_known = false;
  uint64_t cfa = 0;
  enum class Ra { kUndefined, kLocation, kOther } ra = Ra::kOther;
  uint64_t ra_location = 0;  // kLocation: the address of the return address
  bool rbp_known = false;    // the caller's rbp could be computed
  uint64_t rbp = 0;
  std::string why;  // what the evaluator could not do
};

// libdw's answer for PC (an ELF vaddr of the object CFI describes) on REGS (reg[16] = PC).
OracleFrame oracle_frame(Dwarf_CFI* cfi, uint64_t pc, const SyntheticRegs& regs);

// libdw's CFI of ELF: .eh_frame (through its .eh_frame_hdr), or .debug_frame when DEBUG_FRAME.
// Owns what it opens.
class OracleCfi {
 public:
  OracleCfi(Elf* elf, bool debug_frame);
  ~OracleCfi();
  OracleCfi(const OracleCfi&) = delete;
  OracleCfi& operator=(const OracleCfi&) = delete;
  Dwarf_CFI* get() const { return cfi_; }

 private:
  Dwarf_CFI* cfi_ = nullptr;
  Dwarf_CFI* owned_ = nullptr;
  Dwarf* dwarf_ = nullptr;
};

}  // namespace jvmkit::native::oracle
