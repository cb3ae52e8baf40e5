#include "native/dwfl_symbols.hpp"

#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <sys/auxv.h>

#include <algorithm>
#include <cstring>
#include <span>

#include "native/debuginfo.hpp"
#include "native/elfutils_handles.hpp"

namespace jvmkit::native {
namespace {

constexpr const char* kVdsoName = "[vdso]";

// The vDSO's ELF image as the kernel mapped it: from AT_SYSINFO_EHDR to the end of what its
// headers describe (the kernel maps the whole file, section headers included).
std::span<const uint8_t> vdso_image() {
  const auto* base = reinterpret_cast<const uint8_t*>(getauxval(AT_SYSINFO_EHDR));
  if (base == nullptr) return {};
  const auto* ehdr = reinterpret_cast<const ElfW(Ehdr)*>(base);
  size_t size = ehdr->e_shoff + size_t{ehdr->e_shnum} * ehdr->e_shentsize;
  const auto* phdrs = reinterpret_cast<const ElfW(Phdr)*>(base + ehdr->e_phoff);
  for (size_t i = 0; i < ehdr->e_phnum; i++) {
    if (phdrs[i].p_type == PT_LOAD) size = std::max<size_t>(size, phdrs[i].p_offset + phdrs[i].p_filesz);
  }
  return {base, size};
}

// [lowest, highest) ELF vaddr of the image's PT_LOAD segments, the first one page-aligned as
// libdwfl aligns it, so that a module reported there gets the object's load bias.
std::pair<uint64_t, uint64_t> load_span(std::span<const uint8_t> image) {
  const auto* ehdr = reinterpret_cast<const ElfW(Ehdr)*>(image.data());
  const auto* phdrs = reinterpret_cast<const ElfW(Phdr)*>(image.data() + ehdr->e_phoff);
  uint64_t low = 0, high = 0;
  bool first = true;
  for (size_t i = 0; i < ehdr->e_phnum; i++) {
    const ElfW(Phdr)& ph = phdrs[i];
    if (ph.p_type != PT_LOAD) continue;
    if (first) low = ph.p_align > 1 ? ph.p_vaddr & ~(ph.p_align - 1) : ph.p_vaddr;
    high = std::max<uint64_t>(high, ph.p_vaddr + ph.p_memsz);
    first = false;
  }
  return {low, high};
}

// Dwfl_Callbacks::find_elf: modules reported by name only get their ELF here: the vDSO from
// memory, anything else from the file the name gives.
int find_elf(Dwfl_Module*, void**, const char* module_name, Dwarf_Addr, char** file_name, Elf** elfp) {
  if (std::strcmp(module_name, kVdsoName) == 0) {
    const std::span<const uint8_t> image = vdso_image();
    if (image.empty()) return -1;
    init_libelf();
    // elf_memory only reads an image it is given for reading; libdwfl ends the handle.
    *elfp = elf_memory(const_cast<char*>(reinterpret_cast<const char*>(image.data())), image.size());
    return -1;
  }
  const int fd = open(module_name, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) *file_name = strdup(module_name);
  return fd;
}

// One Dwfl per read: its callbacks, the search path they point at, and the module's userdata.
class DwflSession {
 public:
  explicit DwflSession(const std::string& debuginfo_path) : path_storage_(debuginfo_path) {
    search_.debuginfo_path = debuginfo_path;
    path_ = path_storage_.data();
    callbacks_.find_elf = find_elf;
    callbacks_.find_debuginfo = find_debuginfo;
    callbacks_.section_address = nullptr;
    callbacks_.debuginfo_path = &path_;
    dwfl_.reset(dwfl_begin(&callbacks_));
  }
  DwflSession(const DwflSession&) = delete;
  DwflSession& operator=(const DwflSession&) = delete;

  // Reports OBJECT as the session's one module at its load bias; nullptr with *why on failure.
  Dwfl_Module* report(const LoadedObject& object, std::string* why) {
    if (dwfl_ == nullptr) return fail(why, "dwfl_begin");
    dwfl_report_begin(dwfl_.get());
    Dwfl_Module* module = object.is_vdso ? report_vdso(object) : report_file(object);
    if (dwfl_report_end(dwfl_.get(), nullptr, nullptr) != 0 || module == nullptr) {
      return fail(why, object.is_vdso ? "the vDSO image" : object.path.c_str());
    }
    void** userdata = nullptr;
    dwfl_module_info(module, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
    *userdata = &search_;
    return module;
  }

  const std::string& debug_file() const { return search_.found; }

 private:
  Dwfl_Module* report_file(const LoadedObject& object) {
    return dwfl_report_elf(dwfl_.get(), object.path.c_str(), object.path.c_str(), -1, object.bias, true);
  }

  Dwfl_Module* report_vdso(const LoadedObject& object) {
    const std::span<const uint8_t> image = vdso_image();
    if (image.empty()) return nullptr;
    const auto [low, high] = load_span(image);
    return dwfl_report_module(dwfl_.get(), kVdsoName, object.bias + low, object.bias + high);
  }

  static Dwfl_Module* fail(std::string* why, const char* what) {
    *why = std::string(what) + ": " + dwfl_errmsg(-1);
    return nullptr;
  }

  std::string path_storage_;
  char* path_ = nullptr;
  DebugFileSearch search_;
  Dwfl_Callbacks callbacks_{};
  DwflHandle dwfl_;
};

bool has_symtab_section(Elf* elf) {
  Elf_Scn* section = nullptr;
  while ((section = elf_nextscn(elf, section)) != nullptr) {
    GElf_Shdr header;
    if (gelf_getshdr(section, &header) != nullptr && header.sh_type == SHT_SYMTAB) return true;
  }
  return false;
}

// Which table a symbol read from SYMBOL_ELF came from. libdwfl reads one table: the main file's
// .symtab, else the debug file's, else the main file's .dynsym (plus, for the latter, a .symtab
// packed in .gnu_debugdata, whose Elf is neither file's).
class SourceOf {
 public:
  SourceOf(Elf* main_elf, bool debug_file_used)
      : main_elf_(main_elf), main_has_symtab_(has_symtab_section(main_elf)), debug_file_used_(debug_file_used) {}

  SymbolSource operator()(Elf* symbol_elf) const {
    if (symbol_elf == main_elf_) return main_has_symtab_ ? SymbolSource::kSymtab : SymbolSource::kDynsym;
    return debug_file_used_ ? SymbolSource::kDebugFile : SymbolSource::kSymtab;
  }

 private:
  Elf* main_elf_;
  bool main_has_symtab_;
  bool debug_file_used_;
};

bool is_defined_function(const GElf_Sym& sym, GElf_Word section) {
  const int type = GELF_ST_TYPE(sym.st_info);
  // libdwfl reports a section of -1 for a symbol outside the allocated sections: not code.
  const bool in_memory = section != SHN_UNDEF && section != SHN_ABS && section != static_cast<GElf_Word>(-1);
  return (type == STT_FUNC || type == STT_GNU_IFUNC) && sym.st_size > 0 && in_memory;
}

Error same_build(Dwfl_Module* module, const LoadedObject& object) {
  if (object.build_id.empty()) return Error::ok();
  const unsigned char* bits = nullptr;
  GElf_Addr vaddr = 0;
  const int size = dwfl_module_build_id(module, &bits, &vaddr);
  if (size > 0 && static_cast<size_t>(size) == object.build_id.size() &&
      std::memcmp(bits, object.build_id.data(), object.build_id.size()) == 0) {
    return Error::ok();
  }
  return Error(object.path + ": the file's build-id differs from the loaded image's (replaced on disk?)");
}

}  // namespace

const char* to_string(SymbolSource source) noexcept {
  switch (source) {
    case SymbolSource::kDebugFile:
      return "debug file";
    case SymbolSource::kSymtab:
      return "symtab";
    case SymbolSource::kDynsym:
      return "dynsym";
  }
  return "?";
}

Error read_function_symbols(const LoadedObject& object, const std::string& debuginfo_path,
                            const std::function<void(const RawFunctionSymbol&)>& visit, FunctionSymbolsRead* read) {
  DwflSession session(debuginfo_path);
  std::string why;
  Dwfl_Module* module = session.report(object, &why);
  if (module == nullptr) return Error(why);
  GElf_Addr main_bias = 0;
  Elf* main_elf = dwfl_module_getelf(module, &main_bias);
  if (main_elf == nullptr) return Error(object.path + ": " + dwfl_errmsg(-1));
  if (Error error = same_build(module, object)) return error;

  // Reading the table is what makes libdwfl look for a debug file.
  const int count = dwfl_module_getsymtab(module);
  if (count < 0) return Error::ok();  // no symbol table of any kind: nothing to name
  read->debug_file = session.debug_file();
  read->listed = static_cast<size_t>(count);
  const SourceOf source_of(main_elf, !read->debug_file.empty());
  for (int i = 0; i < count; i++) {
    GElf_Sym sym;
    GElf_Addr address = 0;
    GElf_Word section = 0;
    Elf* symbol_elf = nullptr;
    const char* name = dwfl_module_getsym_info(module, i, &sym, &address, &section, &symbol_elf, nullptr);
    if (name == nullptr || name[0] == '\0' || !is_defined_function(sym, section) || address < main_bias) continue;
    visit(RawFunctionSymbol{address - main_bias, sym.st_size, name, static_cast<uint8_t>(GELF_ST_BIND(sym.st_info)),
                            source_of(symbol_elf)});
  }
  return Error::ok();
}

}  // namespace jvmkit::native
