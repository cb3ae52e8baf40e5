#include "native/loaded_objects.hpp"

#include <elf.h>
#include <link.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <climits>
#include <cstddef>
#include <cstring>

namespace jvmkit::native {

namespace {

// The NT_GNU_BUILD_ID descriptor of one PT_NOTE segment in memory, or empty. Notes are
// 4-byte-aligned records {namesz, descsz, type, name, desc} (the ELF gABI).
std::vector<uint8_t> build_id_in_note(const uint8_t* note, size_t size) {
  size_t at = 0;
  while (at + sizeof(ElfW(Nhdr)) <= size) {
    ElfW(Nhdr) header;
    std::memcpy(&header, note + at, sizeof(header));
    const size_t name_at = at + sizeof(header);
    const size_t desc_at = name_at + ((header.n_namesz + 3) & ~size_t{3});
    const size_t next = desc_at + ((header.n_descsz + 3) & ~size_t{3});
    if (next > size || next <= at) break;
    if (header.n_type == NT_GNU_BUILD_ID && header.n_namesz == 4 && std::memcmp(note + name_at, "GNU", 4) == 0) {
      return std::vector<uint8_t>(note + desc_at, note + desc_at + header.n_descsz);
    }
    at = next;
  }
  return {};
}

std::string main_program_path() {
  char buffer[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : std::string("[program]");
}

// True when the object's program headers are those of the vDSO image the kernel announced.
bool is_vdso_image(const dl_phdr_info* info) {
  const auto* ehdr = reinterpret_cast<const ElfW(Ehdr)*>(getauxval(AT_SYSINFO_EHDR));
  if (ehdr == nullptr) return false;
  return reinterpret_cast<uintptr_t>(info->dlpi_phdr) == reinterpret_cast<uintptr_t>(ehdr) + ehdr->e_phoff;
}

// The loader relocates the dynamic section's address entries in place (glibc on x86_64: the
// section is writable when it runs); an entry below the load bias is still a file address.
uintptr_t dynamic_address(uintptr_t value, uintptr_t bias) { return value < bias ? value + bias : value; }

// DT_SONAME and DT_NEEDED of the dynamic section at DYNAMIC (in memory).
void read_dynamic(const ElfW(Dyn) * dynamic, uintptr_t bias, LoadedObject* object) {
  uintptr_t strtab = 0;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; d++) {
    if (d->d_tag == DT_STRTAB) strtab = dynamic_address(d->d_un.d_ptr, bias);
  }
  if (strtab == 0) return;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; d++) {
    const char* name = reinterpret_cast<const char*>(strtab + d->d_un.d_val);
    if (d->d_tag == DT_NEEDED) object->needed.emplace_back(name);
    if (d->d_tag == DT_SONAME) object->soname = name;
  }
}

LoadedObject describe(const dl_phdr_info* info, bool first) {
  LoadedObject object;
  object.bias = info->dlpi_addr;
  object.is_vdso = is_vdso_image(info);
  const char* name = info->dlpi_name != nullptr ? info->dlpi_name : "";
  object.is_main_program = first && name[0] == '\0';
  if (object.is_vdso) {
    object.path = "[vdso]";
  } else if (object.is_main_program) {
    object.path = main_program_path();
  } else {
    object.path = name;
  }
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const uintptr_t at = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) != 0) {
      object.text.push_back(AddressRange{at, at + ph.p_memsz});
    } else if (ph.p_type == PT_GNU_EH_FRAME) {
      object.eh_frame_hdr = at;
    } else if (ph.p_type == PT_NOTE && object.build_id.empty()) {
      object.build_id = build_id_in_note(reinterpret_cast<const uint8_t*>(at), ph.p_memsz);
    } else if (ph.p_type == PT_DYNAMIC && !object.is_vdso) {
      read_dynamic(reinterpret_cast<const ElfW(Dyn)*>(at), info->dlpi_addr, &object);
    }
  }
  return object;
}

struct Collector {
  std::vector<LoadedObject> objects;
  bool first = true;
};

int collect(dl_phdr_info* info, size_t, void* data) {
  auto* collector = static_cast<Collector*>(data);
  LoadedObject object = describe(info, collector->first);
  collector->first = false;
  if (!object.text.empty()) collector->objects.push_back(std::move(object));
  return 0;
}

int read_generation(dl_phdr_info* info, size_t size, void* data) {
  auto* out = static_cast<LoadGeneration*>(data);
  // dlpi_adds/dlpi_subs exist since glibc 2.4; SIZE says whether this glibc passes them.
  if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
    out->adds = info->dlpi_adds;
    out->subs = info->dlpi_subs;
  }
  return 1;  // the counters are the same in every entry: the first is enough
}

}  // namespace

bool LoadedObject::holds_code(uintptr_t address) const {
  for (const AddressRange& range : text) {
    if (range.holds(address)) return true;
  }
  return false;
}

std::vector<LoadedObject> loaded_objects() {
  Collector collector;
  dl_iterate_phdr(collect, &collector);
  return std::move(collector.objects);
}

LoadGeneration load_generation() {
  LoadGeneration generation;
  dl_iterate_phdr(read_generation, &generation);
  return generation;
}

std::string hex(const std::vector<uint8_t>& build_id) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(build_id.size() * 2);
  for (const uint8_t byte : build_id) {
    out += kDigits[byte >> 4];
    out += kDigits[byte & 15];
  }
  return out;
}

std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace jvmkit::native
