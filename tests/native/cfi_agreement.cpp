#include "cfi_agreement.hpp"

#include <gelf.h>

#include <cinttypes>
#include <cstdio>
#include <random>

#include "cfi_oracle.hpp"

namespace jvmkit::native::oracle {

namespace {

bool read_synthetic(const void*, uintptr_t address, uintptr_t* value) noexcept {
  *value = synthetic_word(address);
  return true;
}

std::string hex(uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%" PRIx64, value);
  return text;
}

// "" when the row's answer and libdw's agree at PC, else what differs.
std::string judge(const UnwindRow& row, const CallerLocation& ours, const OracleFrame& truth, Agreement* tally) {
  if (!truth.found) return ours.result == StepResult::kNoInfo ? "" : "libdw has no frame, the row has one";
  switch (ours.result) {
    case StepResult::kNoInfo:
      return "libdw has a frame, the row says no info";
    case StepResult::kUnsupported:
      tally->unsupported++;
      return "";
    case StepResult::kOutermost:
      tally->outermost++;
      return truth.ra == OracleFrame::Ra::kUndefined ? "" : "outermost row, but libdw's return address is defined";
    case StepResult::kOk:
      break;
    default:
      return "the row could not be evaluated with every register known";
  }
  if (ours.signal_frame != truth.signal_frame) return "signal-frame flag differs";
  tally->signal_frames += ours.signal_frame;
  if (!truth.cfa_known || ours.cfa != truth.cfa)
    return "CFA " + hex(ours.cfa) + " != libdw's " + hex(truth.cfa) + " " + truth.why;
  if (truth.ra != OracleFrame::Ra::kLocation || ours.ra_slot != truth.ra_location) {
    return "return-address slot " + hex(ours.ra_slot) + " != libdw's " + hex(truth.ra_location);
  }
  if (!ours.caller_fp_known) {
    tally->rbp_unknown++;
    return "";
  }
  if (!truth.rbp_known || ours.caller_fp != truth.rbp) {
    return "caller rbp " + hex(ours.caller_fp) + " != libdw's " + hex(truth.rbp) +
           (truth.rbp_known ? "" : " (unknown)");
  }
  (void)row;
  return "";
}

void compare_at(const std::vector<UnwindRow>& rows, Dwarf_CFI* cfi, uint64_t pc, std::mt19937_64& random,
                Agreement* tally) {
  SyntheticRegs regs;
  for (uint64_t& reg : regs.reg) reg = random();
  regs.reg[16] = pc;
  static constexpr UnwindRow kNone = make_row(0, CfaKind::kNoInfo, 0, RbpRule::kSame, 0);
  const UnwindRow* found = find_row(rows.data(), static_cast<uint32_t>(rows.size()), static_cast<uint32_t>(pc));
  const UnwindRow& row = found != nullptr ? *found : kNone;
  FrameRegs frame;
  frame.pc = pc;
  frame.sp = regs.reg[kDwarfRsp];
  frame.fp = regs.reg[kDwarfRbp];
  frame.gprs = regs.reg;
  const CallerLocation ours = evaluate(row, frame, WordReader{read_synthetic, nullptr});
  const OracleFrame truth = oracle_frame(cfi, pc, regs);
  tally->pcs++;
  tally->no_info += ours.result == StepResult::kNoInfo;
  const std::string problem = judge(row, ours, truth, tally);
  if (problem.empty()) return;
  tally->disagreements++;
  if (tally->examples.size() < 10) {
    tally->examples.push_back(
        "pc " + hex(pc) + " row@" + hex(row.start) + " kind " + std::to_string(static_cast<int>(row.cfa_kind())) +
        " off " + std::to_string(row.cfa_offset) + " rbp " + std::to_string(static_cast<int>(row.rbp_rule())) +
        " operand " + std::to_string(row.operand) + ": " + problem);
  }
}

}  // namespace

std::vector<std::pair<uint64_t, uint64_t>> executable_ranges(Elf* elf) {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return ranges;
  for (size_t i = 0; i < count; i++) {
    GElf_Phdr phdr;
    if (gelf_getphdr(elf, static_cast<int>(i), &phdr) == nullptr) continue;
    if (phdr.p_type == PT_LOAD && (phdr.p_flags & PF_X) != 0)
      ranges.emplace_back(phdr.p_vaddr, phdr.p_vaddr + phdr.p_memsz);
  }
  return ranges;
}

Agreement compare_with_libdw(const std::vector<UnwindRow>& rows, Elf* elf, bool debug_frame, uint64_t random_pcs,
                             uint64_t seed) {
  Agreement tally;
  OracleCfi cfi(elf, debug_frame);
  if (cfi.get() == nullptr) {
    tally.disagreements = 1;
    tally.examples.push_back("libdw has no CFI for this object");
    return tally;
  }
  std::mt19937_64 random(seed);
  const auto text = executable_ranges(elf);
  uint64_t text_end = 0;
  for (const auto& range : text) text_end = std::max(text_end, range.second);
  for (size_t i = 0; i < rows.size(); i++) {
    const uint64_t end = i + 1 < rows.size() ? rows[i + 1].start : std::max<uint64_t>(text_end, rows[i].start + 1);
    compare_at(rows, cfi.get(), rows[i].start, random, &tally);
    if (end - 1 > rows[i].start) compare_at(rows, cfi.get(), end - 1, random, &tally);
  }
  uint64_t text_bytes = 0;
  for (const auto& range : text) text_bytes += range.second - range.first;
  for (uint64_t i = 0; i < random_pcs && text_bytes > 0; i++) {
    uint64_t at = random() % text_bytes;
    for (const auto& range : text) {
      if (at < range.second - range.first) {
        compare_at(rows, cfi.get(), range.first + at, random, &tally);
        break;
      }
      at -= range.second - range.first;
    }
  }
  return tally;
}

ByteShares byte_shares(const std::vector<UnwindRow>& rows, const std::vector<std::pair<uint64_t, uint64_t>>& text) {
  ByteShares shares;
  for (const auto& [start, end] : text) {
    shares.text += end - start;
    for (size_t i = 0; i < rows.size(); i++) {
      const uint64_t row_start = std::max<uint64_t>(rows[i].start, start);
      const uint64_t row_end = std::min<uint64_t>(i + 1 < rows.size() ? rows[i + 1].start : end, end);
      if (row_end <= row_start) continue;
      const uint64_t bytes = row_end - row_start;
      const CfaKind kind = rows[i].cfa_kind();
      if (kind == CfaKind::kNoInfo) continue;
      shares.covered += bytes;
      if (kind == CfaKind::kUnsupported) shares.unsupported += bytes;
      if (kind != CfaKind::kUnsupported && kind != CfaKind::kOutermost && kind != CfaKind::kSignalFrame &&
          rows[i].rbp_rule() == RbpRule::kUnknown) {
        shares.rbp_unknown += bytes;
      }
    }
  }
  return shares;
}

std::string describe(const std::string& name, const CfiStats& stats, const ByteShares& shares,
                     const Agreement& agreement) {
  const auto percent = [](double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; };
  char line[512];
  std::snprintf(
      line, sizeof(line),
      "%-22s FDEs %6u (libdw %u)  libdw rows %7u  rows %7u (%5.1f KiB)  %7.1f ms  unsupported rows %5u (%.3f%%), "
      "code %.3f%%  rbp unknown code %.3f%%  no-CFI code %.2f%%  | PCs %" PRIu64
      ": unsupported %.3f%%, "
      "disagreements %" PRIu64,
      name.c_str(), stats.fdes, stats.libdw_fdes, stats.libdw_rows, stats.rows, stats.bytes / 1024.0,
      stats.compile_ns / 1e6, stats.unsupported_rows, percent(stats.unsupported_rows, stats.rows),
      percent(shares.unsupported, shares.covered), percent(shares.rbp_unknown, shares.covered),
      percent(shares.text - shares.covered, shares.text), agreement.pcs, percent(agreement.unsupported, agreement.pcs),
      agreement.disagreements);
  std::string out = line;
  std::string reasons;
  for (int i = 0; i < kUnsupportedReasonCount; i++) {
    if (stats.unsupported[i] == 0) continue;
    reasons += std::string(reasons.empty() ? "" : ", ") + to_string(static_cast<UnsupportedReason>(i)) + " " +
               std::to_string(stats.unsupported[i]);
  }
  out += "\n" + std::string(23, ' ') + "unsupported libdw rows by reason: " + (reasons.empty() ? "none" : reasons) +
         "; empty FDEs " + std::to_string(stats.empty_fdes) + ", overlapping FDEs " +
         std::to_string(stats.overlapping_fdes);
  return out;
}

}  // namespace jvmkit::native::oracle
