#include "hotspot/elf_symbols.hpp"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

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

// A read-only mapping of a whole file, unmapped when it goes out of scope.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st;
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
      void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
        data_ = static_cast<const uint8_t*>(p);
        size_ = static_cast<size_t>(st.st_size);
      }
    }
    close(fd);
  }
  ~MappedFile() {
    if (data_ != nullptr) munmap(const_cast<uint8_t*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // The `count` records of type T at `offset`, or nullptr when they do not fit in the file.
  template <typename T>
  const T* records(uint64_t offset, uint64_t count) const {
    if (data_ == nullptr || offset > size_ || count > (size_ - offset) / sizeof(T)) return nullptr;
    return reinterpret_cast<const T*>(data_ + offset);
  }
  bool open_ok() const { return data_ != nullptr; }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

bool is_elf64_x86_64(const ElfW(Ehdr) * eh) {
  return eh != nullptr && std::memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
         eh->e_shentsize == sizeof(ElfW(Shdr));
}

}  // namespace

std::optional<LoadedObject> object_containing(const void* address) {
  Search search{reinterpret_cast<uintptr_t>(address), std::nullopt};
  dl_iterate_phdr(visit, &search);
  return search.found;
}

std::optional<uintptr_t> find_data_symbol(const LoadedObject& object, const char* name, std::string* why) {
  MappedFile file(object.path);
  if (!file.open_ok()) {
    *why = "cannot read " + object.path;
    return std::nullopt;
  }
  const auto* eh = file.records<ElfW(Ehdr)>(0, 1);
  if (!is_elf64_x86_64(eh)) {
    *why = object.path + " is not a 64-bit ELF file";
    return std::nullopt;
  }
  const auto* sections = file.records<ElfW(Shdr)>(eh->e_shoff, eh->e_shnum);
  if (sections == nullptr) {
    *why = object.path + ": section headers out of the file";
    return std::nullopt;
  }
  for (size_t i = 0; i < eh->e_shnum; i++) {
    const ElfW(Shdr)& symtab = sections[i];
    if (symtab.sh_type != SHT_SYMTAB || symtab.sh_link >= eh->e_shnum) continue;
    const ElfW(Shdr)& strtab = sections[symtab.sh_link];
    const auto* symbols = file.records<ElfW(Sym)>(symtab.sh_offset, symtab.sh_size / sizeof(ElfW(Sym)));
    const auto* strings = file.records<char>(strtab.sh_offset, strtab.sh_size);
    if (symbols == nullptr || strings == nullptr) continue;
    const size_t name_length = std::strlen(name);
    for (size_t s = 0; s < symtab.sh_size / sizeof(ElfW(Sym)); s++) {
      const ElfW(Sym)& sym = symbols[s];
      if (ELF64_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_shndx == SHN_UNDEF) continue;
      if (sym.st_name >= strtab.sh_size || strtab.sh_size - sym.st_name <= name_length) continue;
      if (std::memcmp(strings + sym.st_name, name, name_length + 1) != 0) continue;
      const uintptr_t address = object.bias + sym.st_value;
      if (!object.contains(address, sym.st_size)) {
        *why = std::string(name) + " lies outside " + object.path + "'s segments";
        return std::nullopt;
      }
      return address;
    }
  }
  *why = object.path + " has no symbol table entry for " + name + " (stripped?)";
  return std::nullopt;
}

}  // namespace jvmkit::elf
