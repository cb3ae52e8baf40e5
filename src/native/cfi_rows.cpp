#include "native/cfi_rows.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>

#include "base/clock.hpp"
#include "native/cfi_program.hpp"
#include "native/eh_frame_hdr.hpp"

namespace jvmkit::native {

namespace {

constexpr uint64_t kRowLimit = uint64_t{1} << 32;  // rows hold 32-bit offsets

// The Dwarf_CFI of an object and what keeps it valid: dwarf_getcfi_elf's own (ended with
// dwarf_cfi_end), or the one of a Dwarf session (owned by the session, ended with dwarf_end).
class CfiSource {
 public:
  ~CfiSource() {
    if (eh_cfi_ != nullptr) dwarf_cfi_end(eh_cfi_);
    if (dwarf_ != nullptr) dwarf_end(dwarf_);
  }
  CfiSource() = default;
  CfiSource(const CfiSource&) = delete;
  CfiSource& operator=(const CfiSource&) = delete;

  bool open_eh_frame(Elf* elf) { return (eh_cfi_ = dwarf_getcfi_elf(elf)) != nullptr; }
  bool open_debug_frame(Elf* elf) {
    dwarf_ = dwarf_begin_elf(elf, DWARF_C_READ, nullptr);
    return dwarf_ != nullptr && dwarf_getcfi(dwarf_) != nullptr;
  }
  Dwarf_CFI* cfi() const { return eh_cfi_ != nullptr ? eh_cfi_ : dwarf_getcfi(dwarf_); }

 private:
  Dwarf_CFI* eh_cfi_ = nullptr;
  Dwarf* dwarf_ = nullptr;
};

Elf_Scn* section_named(Elf* elf, const char* name) {
  size_t strings = 0;
  if (elf_getshdrstrndx(elf, &strings) != 0) return nullptr;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr) continue;
    const char* scn_name = elf_strptr(elf, strings, shdr.sh_name);
    if (scn_name != nullptr && std::strcmp(scn_name, name) == 0 && shdr.sh_type != SHT_NOBITS) return scn;
  }
  return nullptr;
}

bool has_eh_frame_hdr(Elf* elf) {
  size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return false;
  for (size_t i = 0; i < count; i++) {
    GElf_Phdr phdr;
    if (gelf_getphdr(elf, static_cast<int>(i), &phdr) != nullptr && phdr.p_type == PT_GNU_EH_FRAME) return true;
  }
  return false;
}

// True when the object has an .eh_frame section with at least one FDE. (A GCC-linked object whose
// own code has CFI in .debug_frame only still has an .eh_frame: crtbeginS.o's terminator.)
bool eh_frame_has_fdes(Elf* elf) {
  Elf_Scn* scn = section_named(elf, ".eh_frame");
  Elf_Data* data = scn != nullptr ? elf_rawdata(scn, nullptr) : nullptr;
  const auto* ident = reinterpret_cast<const unsigned char*>(elf_getident(elf, nullptr));
  if (data == nullptr || ident == nullptr) return false;
  Dwarf_Off offset = 0, next = 0;
  Dwarf_CFI_Entry entry;
  while (dwarf_next_cfi(ident, data, true, offset, &next, &entry) == 0) {
    if (!dwarf_cfi_cie_p(&entry)) return true;
    if (next <= offset) break;
    offset = next;
  }
  return false;
}

// The FDE starts of .debug_frame, sorted: its FDEs carry plain 8-byte initial locations (no
// pointer encodings, unlike .eh_frame), and there is no search table. nullptr, or what is wrong.
const char* debug_frame_fde_starts(Elf* elf, std::vector<uint64_t>* out) {
  Elf_Scn* scn = section_named(elf, ".debug_frame");
  GElf_Shdr shdr;
  if (scn == nullptr || gelf_getshdr(scn, &shdr) == nullptr) return "no .eh_frame and no .debug_frame";
  if ((shdr.sh_flags & SHF_COMPRESSED) != 0) return "compressed .debug_frame";
  Elf_Data* data = elf_rawdata(scn, nullptr);
  const auto* ident = reinterpret_cast<const unsigned char*>(elf_getident(elf, nullptr));
  if (data == nullptr || ident == nullptr || ident[EI_CLASS] != ELFCLASS64) return "unreadable .debug_frame";
  Dwarf_Off offset = 0, next = 0;
  Dwarf_CFI_Entry entry;
  int status;
  while ((status = dwarf_next_cfi(ident, data, false, offset, &next, &entry)) >= 0 && status != 1) {
    if (status == 0 && !dwarf_cfi_cie_p(&entry) && entry.fde.start + 8 <= entry.fde.end) {
      uint64_t start;
      std::memcpy(&start, entry.fde.start, sizeof(start));
      out->push_back(start);
    }
    if (next <= offset) break;  // an entry libdw could not step over
    offset = next;
  }
  std::sort(out->begin(), out->end());
  return nullptr;
}

// Appends rows in ascending order, merging a row into the previous one when their rules match.
class RowBuilder {
 public:
  explicit RowBuilder(CfiStats* stats) : stats_(stats) {}

  void add(uint64_t start, const ClassifiedRow& classified) {
    stats_->libdw_rows++;
    if (classified.unsupported) stats_->unsupported[static_cast<int>(classified.reason)]++;
    append(start, classified.row);
  }
  void add_no_info(uint64_t start) { append(start, make_row(0, CfaKind::kNoInfo, 0, RbpRule::kSame, 0)); }

  std::vector<UnwindRow> take() {
    for (const UnwindRow& row : rows_) {
      stats_->no_info_rows += row.cfa_kind() == CfaKind::kNoInfo;
      stats_->unsupported_rows += row.cfa_kind() == CfaKind::kUnsupported;
      stats_->rbp_unknown_rows += unwinds(row.cfa_kind()) && row.rbp_rule() == RbpRule::kUnknown;
    }
    rows_.shrink_to_fit();  // the table lives as long as its object stays loaded
    stats_->rows = static_cast<uint32_t>(rows_.size());
    stats_->bytes = rows_.size() * sizeof(UnwindRow);
    return std::move(rows_);
  }

 private:
  static bool unwinds(CfaKind kind) {
    return kind != CfaKind::kNoInfo && kind != CfaKind::kUnsupported && kind != CfaKind::kOutermost &&
           kind != CfaKind::kSignalFrame;
  }
  void append(uint64_t start, UnwindRow row) {
    row.start = static_cast<uint32_t>(start);
    if (!rows_.empty() && rows_.back().start == row.start) rows_.pop_back();  // it covered nothing
    if (!rows_.empty() && rows_.back().same_rule(row)) return;
    rows_.push_back(row);
  }

  CfiStats* stats_;
  std::vector<UnwindRow> rows_;
};

bool covered(Dwarf_CFI* cfi, uint64_t address) {
  Dwarf_Frame* frame = nullptr;
  if (dwarf_cfi_addrframe(cfi, address, &frame) != 0) return false;
  std::free(frame);  // dwarf_cfi_addrframe's frame is malloc'd, and the caller's to free
  return true;
}

// Where the FDE whose last row starts at ROW_START ends, given that libdw covers ROW_START and not
// ROW_END (the row's end as libdw reported it). A well-formed FDE ends at ROW_END; one whose
// program advances past its own range makes libdw report a later end, and the gap begins where
// libdw's lookup stops covering (found by bisection).
uint64_t fde_end(Dwarf_CFI* cfi, uint64_t row_start, uint64_t row_end) {
  if (covered(cfi, row_end - 1)) return row_end;
  uint64_t lo = row_start + 1, hi = row_end - 1;  // the end lies in [lo, hi]
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (covered(cfi, mid)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// The rows of the FDE starting at START, up to LIMIT (the next FDE's start: from there, a search
// by address finds that FDE, as libdw's and libgcc's do through .eh_frame_hdr). Ends with a
// kNoInfo row when the FDE ends before LIMIT.
void compile_fde(Dwarf_CFI* cfi, uint64_t start, uint64_t limit, RowBuilder* rows, CfiStats* stats) {
  uint64_t at = start, row_start = start;
  while (at < limit) {
    Dwarf_Frame* frame = nullptr;
    if (dwarf_cfi_addrframe(cfi, at, &frame) != 0) {
      if (at == start) {
        stats->empty_fdes++;
        rows->add_no_info(at);
      } else {
        rows->add_no_info(fde_end(cfi, row_start, at));
      }
      return;
    }
    Dwarf_Addr info_start = 0, row_end = 0;
    bool signal_frame = false;
    const bool info = dwarf_frame_info(frame, &info_start, &row_end, &signal_frame) >= 0;
    rows->add(at, info ? classify_frame(frame, signal_frame)
                       : ClassifiedRow{unsupported_row(UnsupportedReason::kLibdwError), true,
                                       UnsupportedReason::kLibdwError});
    std::free(frame);
    // libdw's row start can lie before AT after a restore_state; AT is where this row was asked for.
    if (!info || row_end <= at) return;  // no way to the next row: the rest stays under this one
    if (row_end > limit) stats->overlapping_fdes++;
    row_start = at;
    at = row_end;
  }
}

CompiledCfi failure(CfiError error, std::string detail) {
  CompiledCfi out;
  out.error = error;
  out.detail = std::move(detail);
  return out;
}

// The rows of the FDE at FDE_VADDR through the fast path (cfi_program.hpp), or false with ROWS
// untouched when that FDE is libdw's to compile. SCRATCH is reused from FDE to FDE.
bool compile_fde_program(EhFramePrograms* programs, uint64_t fde_vaddr, uint64_t start, uint64_t limit,
                         RowBuilder* rows, std::vector<ProgramRow>* scratch) {
  scratch->clear();
  uint64_t end = 0;
  if (programs == nullptr || fde_vaddr == 0 || !programs->rows(fde_vaddr, start, limit, scratch, &end)) return false;
  for (const ProgramRow& row : *scratch) rows->add(row.start, row.classified);
  if (end < limit) rows->add_no_info(end);
  return true;
}

// The FDE starts to compile (sorted, distinct) and the CFI they index, or why there are none.
struct CfiInput {
  CfiError error = CfiError::kNone;
  std::string why;
  std::vector<uint64_t> starts;
  // .eh_frame only: where each start's FDE lies, 0 where two FDEs share a start (libdw's search
  // decides which one holds there, so libdw compiles it).
  std::vector<uint64_t> fde_vaddrs;
  uint64_t eh_frame_vaddr = 0;
  bool debug_frame = false;
};

// Keeps one of each start of INPUT, and forgets the FDE of starts that several FDEs share.
void keep_distinct_starts(CfiInput* input) {
  std::vector<uint64_t>& starts = input->starts;
  std::vector<uint64_t>& fdes = input->fde_vaddrs;
  if (fdes.size() != starts.size()) {
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    fdes.clear();
    return;
  }
  size_t kept = 0;
  for (size_t i = 0; i < starts.size(); i++) {
    if (kept > 0 && starts[kept - 1] == starts[i]) {
      fdes[kept - 1] = 0;
      continue;
    }
    starts[kept] = starts[i];
    fdes[kept] = fdes[i];
    kept++;
  }
  starts.resize(kept);
  fdes.resize(kept);
}

CfiInput open_cfi(Elf* elf, CfiSource* source) {
  CfiInput input;
  // .eh_frame is what the loader's unwinder (libgcc) reads; .debug_frame, which only debuggers
  // read, is used only for objects whose code has no .eh_frame at all.
  input.debug_frame = !has_eh_frame_hdr(elf) && !eh_frame_has_fdes(elf);
  if (input.debug_frame) {
    if (const char* problem = debug_frame_fde_starts(elf, &input.starts)) {
      input.error = CfiError::kNoCfi;
      input.why = problem;
    } else if (!source->open_debug_frame(elf)) {
      input.error = CfiError::kLibdw;
      input.why = dwarf_errmsg(-1);
    }
    return input;
  }
  EhFrameHdr hdr;
  const EhFrameHdrStatus status = read_eh_frame_hdr(elf, &hdr);
  if (status != EhFrameHdrStatus::kOk) {
    input.error = CfiError::kEhFrameHdr;
    input.why = to_string(status);
  } else if (!source->open_eh_frame(elf)) {
    input.error = CfiError::kLibdw;
    input.why = dwarf_errmsg(-1);
  }
  input.starts = std::move(hdr.fde_starts);
  input.fde_vaddrs = std::move(hdr.fde_vaddrs);
  input.eh_frame_vaddr = hdr.eh_frame_vaddr;
  return input;
}

}  // namespace

const char* to_string(CfiError error) noexcept {
  switch (error) {
    case CfiError::kNone:
      return "ok";
    case CfiError::kOpen:
      return "cannot open";
    case CfiError::kNoBuildId:
      return "no build-id";
    case CfiError::kBuildIdMismatch:
      return "build-id mismatch";
    case CfiError::kNoCfi:
      return "no CFI";
    case CfiError::kEhFrameHdr:
      return "unusable .eh_frame_hdr";
    case CfiError::kAddressRange:
      return "code beyond 4 GiB";
    case CfiError::kLibdw:
      return "libdw error";
  }
  return "?";
}

CompiledCfi compile_cfi(Elf* elf, CfiPrograms programs) {
  const int64_t begin = monotonic_ns();
  CfiSource source;
  CfiInput input = open_cfi(elf, &source);
  if (input.error != CfiError::kNone) return failure(input.error, input.why);
  keep_distinct_starts(&input);
  const std::vector<uint64_t>& starts = input.starts;
  if (!starts.empty() && starts.back() >= kRowLimit) return failure(CfiError::kAddressRange, "FDE above 4 GiB");

  std::optional<EhFramePrograms> fast;
  if (programs == CfiPrograms::kFastPath && !input.fde_vaddrs.empty()) fast.emplace(elf, input.eh_frame_vaddr);
  EhFramePrograms* fast_path = fast.has_value() && fast->usable() ? &*fast : nullptr;
  std::vector<ProgramRow> scratch;

  CompiledCfi out;
  out.stats.debug_frame = input.debug_frame;
  out.stats.fdes = static_cast<uint32_t>(starts.size());
  RowBuilder rows(&out.stats);
  for (size_t i = 0; i < starts.size(); i++) {
    // The last FDE's limit: where no row can start any more.
    const uint64_t limit = i + 1 < starts.size() ? starts[i + 1] : kRowLimit;
    const uint64_t fde_vaddr = fast_path != nullptr ? input.fde_vaddrs[i] : 0;
    if (compile_fde_program(fast_path, fde_vaddr, starts[i], limit, &rows, &scratch)) continue;
    out.stats.libdw_fdes++;
    compile_fde(source.cfi(), starts[i], limit, &rows, &out.stats);
  }
  out.rows = rows.take();
  out.function_starts.assign(starts.begin(), starts.end());  // each below kRowLimit (checked above)
  out.stats.compile_ns = static_cast<uint64_t>(monotonic_ns() - begin);
  return out;
}

CompiledCfi compile_cfi_file(const std::string& path, std::span<const uint8_t> expected_build_id) {
  const int64_t begin = monotonic_ns();
  std::string why;
  ElfImage image = ElfImage::open_file(path, &why);
  if (image.elf() == nullptr) return failure(CfiError::kOpen, why);
  const std::vector<uint8_t> build_id = image.build_id();
  if (build_id.empty() || expected_build_id.empty()) return failure(CfiError::kNoBuildId, path);
  if (!std::equal(build_id.begin(), build_id.end(), expected_build_id.begin(), expected_build_id.end())) {
    return failure(CfiError::kBuildIdMismatch, path + " is not the build that is loaded");
  }
  CompiledCfi out = compile_cfi(image.elf());
  out.stats.compile_ns = static_cast<uint64_t>(monotonic_ns() - begin);
  return out;
}

CompiledCfi compile_cfi_image(std::span<const uint8_t> bytes, std::span<const uint8_t> expected_build_id) {
  const int64_t begin = monotonic_ns();
  std::string why;
  ElfImage image = ElfImage::from_memory(bytes, &why);
  if (image.elf() == nullptr) return failure(CfiError::kOpen, why);
  const std::vector<uint8_t> build_id = image.build_id();
  if (build_id.empty() || expected_build_id.empty()) return failure(CfiError::kNoBuildId, "image in memory");
  if (!std::equal(build_id.begin(), build_id.end(), expected_build_id.begin(), expected_build_id.end())) {
    return failure(CfiError::kBuildIdMismatch, "image in memory");
  }
  CompiledCfi out = compile_cfi(image.elf());
  out.stats.compile_ns = static_cast<uint64_t>(monotonic_ns() - begin);
  return out;
}

ElfImage ElfImage::open_file(const std::string& path, std::string* why) {
  init_libelf();
  ElfImage image;
  image.fd_ = FileDescriptor(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!image.fd_.valid()) {
    *why = path + ": " + std::strerror(errno);
    return ElfImage();
  }
  image.elf_.reset(elf_begin(image.fd_.get(), ELF_C_READ_MMAP, nullptr));
  if (image.elf_ == nullptr || elf_kind(image.elf_.get()) != ELF_K_ELF) {
    *why = path + ": not an ELF object";
    return ElfImage();
  }
  return image;
}

ElfImage ElfImage::from_memory(std::span<const uint8_t> bytes, std::string* why) {
  init_libelf();
  ElfImage image;
  // A private copy: libelf may write into the buffer it reads, and the image must outlive it.
  image.copy_.assign(bytes.begin(), bytes.end());
  image.elf_.reset(elf_memory(reinterpret_cast<char*>(image.copy_.data()), image.copy_.size()));
  if (image.elf_ == nullptr || elf_kind(image.elf_.get()) != ELF_K_ELF) {
    *why = "not an ELF image";
    return ElfImage();
  }
  return image;
}

std::vector<uint8_t> ElfImage::build_id() const {
  const void* bytes = nullptr;
  const ssize_t size = elf_ != nullptr ? dwelf_elf_gnu_build_id(elf_.get(), &bytes) : -1;
  if (size <= 0 || bytes == nullptr) return {};
  const auto* begin = static_cast<const uint8_t*>(bytes);
  return std::vector<uint8_t>(begin, begin + size);
}

}  // namespace jvmkit::native
