#include "native/debuginfo.hpp"

#include <elfutils/libdwelf.h>
#include <fcntl.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "native/elfutils_handles.hpp"

namespace jvmkit::native {
namespace {

constexpr const char* kDefaultDebuginfoPath = ":.debug:/usr/lib/debug";

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string real_path(const std::string& path) {
  char buffer[PATH_MAX];
  return realpath(path.c_str(), buffer) != nullptr ? std::string(buffer) : std::string();
}

std::vector<std::string> split_path(const std::string& debuginfo_path) {
  std::vector<std::string> entries;
  size_t at = 0;
  while (true) {
    const size_t colon = debuginfo_path.find(':', at);
    std::string entry = debuginfo_path.substr(at, colon == std::string::npos ? std::string::npos : colon - at);
    // libdwfl's '+' and '-' prefixes (whether to check CRCs) mean nothing here: build-ids decide.
    if (!entry.empty() && (entry[0] == '+' || entry[0] == '-')) entry.erase(0, 1);
    entries.push_back(std::move(entry));
    if (colon == std::string::npos) return entries;
    at = colon + 1;
  }
}

// Where one search-path ENTRY puts DEBUGLINK for an object in DIRECTORY.
std::string candidate_for(const std::string& entry, const std::string& directory, const std::string& debuglink) {
  const std::string tail = (directory == "/" ? "" : directory) + "/" + debuglink;
  if (entry.empty()) return tail;
  if (entry[0] != '/') return directory + "/" + entry + "/" + debuglink;
  // A debug root mirrors the file system: /usr/lib/debug + /usr/lib/x + /libfoo.debug.
  if (directory[0] != '/') return "";
  return (entry == "/" ? "" : entry) + tail;
}

// Opens PATH if it is an ELF file whose build-id is BUILD_ID.
FileDescriptor open_matching(const std::string& path, std::span<const uint8_t> build_id) {
  FileDescriptor fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return fd;
  init_libelf();
  ElfHandle elf(elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr));
  if (elf == nullptr || !has_build_id(elf.get(), build_id)) return FileDescriptor();
  return fd;
}

// libdwfl frees the name it is handed, so it must come from malloc.
char* malloc_copy(const std::string& text) { return strdup(text.c_str()); }

}  // namespace

std::string debuginfo_path_from_environment() {
  const char* value = std::getenv("JVMKIT_DEBUGINFO_PATH");
  return value != nullptr && value[0] != '\0' ? std::string(value) : std::string(kDefaultDebuginfoPath);
}

std::vector<std::string> debuglink_candidates(const std::string& object_path, const std::string& debuglink,
                                              const std::string& debuginfo_path) {
  std::vector<std::string> directories{directory_of(object_path)};
  const std::string real_directory = real_path(directories.front());
  if (!real_directory.empty() && real_directory != directories.front()) directories.push_back(real_directory);
  const std::string real_object = real_path(object_path);

  std::vector<std::string> candidates;
  for (const std::string& entry : split_path(debuginfo_path)) {
    for (const std::string& directory : directories) {
      std::string candidate = candidate_for(entry, directory, debuglink);
      if (candidate.empty() || candidate == object_path) continue;
      if (!real_object.empty() && real_path(candidate) == real_object) continue;
      if (std::find(candidates.begin(), candidates.end(), candidate) != candidates.end()) continue;
      candidates.push_back(std::move(candidate));
    }
  }
  return candidates;
}

bool has_build_id(Elf* elf, std::span<const uint8_t> build_id) {
  if (elf == nullptr || build_id.empty()) return false;
  const void* bits = nullptr;
  const ssize_t size = dwelf_elf_gnu_build_id(elf, &bits);
  return size > 0 && static_cast<size_t>(size) == build_id.size() &&
         std::memcmp(bits, build_id.data(), build_id.size()) == 0;
}

int find_debuginfo(Dwfl_Module* module, void** userdata, const char* module_name, Dwarf_Addr base,
                   const char* file_name, const char* debuglink, GElf_Word debuglink_crc, char** debuginfo_file_name) {
  auto* search = userdata != nullptr ? static_cast<DebugFileSearch*>(*userdata) : nullptr;
  const int by_build_id = dwfl_build_id_find_debuginfo(module, userdata, module_name, base, file_name, debuglink,
                                                       debuglink_crc, debuginfo_file_name);
  if (by_build_id >= 0) {
    if (search != nullptr && *debuginfo_file_name != nullptr) search->found = *debuginfo_file_name;
    return by_build_id;
  }
  if (search == nullptr || file_name == nullptr || debuglink == nullptr || debuglink[0] == '\0') return -1;

  const unsigned char* bits = nullptr;
  GElf_Addr vaddr = 0;
  const int size = dwfl_module_build_id(module, &bits, &vaddr);
  if (size <= 0) return -1;
  const std::span<const uint8_t> build_id(bits, static_cast<size_t>(size));
  for (const std::string& candidate : debuglink_candidates(file_name, debuglink, search->debuginfo_path)) {
    FileDescriptor fd = open_matching(candidate, build_id);
    if (!fd.valid()) continue;
    *debuginfo_file_name = malloc_copy(candidate);
    search->found = candidate;
    return fd.release();
  }
  return -1;
}

}  // namespace jvmkit::native
