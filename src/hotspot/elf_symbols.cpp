#include "hotspot/elf_symbols.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace jvmkit::elf {
namespace {

struct Search {
  uintptr_t address;
  std::optional<LoadedObject> found;
};

int visit(struct dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  LoadedObject object;
  bool any = false;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const uintptr_t begin = info->dlpi_addr + ph.p_vaddr, end = begin + ph.p_memsz;
    object.begin = any ? std::min(object.begin, begin) : begin;
    object.end = any ? std::max(object.end, end) : end;
    any = true;
  }
  if (!any || search->address < object.begin || search->address >= object.end) return 0;
  // The main program is listed without a name.
  object.path = info->dlpi_name != nullptr && info->dlpi_name[0] != '\0' ? info->dlpi_name : "/proc/self/exe";
  object.bias = info->dlpi_addr;
  search->found = std::move(object);
  return 1;
}

// An ELF file opened for reading with libelf, closed (handle and descriptor) when it goes out of
// scope.
class ElfFile {
 public:
  explicit ElfFile(const std::string& path) : fd_(open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) return;
    // libelf's version handshake must precede elf_begin; repeating it is harmless.
    if (elf_version(EV_CURRENT) != EV_NONE) elf_ = elf_begin(fd_, ELF_C_READ_MMAP, nullptr);
  }
  ~ElfFile() {
    if (elf_ != nullptr) elf_end(elf_);
    if (fd_ >= 0) close(fd_);
  }
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;

  bool opened() const { return fd_ >= 0; }
  Elf* get() const { return elf_; }

 private:
  int fd_;
  Elf* elf_ = nullptr;
};

bool is_elf64(Elf* elf) { return elf != nullptr && elf_kind(elf) == ELF_K_ELF && gelf_getclass(elf) == ELFCLASS64; }

// The defined STT_OBJECT symbol NAME in the symbol table SECTION, or nothing.
std::optional<GElf_Sym> find_in_table(Elf* elf, Elf_Scn* section, const GElf_Shdr& header, const char* name) {
  Elf_Data* data = elf_getdata(section, nullptr);
  if (data == nullptr || header.sh_entsize == 0) return std::nullopt;
  const size_t count = header.sh_size / header.sh_entsize;
  for (size_t i = 0; i < count; i++) {
    GElf_Sym sym;
    if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) break;
    if (GELF_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_shndx == SHN_UNDEF) continue;
    const char* sym_name = elf_strptr(elf, header.sh_link, sym.st_name);
    if (sym_name != nullptr && std::strcmp(sym_name, name) == 0) return sym;
  }
  return std::nullopt;
}

}  // namespace

std::optional<LoadedObject> object_containing(const void* address) {
  Search search{reinterpret_cast<uintptr_t>(address), std::nullopt};
  dl_iterate_phdr(visit, &search);
  return search.found;
}

std::optional<uintptr_t> find_data_symbol(const LoadedObject& object, const char* name, std::string* why) {
  ElfFile file(object.path);
  if (!file.opened()) {
    *why = "cannot read " + object.path;
    return std::nullopt;
  }
  if (!is_elf64(file.get())) {
    *why = object.path + " is not a 64-bit ELF file";
    return std::nullopt;
  }
  Elf_Scn* section = nullptr;
  while ((section = elf_nextscn(file.get(), section)) != nullptr) {
    GElf_Shdr header;
    if (gelf_getshdr(section, &header) == nullptr || header.sh_type != SHT_SYMTAB) continue;
    const std::optional<GElf_Sym> sym = find_in_table(file.get(), section, header, name);
    if (!sym) continue;
    const uintptr_t address = object.bias + sym->st_value;
    if (!object.contains(address, sym->st_size)) {
      *why = std::string(name) + " lies outside " + object.path + "'s segments";
      return std::nullopt;
    }
    return address;
  }
  *why = object.path + " has no symbol table entry for " + name + " (stripped?)";
  return std::nullopt;
}

}  // namespace jvmkit::elf
