#include "symbol_test_support.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace jvmkit::native::testing {
namespace {

// Calls VISIT(name, sym) for each defined function in ELF's .dynsym.
template <typename Visit>
void for_each_dynsym_function(Elf* elf, Visit visit) {
  Elf_Scn* section = nullptr;
  while ((section = elf_nextscn(elf, section)) != nullptr) {
    GElf_Shdr header;
    if (gelf_getshdr(section, &header) == nullptr || header.sh_type != SHT_DYNSYM || header.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(section, nullptr);
    for (size_t i = 0; data != nullptr && i < header.sh_size / header.sh_entsize; i++) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) break;
      const int type = GELF_ST_TYPE(sym.st_info);
      if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF) continue;
      const char* name = elf_strptr(elf, header.sh_link, sym.st_name);
      if (name != nullptr) visit(std::string(name), sym);
    }
  }
}

}  // namespace

std::set<std::string> dynsym_function_names(const std::string& path) {
  std::set<std::string> names;
  init_libelf();
  FileDescriptor fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  ElfHandle elf(fd.valid() ? elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr) : nullptr);
  if (elf != nullptr)
    for_each_dynsym_function(elf.get(), [&](const std::string& name, const GElf_Sym&) { names.insert(name); });
  return names;
}

std::optional<uint64_t> vdso_symbol_value(const char* name) {
  auto* image = reinterpret_cast<char*>(getauxval(AT_SYSINFO_EHDR));
  if (image == nullptr) return std::nullopt;
  init_libelf();
  // The kernel maps the whole file: up to the section headers, which come last.
  const auto* ehdr = reinterpret_cast<const Elf64_Ehdr*>(image);
  ElfHandle elf(elf_memory(image, ehdr->e_shoff + size_t{ehdr->e_shnum} * ehdr->e_shentsize));
  std::optional<uint64_t> value;
  if (elf != nullptr) {
    for_each_dynsym_function(elf.get(), [&](const std::string& symbol, const GElf_Sym& sym) {
      if (symbol == name) value = sym.st_value;
    });
  }
  return value;
}

std::optional<LoadedObject> loaded_object_named(const std::string& base) {
  for (LoadedObject& object : loaded_objects()) {
    if (base_name(object.path) == base) return std::move(object);
  }
  return std::nullopt;
}

LoadedObject loaded_or_file(const std::string& path) {
  if (std::optional<LoadedObject> loaded = loaded_object_named(base_name(path))) return *loaded;
  LoadedObject file;
  file.path = path;
  return file;
}

std::string installed_debug_file(const LoadedObject& object) {
  const std::string id = hex(object.build_id);
  if (id.size() < 3) return "";
  const std::string path = "/usr/lib/debug/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug";
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? path : "";
}

const FunctionSymbol* symbol_named(const SymbolIndex& index, const std::string& name) {
  for (const FunctionSymbol& symbol : index.symbols()) {
    if (name == index.name(symbol)) return &symbol;
  }
  return nullptr;
}

std::unique_ptr<SymbolIndex> build_and_report(const LoadedObject& object, const SymbolIndexOptions& options) {
  std::string why;
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<SymbolIndex> index = SymbolIndex::build(object, options, &why);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (index == nullptr) {
    std::printf("[ symbols  ] %s: %s\n", object.path.c_str(), why.c_str());
    return nullptr;
  }
  std::printf(
      "[ symbols  ] %s: %zu functions (%zu read; debug file %zu, symtab %zu, dynsym %zu), %zu bytes, %.1f ms%s%s\n",
      base_name(object.path).c_str(), index->symbols().size(), index->symbols_read(),
      index->count(SymbolSource::kDebugFile), index->count(SymbolSource::kSymtab), index->count(SymbolSource::kDynsym),
      index->bytes(), ms, index->debug_file().empty() ? "" : ", from ", index->debug_file().c_str());
  return index;
}

FileCfi::FileCfi(const std::string& path) : fd_(open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
  init_libelf();
  if (fd_.valid()) elf_.reset(elf_begin(fd_.get(), ELF_C_READ_MMAP, nullptr));
  if (elf_ != nullptr) cfi_ = dwarf_getcfi_elf(elf_.get());
}

FileCfi::~FileCfi() {
  if (cfi_ != nullptr) dwarf_cfi_end(cfi_);
}

std::optional<uint64_t> FileCfi::row_start(uint64_t offset) const {
  Dwarf_Frame* frame = nullptr;
  if (cfi_ == nullptr || dwarf_cfi_addrframe(cfi_, offset, &frame) != 0) return std::nullopt;
  Dwarf_Addr start = 0, end = 0;
  bool signal_frame = false;
  const int ok = dwarf_frame_info(frame, &start, &end, &signal_frame);
  std::free(frame);
  if (ok < 0) return std::nullopt;
  return start;
}

}  // namespace jvmkit::native::testing
