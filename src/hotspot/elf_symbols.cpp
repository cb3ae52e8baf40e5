#include "hotspot/elf_symbols.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

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

// Fills FOUND[i] with the defined STT_OBJECT symbol NAMES[i] of the symbol table SECTION, where
// it is still empty: one pass over the table for every name (libjvm's holds 100,000 entries).
void find_in_table(Elf* elf, Elf_Scn* section, const GElf_Shdr& header, std::span<const char* const> names,
                   std::vector<std::optional<GElf_Sym>>* found) {
  Elf_Data* data = elf_getdata(section, nullptr);
  if (data == nullptr || header.sh_entsize == 0) return;
  const size_t count = header.sh_size / header.sh_entsize;
  for (size_t i = 0; i < count; i++) {
    GElf_Sym sym;
    if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) break;
    if (GELF_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_shndx == SHN_UNDEF) continue;
    const char* sym_name = elf_strptr(elf, header.sh_link, sym.st_name);
    if (sym_name == nullptr) continue;
    for (size_t n = 0; n < names.size(); n++) {
      if (!(*found)[n] && std::strcmp(sym_name, names[n]) == 0) (*found)[n] = sym;
    }
  }
}

// Addresses found so far, by object (path and bias) and name: the look-ups come from several
// places at start-up, and each read of libjvm's table takes about a millisecond.
struct FoundKey {
  std::string path;
  uintptr_t bias;
  std::string name;
  bool operator<(const FoundKey& o) const { return std::tie(path, bias, name) < std::tie(o.path, o.bias, o.name); }
};
std::mutex g_found_mutex;
std::map<FoundKey, uintptr_t>& found_addresses() {
  static auto* found = new std::map<FoundKey, uintptr_t>();  // never destroyed: no exit-order hazard
  return *found;
}

}  // namespace

std::optional<LoadedObject> object_containing(const void* address) {
  Search search{reinterpret_cast<uintptr_t>(address), std::nullopt};
  dl_iterate_phdr(visit, &search);
  return search.found;
}

std::vector<std::optional<uintptr_t>> find_data_symbols(const LoadedObject& object, std::span<const char* const> names,
                                                        std::string* why) {
  std::vector<std::optional<uintptr_t>> out(names.size());
  std::vector<const char*> missing;
  std::vector<size_t> missing_at;  // where each of missing is in names
  {
    std::lock_guard<std::mutex> lock(g_found_mutex);
    for (size_t i = 0; i < names.size(); i++) {
      auto known = found_addresses().find(FoundKey{object.path, object.bias, names[i]});
      if (known != found_addresses().end()) {
        out[i] = known->second;
      } else {
        missing.push_back(names[i]);
        missing_at.push_back(i);
      }
    }
  }
  if (missing.empty()) return out;
  ElfFile file(object.path);
  if (!file.opened()) {
    *why = "cannot read " + object.path;
    return out;
  }
  if (!is_elf64(file.get())) {
    *why = object.path + " is not a 64-bit ELF file";
    return out;
  }
  std::vector<std::optional<GElf_Sym>> symbols(missing.size());
  Elf_Scn* section = nullptr;
  while ((section = elf_nextscn(file.get(), section)) != nullptr) {
    GElf_Shdr header;
    if (gelf_getshdr(section, &header) == nullptr || header.sh_type != SHT_SYMTAB) continue;
    find_in_table(file.get(), section, header, missing, &symbols);
  }
  std::lock_guard<std::mutex> lock(g_found_mutex);
  for (size_t m = 0; m < missing.size(); m++) {
    if (!symbols[m]) {
      *why = object.path + " has no symbol table entry for " + missing[m] + " (stripped?)";
      continue;
    }
    const uintptr_t address = object.bias + symbols[m]->st_value;
    if (!object.contains(address, symbols[m]->st_size)) {
      *why = std::string(missing[m]) + " lies outside " + object.path + "'s segments";
      continue;
    }
    out[missing_at[m]] = address;
    found_addresses().emplace(FoundKey{object.path, object.bias, missing[m]}, address);
  }
  return out;
}

std::optional<uintptr_t> find_data_symbol(const LoadedObject& object, const char* name, std::string* why) {
  const char* const names[] = {name};
  return find_data_symbols(object, names, why).front();
}

}  // namespace jvmkit::elf
