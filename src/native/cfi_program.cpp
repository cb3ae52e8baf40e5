#include "native/cfi_program.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include <cstring>

namespace jvmkit::native {

namespace {

// Bounded little-endian reads of one entry's bytes. Every read fails rather than pass the end.
class Reader {
 public:
  Reader(const uint8_t* at, const uint8_t* end) : at_(at), end_(end) {}

  bool done() const { return at_ >= end_; }
  const uint8_t* at() const { return at_; }

  bool u8(uint8_t* value) {
    if (at_ >= end_) return false;
    *value = *at_++;
    return true;
  }
  bool fixed(size_t size, uint64_t* value) {
    if (static_cast<size_t>(end_ - at_) < size) return false;
    uint64_t out = 0;
    std::memcpy(&out, at_, size);  // x86-64 objects only: little-endian, like this host
    at_ += size;
    *value = out;
    return true;
  }
  bool uleb(uint64_t* value) { return leb128(value, false); }
  bool sleb(int64_t* value) {
    uint64_t bits;
    if (!leb128(&bits, true)) return false;
    *value = static_cast<int64_t>(bits);
    return true;
  }
  bool skip(uint64_t size) {
    if (static_cast<uint64_t>(end_ - at_) < size) return false;
    at_ += size;
    return true;
  }

 private:
  // LEB128, sign-extended from its last byte's bit 6 when IS_SIGNED. Longer than 64 bits: false
  // (not something a compiler writes).
  bool leb128(uint64_t* value, bool is_signed) {
    uint64_t out = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      uint8_t byte;
      if (!u8(&byte)) return false;
      out |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        if (is_signed && shift + 7 < 64 && (byte & 0x40) != 0) out |= ~uint64_t{0} << (shift + 7);
        *value = out;
        return true;
      }
    }
    return false;
  }

  const uint8_t* at_;
  const uint8_t* end_;
};

// The bytes of an encoded pointer's format (the low four bits of a DW_EH_PE encoding); 0 for the
// formats not handled here (LEB128, which GNU ld never uses for FDE addresses).
size_t format_size(uint8_t encoding) {
  switch (encoding & 0x0f) {
    case DW_EH_PE_absptr:
    case DW_EH_PE_udata8:
    case DW_EH_PE_sdata8:
      return 8;
    case DW_EH_PE_udata2:
    case DW_EH_PE_sdata2:
      return 2;
    case DW_EH_PE_udata4:
    case DW_EH_PE_sdata4:
      return 4;
    default:
      return 0;
  }
}

// A pointer's value in ENCODING's format, sign-extended for the sdata formats.
bool read_format(Reader* in, uint8_t encoding, uint64_t* value) {
  const size_t size = format_size(encoding);
  if (size == 0 || !in->fixed(size, value)) return false;
  const bool is_signed = (encoding & 0x08) != 0;
  if (is_signed && size < 8 && (*value >> (size * 8 - 1)) != 0) *value |= ~uint64_t{0} << (size * 8);
  return true;
}

// The rule of REG in STATE, or nullptr for the registers whose rules the rows do not depend on.
SavedRule* tracked(ProgramState* state, uint64_t reg) {
  if (reg == kDwarfRbp) return &state->rbp;
  if (reg == kDwarfReturnAddress) return &state->return_address;
  return nullptr;
}

// DW_CFA_restore: REG gets its rule from the CIE's initial state again.
bool restore(ProgramState* state, const ProgramState* initial, uint64_t reg) {
  if (initial == nullptr) return false;  // in the CIE's own instructions: an error to libdw
  if (reg == kDwarfRbp) state->rbp = initial->rbp;
  if (reg == kDwarfReturnAddress) state->return_address = initial->return_address;
  return true;
}

// A row's rule from its state, classified by the same code as libdw's rows (cfi_expr.hpp).
ClassifiedRow classify_state(const ProgramState& state) {
  // RULE as dwarf_frame_register gives it (cfi_expr.cpp's table).
  const auto as_ops = [](const SavedRule& rule, Dwarf_Op mem[2], const Dwarf_Op** ops, size_t* n) {
    switch (rule.kind) {
      case SavedRule::Kind::kSame:
        *ops = nullptr;
        *n = 0;
        return;
      case SavedRule::Kind::kUndefined:
        *ops = mem;
        *n = 0;
        return;
      case SavedRule::Kind::kAtCfa:
        mem[0] = Dwarf_Op{};
        mem[0].atom = DW_OP_call_frame_cfa;
        mem[1] = Dwarf_Op{};
        mem[1].atom = DW_OP_plus_uconst;
        mem[1].number = static_cast<uint64_t>(rule.offset);
        *ops = mem;
        *n = rule.offset != 0 ? 2 : 1;
        return;
    }
  };
  Dwarf_Op cfa{};
  cfa.atom = DW_OP_bregx;
  cfa.number = state.cfa_register;
  cfa.number2 = static_cast<uint64_t>(state.cfa_offset);
  Dwarf_Op ra_mem[2], fp_mem[2];
  FrameRules rules;
  rules.cfa = &cfa;
  rules.cfa_n = state.cfa_defined ? 1 : 0;
  rules.cfa_defined = state.cfa_defined;
  as_ops(state.return_address, ra_mem, &rules.ra, &rules.ra_n);
  as_ops(state.rbp, fp_mem, &rules.fp, &rules.fp_n);
  return classify_rules(rules);
}

// Where a row goes when the program moves its location: [row_start, loc) holds the state before.
class RowSink {
 public:
  RowSink(uint64_t start, uint64_t end, RuleMemo* memo, std::vector<ProgramRow>* out)
      : row_start_(start), end_(end), memo_(memo), out_(out) {}

  // The location moved to LOC. False when it runs past the FDE (libdw reports such rows its own way).
  bool advance(uint64_t loc, const ProgramState& state) {
    if (loc > end_) return false;
    if (loc > row_start_) {
      emit(state);
      row_start_ = loc;
    }
    return true;
  }
  // The program ended: its last state holds to the FDE's end.
  void finish(const ProgramState& state) {
    if (row_start_ < end_) emit(state);
  }

 private:
  void emit(const ProgramState& state) { out_->push_back(ProgramRow{row_start_, memo_->classify(state)}); }

  uint64_t row_start_;
  uint64_t end_;
  RuleMemo* memo_;
  std::vector<ProgramRow>* out_;
};

// What a program may do besides setting rules: the CIE's initial instructions may not move the
// location or restore a rule (there is no initial state yet); an FDE's may.
struct ProgramContext {
  uint64_t code_alignment = 1;
  int64_t data_alignment = 1;
  const ProgramState* initial = nullptr;  // the CIE's state; nullptr while running the CIE itself
  RowSink* rows = nullptr;                // nullptr while running the CIE
  uint64_t loc = 0;
};

constexpr int kRememberDepth = 8;

// Runs the CFA instructions of PROGRAM on *STATE. False when an instruction needs libdw (or is
// malformed, which libdw reports as an error of its own).
bool run(Reader program, ProgramContext* context, ProgramState* state) {
  ProgramState remembered[kRememberDepth];
  int depth = 0;
  const auto advance = [&](uint64_t delta) {
    if (context->rows == nullptr) return false;
    const uint64_t step = delta * context->code_alignment;
    if (context->code_alignment != 0 && step / context->code_alignment != delta) return false;
    if (context->loc + step < context->loc) return false;
    context->loc += step;
    return context->rows->advance(context->loc, *state);
  };
  const auto save = [&](uint64_t reg, int64_t factored) {
    if (SavedRule* rule = tracked(state, reg))
      *rule = SavedRule{SavedRule::Kind::kAtCfa, factored * context->data_alignment};
    return true;
  };
  // Rules of other shapes (in a register, an expression, a value) are libdw's to classify.
  const auto other_rule = [&](uint64_t reg) { return tracked(state, reg) == nullptr; };

  while (!program.done()) {
    uint8_t opcode;
    program.u8(&opcode);
    uint64_t reg = 0, offset = 0, delta = 0;
    int64_t factored = 0;
    switch (opcode & 0xc0) {
      case DW_CFA_advance_loc:
        if (!advance(opcode & 0x3f)) return false;
        continue;
      case DW_CFA_offset:
        if (!program.uleb(&offset)) return false;
        save(opcode & 0x3f, static_cast<int64_t>(offset));
        continue;
      case DW_CFA_restore:
        if (!restore(state, context->initial, opcode & 0x3f)) return false;
        continue;
      default:
        break;
    }
    switch (opcode) {
      case DW_CFA_nop:
        continue;
      case DW_CFA_advance_loc1:
      case DW_CFA_advance_loc2:
      case DW_CFA_advance_loc4: {
        const size_t size = opcode == DW_CFA_advance_loc1 ? 1 : opcode == DW_CFA_advance_loc2 ? 2 : 4;
        if (!program.fixed(size, &delta) || !advance(delta)) return false;
        continue;
      }
      case DW_CFA_offset_extended:
        if (!program.uleb(&reg) || !program.uleb(&offset)) return false;
        save(reg, static_cast<int64_t>(offset));
        continue;
      case DW_CFA_offset_extended_sf:
        if (!program.uleb(&reg) || !program.sleb(&factored)) return false;
        save(reg, factored);
        continue;
      case DW_CFA_GNU_negative_offset_extended:
        if (!program.uleb(&reg) || !program.uleb(&offset)) return false;
        save(reg, -static_cast<int64_t>(offset));
        continue;
      case DW_CFA_restore_extended:
        if (!program.uleb(&reg) || !restore(state, context->initial, reg)) return false;
        continue;
      case DW_CFA_undefined:
      case DW_CFA_same_value:
        if (!program.uleb(&reg)) return false;
        if (SavedRule* rule = tracked(state, reg)) {
          rule->kind = opcode == DW_CFA_undefined ? SavedRule::Kind::kUndefined : SavedRule::Kind::kSame;
          rule->offset = 0;
        }
        continue;
      case DW_CFA_register:
      case DW_CFA_val_offset:
        if (!program.uleb(&reg) || !program.uleb(&offset) || !other_rule(reg)) return false;
        continue;
      case DW_CFA_val_offset_sf:
        if (!program.uleb(&reg) || !program.sleb(&factored) || !other_rule(reg)) return false;
        continue;
      case DW_CFA_expression:
      case DW_CFA_val_expression:
        if (!program.uleb(&reg) || !program.uleb(&offset) || !program.skip(offset) || !other_rule(reg)) return false;
        continue;
      case DW_CFA_remember_state:
        if (depth == kRememberDepth) return false;
        remembered[depth++] = *state;
        continue;
      case DW_CFA_restore_state:
        if (depth == 0) return false;
        *state = remembered[--depth];
        continue;
      case DW_CFA_def_cfa:
        if (!program.uleb(&reg) || !program.uleb(&offset)) return false;
        *state = ProgramState{true, reg, static_cast<int64_t>(offset), state->rbp, state->return_address};
        continue;
      case DW_CFA_def_cfa_sf:
        if (!program.uleb(&reg) || !program.sleb(&factored)) return false;
        *state = ProgramState{true, reg, factored * context->data_alignment, state->rbp, state->return_address};
        continue;
      // libdw keeps a register or offset change only on a register + offset CFA; on any other,
      // the CFA becomes invalid, which classifies as undefined.
      case DW_CFA_def_cfa_register:
        if (!program.uleb(&reg)) return false;
        state->cfa_register = reg;
        continue;
      case DW_CFA_def_cfa_offset:
        if (!program.uleb(&offset)) return false;
        state->cfa_offset = static_cast<int64_t>(offset);
        continue;
      case DW_CFA_def_cfa_offset_sf:
        if (!program.sleb(&factored)) return false;
        state->cfa_offset = factored * context->data_alignment;
        continue;
      case DW_CFA_GNU_args_size:
        if (!program.uleb(&offset)) return false;
        continue;
      default:  // DW_CFA_def_cfa_expression, DW_CFA_set_loc, vendor opcodes: libdw's
        return false;
    }
  }
  return true;
}

}  // namespace

bool same_rules(const ProgramState& a, const ProgramState& b) {
  return a.cfa_defined == b.cfa_defined && a.cfa_register == b.cfa_register && a.cfa_offset == b.cfa_offset &&
         a.rbp.kind == b.rbp.kind && a.rbp.offset == b.rbp.offset && a.return_address.kind == b.return_address.kind &&
         a.return_address.offset == b.return_address.offset;
}

ClassifiedRow RuleMemo::classify(const ProgramState& state) {
  uint64_t h = state.cfa_register * 0x9E3779B97F4A7C15ull;
  h ^= static_cast<uint64_t>(state.cfa_offset) * 0xBF58476D1CE4E5B9ull;
  h ^= static_cast<uint64_t>(state.rbp.offset) * 0x94D049BB133111EBull + static_cast<uint8_t>(state.rbp.kind);
  h ^= (static_cast<uint64_t>(state.return_address.offset) << 8) +
       (static_cast<uint64_t>(state.return_address.kind) << 4) + (state.cfa_defined ? 1 : 0);
  Entry& entry = entries_[(h ^ (h >> 29)) % kEntries];
  if (!entry.filled || !same_rules(entry.state, state)) {
    entry.state = state;
    entry.classified = classify_state(state);
    entry.filled = true;
  }
  return entry.classified;
}

EhFramePrograms::EhFramePrograms(Elf* elf, uint64_t eh_frame_vaddr) {
  ident_ = reinterpret_cast<const unsigned char*>(elf_getident(elf, nullptr));
  size_t strings = 0;
  if (ident_ == nullptr || ident_[EI_CLASS] != ELFCLASS64 || elf_getshdrstrndx(elf, &strings) != 0) return;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type == SHT_NOBITS) continue;
    const char* name = elf_strptr(elf, strings, shdr.sh_name);
    if (name == nullptr || std::strcmp(name, ".eh_frame") != 0) continue;
    if (shdr.sh_addr != eh_frame_vaddr) return;  // not the section the table points into
    data_ = elf_rawdata(scn, nullptr);
    vaddr_ = shdr.sh_addr;
    return;
  }
}

const EhFramePrograms::Cie& EhFramePrograms::cie_at(uint64_t offset) {
  auto found = cies_.find(offset);
  if (found == cies_.end()) found = cies_.emplace(offset, parse_cie(offset)).first;
  return found->second;
}

EhFramePrograms::Cie EhFramePrograms::parse_cie(uint64_t offset) const {
  Cie cie;
  Dwarf_Off next = 0;
  Dwarf_CFI_Entry entry;
  if (dwarf_next_cfi(ident_, data_, true, offset, &next, &entry) != 0 || !dwarf_cfi_cie_p(&entry)) return cie;
  const Dwarf_CIE& raw = entry.cie;
  if (raw.return_address_register != kDwarfReturnAddress) return cie;
  const char* augmentation = raw.augmentation;
  cie.fde_encoding = DW_EH_PE_absptr;
  if (augmentation[0] == 'z') {
    cie.fde_augmentation = true;
    Reader data(raw.augmentation_data, raw.augmentation_data + raw.augmentation_data_size);
    for (const char* letter = augmentation + 1; *letter != '\0'; letter++) {
      uint8_t encoding;
      uint64_t ignored;
      if (*letter == 'R') {
        if (!data.u8(&cie.fde_encoding)) return cie;
      } else if (*letter == 'L') {
        if (!data.u8(&encoding)) return cie;
      } else if (*letter == 'P') {
        if (!data.u8(&encoding) || (encoding & 0x70) == DW_EH_PE_aligned || !read_format(&data, encoding, &ignored)) {
          return cie;
        }
      } else {
        return cie;  // 'S' (a signal frame) and anything unknown: libdw's
      }
    }
  } else if (augmentation[0] != '\0') {
    return cie;
  }
  const uint8_t application = cie.fde_encoding & 0x70;
  if (format_size(cie.fde_encoding) == 0 || (cie.fde_encoding & DW_EH_PE_indirect) != 0 ||
      (application != DW_EH_PE_absptr && application != DW_EH_PE_pcrel)) {
    return cie;
  }
  cie.code_alignment = raw.code_alignment_factor;
  cie.data_alignment = raw.data_alignment_factor;
  // libdw's x86-64 ABI state (its backend's initial instructions): the return address and the
  // call-saved registers, rbp among them, keep their values; the CFA is not defined.
  ProgramContext context{cie.code_alignment, cie.data_alignment, nullptr, nullptr, 0};
  if (!run(Reader(raw.initial_instructions, raw.initial_instructions_end), &context, &cie.initial)) return cie;
  cie.usable = true;
  return cie;
}

bool EhFramePrograms::rows(uint64_t fde_vaddr, uint64_t start, uint64_t limit, std::vector<ProgramRow>* out,
                           uint64_t* end) {
  if (data_ == nullptr || fde_vaddr < vaddr_) return false;
  Dwarf_Off next = 0;
  Dwarf_CFI_Entry entry;
  if (dwarf_next_cfi(ident_, data_, true, fde_vaddr - vaddr_, &next, &entry) != 0 || dwarf_cfi_cie_p(&entry)) {
    return false;
  }
  const Cie& cie = cie_at(entry.fde.CIE_pointer);
  if (!cie.usable) return false;

  Reader fde(entry.fde.start, entry.fde.end);
  const uint64_t field_vaddr =
      vaddr_ + static_cast<uint64_t>(entry.fde.start - static_cast<const uint8_t*>(data_->d_buf));
  uint64_t initial = 0, range = 0, augmentation = 0;
  if (!read_format(&fde, cie.fde_encoding, &initial) || !read_format(&fde, cie.fde_encoding & 0x0f, &range))
    return false;
  if ((cie.fde_encoding & 0x70) == DW_EH_PE_pcrel) initial += field_vaddr;
  if (initial != start || range == 0 || start + range < start || start + range > limit) return false;
  if (cie.fde_augmentation && (!fde.uleb(&augmentation) || !fde.skip(augmentation))) return false;

  const size_t kept = out->size();
  RowSink sink(start, start + range, &memo_, out);
  ProgramContext context{cie.code_alignment, cie.data_alignment, &cie.initial, &sink, start};
  ProgramState state = cie.initial;
  if (!run(fde, &context, &state)) {
    out->resize(kept);
    return false;
  }
  sink.finish(state);
  *end = start + range;
  return true;
}

}  // namespace jvmkit::native
