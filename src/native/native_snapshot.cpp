#include "native/native_snapshot.hpp"

#include <elf.h>
#include <link.h>
#include <sys/auxv.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string_view>
#include <utility>

#include "base/clock.hpp"

namespace jvmkit::native {

namespace {

bool same_build(const PreparedObject& prepared, const LoadedObject& object) {
  return prepared.path == object.path && prepared.bias == object.bias && prepared.build_id == object.build_id;
}

// Rows hold 32-bit offsets from the bias, so every executable byte must lie below bias + 4 GiB.
bool text_within_offsets(const LoadedObject& object) {
  for (const AddressRange& range : object.text) {
    if (range.start < object.bias || range.end - object.bias > (uint64_t{1} << 32)) return false;
  }
  return true;
}

// The end of the vDSO's ELF image: its headers and the sections and segments they describe.
// The kernel maps the whole image, so everything up to there is readable.
size_t elf_image_size(const uint8_t* image) {
  ElfW(Ehdr) ehdr;
  std::memcpy(&ehdr, image, sizeof(ehdr));
  if (std::memcmp(ehdr.e_ident, ELFMAG, SELFMAG) != 0) return 0;
  size_t size = std::max<size_t>(sizeof(ehdr), ehdr.e_phoff + size_t{ehdr.e_phnum} * ehdr.e_phentsize);
  size = std::max<size_t>(size, ehdr.e_shoff + size_t{ehdr.e_shnum} * ehdr.e_shentsize);
  for (int i = 0; i < ehdr.e_phnum; i++) {
    ElfW(Phdr) phdr;
    std::memcpy(&phdr, image + ehdr.e_phoff + size_t{ehdr.e_phentsize} * i, sizeof(phdr));
    if (phdr.p_type == PT_LOAD) size = std::max<size_t>(size, phdr.p_offset + phdr.p_filesz);
  }
  return size;
}

}  // namespace

std::span<const uint8_t> vdso_image() {
  const auto* image = reinterpret_cast<const uint8_t*>(getauxval(AT_SYSINFO_EHDR));
  if (image == nullptr) return {};
  return {image, elf_image_size(image)};
}

// PATH with its symbolic links and ".." resolved ("bin/../lib/libjli.so" is lib/libjli.so), or
// PATH when it cannot be resolved.
std::string resolved(const std::string& path) {
  char buffer[PATH_MAX];
  return realpath(path.c_str(), buffer) != nullptr ? std::string(buffer) : path;
}

bool stays_mapped(const LoadedObject& object, const std::string& jdk_lib) {
  if (object.is_vdso || object.is_main_program) return true;
  if (!jdk_lib.empty() && resolved(object.path).starts_with(jdk_lib)) return true;
  static constexpr std::string_view kRuntimes[] = {"libc.so.6",       "ld-linux-x86-64.so.2", "libm.so.6",
                                                   "libpthread.so.0", "libdl.so.2",           "librt.so.1",
                                                   "libstdc++.so.6",  "libgcc_s.so.1",        "libjvm.so"};
  const std::string name = base_name(object.path);
  return std::find(std::begin(kRuntimes), std::end(kRuntimes), name) != std::end(kRuntimes);
}

std::vector<bool> stays_mapped_closure(const std::vector<LoadedObject>& objects, const std::string& jdk_lib) {
  std::vector<bool> out(objects.size());
  for (size_t i = 0; i < objects.size(); i++) out[i] = stays_mapped(objects[i], jdk_lib);
  // What an object that stays needs stays too (the loader unloads a dependency only with the last
  // object that needs it): the system's libz.so.1 below the JDK's libzip.so. A name two loaded
  // objects answer to (an application's own libz.so.1 dlopened from its directory beside the
  // system's) says nothing about which one the loader bound: neither is taken.
  const auto answering = [&](const std::string& name) {
    size_t found = objects.size(), count = 0;
    for (size_t j = 0; j < objects.size(); j++) {
      if (objects[j].soname == name || base_name(objects[j].path) == name) {
        found = j;
        count++;
      }
    }
    return count == 1 ? found : objects.size();
  };
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t i = 0; i < objects.size(); i++) {
      if (!out[i]) continue;
      for (const std::string& name : objects[i].needed) {
        const size_t j = answering(name);
        if (j == objects.size() || out[j]) continue;
        out[j] = true;
        grew = true;
      }
    }
  }
  return out;
}

std::vector<uint32_t> row_pages(std::span<const UnwindRow> rows, uint32_t* first_page) {
  *first_page = 0;
  if (rows.empty()) return {};
  *first_page = rows.front().start >> kRowPageShift;
  const uint32_t last_page = rows.back().start >> kRowPageShift;
  std::vector<uint32_t> pages(static_cast<size_t>(last_page - *first_page) + 2);
  // pages[p]: the rows starting below page first + p, found in one pass over the sorted rows.
  uint32_t below = 0;
  for (size_t p = 0; p < pages.size(); p++) {
    const uint64_t page_start = static_cast<uint64_t>(*first_page + p) << kRowPageShift;
    while (below < rows.size() && rows[below].start < page_start) below++;
    pages[p] = below;
  }
  return pages;
}

std::shared_ptr<const PreparedObject> prepare_object(const LoadedObject& object, bool stays_mapped) {
  auto prepared = std::make_shared<PreparedObject>();
  prepared->stays_mapped = stays_mapped;
  prepared->path = object.path;
  prepared->bias = object.bias;
  prepared->build_id = object.build_id;
  prepared->text = object.text;
  prepared->is_vdso = object.is_vdso;
  CompiledCfi cfi;
  if (!text_within_offsets(object)) {
    cfi.error = CfiError::kAddressRange;
    cfi.detail = "code 4 GiB or more above the load bias";
  } else if (object.is_vdso) {
    cfi = compile_cfi_image(vdso_image(), object.build_id);
  } else {
    cfi = compile_cfi_file(object.path, object.build_id);
  }
  prepared->error = cfi.error;
  prepared->detail = std::move(cfi.detail);
  prepared->rows = std::move(cfi.rows);
  prepared->function_starts = std::move(cfi.function_starts);
  prepared->row_pages = row_pages(prepared->rows, &prepared->first_row_page);
  prepared->stats = cfi.stats;
  return prepared;
}

NativeSnapshot::NativeSnapshot(std::vector<std::shared_ptr<const PreparedObject>> objects)
    : objects_(std::move(objects)) {
  for (size_t i = 0; i < objects_.size(); i++) {
    const PreparedObject& object = *objects_[i];
    for (const AddressRange& range : object.text) {
      UnwindModule module;
      module.text_start = range.start;
      module.text_end = range.end;
      module.bias = object.bias;
      module.prepared = object.prepared();
      module.stays_mapped = object.stays_mapped;
      module.rows = object.prepared() ? object.rows.data() : nullptr;
      module.row_count = object.prepared() ? static_cast<uint32_t>(object.rows.size()) : 0;
      module.function_starts = object.prepared() ? object.function_starts.data() : nullptr;
      module.function_start_count = object.prepared() ? static_cast<uint32_t>(object.function_starts.size()) : 0;
      if (object.prepared() && !object.row_pages.empty()) {
        module.row_pages = object.row_pages.data();
        module.first_row_page = object.first_row_page;
        module.row_page_count = static_cast<uint32_t>(object.row_pages.size() - 1);
      }
      module.object = static_cast<uint32_t>(i);
      modules_.push_back(module);
    }
  }
  std::sort(modules_.begin(), modules_.end(),
            [](const UnwindModule& a, const UnwindModule& b) { return a.text_start < b.text_start; });
  // The loader never maps two objects' code over each other; if a list ever said so, the later
  // segment is dropped, so that the search's answer stays unique.
  std::vector<UnwindModule> disjoint;
  for (const UnwindModule& module : modules_) {
    if (disjoint.empty() || module.text_start >= disjoint.back().text_end) disjoint.push_back(module);
  }
  modules_ = std::move(disjoint);
}

PrepareSummary NativePreparer::update(const std::vector<LoadedObject>& objects) {
  const int64_t begin = monotonic_ns();
  PrepareSummary summary;
  const std::vector<std::shared_ptr<const PreparedObject>> none;
  const NativeSnapshot* previous = cell_.current();
  const auto& before = previous != nullptr ? previous->objects() : none;
  std::vector<std::shared_ptr<const PreparedObject>> next;
  // The JDK's lib/ directory: libjvm lies in lib/server/.
  std::string jdk_lib;
  for (const LoadedObject& object : objects) {
    if (base_name(object.path) != "libjvm.so") continue;
    const std::string path = resolved(object.path);
    const size_t server = path.rfind("/server/libjvm.so");
    if (server != std::string::npos) jdk_lib = path.substr(0, server + 1);
  }
  const std::vector<bool> kept_mapped = stays_mapped_closure(objects, jdk_lib);
  for (size_t i = 0; i < objects.size(); i++) {
    const LoadedObject& object = objects[i];
    const auto known =
        std::find_if(before.begin(), before.end(), [&](const auto& p) { return same_build(*p, object); });
    if (known != before.end()) {
      next.push_back(*known);
      summary.reused++;
      continue;
    }
    next.push_back(prepare_object(object, kept_mapped[i]));
    (next.back()->prepared() ? summary.prepared : summary.failed)++;
  }
  for (const auto& old : before) {
    const bool kept = std::find(next.begin(), next.end(), old) != next.end();
    summary.dropped += kept ? 0 : 1;
  }
  summary.objects = static_cast<uint32_t>(next.size());
  cell_.publish(std::make_unique<NativeSnapshot>(std::move(next)));
  summary.ns = static_cast<uint64_t>(monotonic_ns() - begin);
  return summary;
}

}  // namespace jvmkit::native
