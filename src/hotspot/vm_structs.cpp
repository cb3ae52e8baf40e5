#include "hotspot/vm_structs.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <string>

namespace jvmkit::hotspot {

namespace {

int find_libjvm(struct dl_phdr_info* info, size_t, void* data) {
  const char* name = info->dlpi_name;
  if (name == nullptr || std::strstr(name, "/libjvm.so") == nullptr) return 0;
  *static_cast<std::string*>(data) = name;
  return 1;
}

// The exported description of one table: where it is and how its entries are laid out.
struct Table {
  const char* entries = nullptr;
  uint64_t stride = 0, type_name = 0, field_name = 0, type_string = 0, is_static = 0, offset = 0, address = 0;
};

template <typename T>
bool read_symbol(void* lib, const char* name, T* out) {
  void* address = dlsym(lib, name);
  if (address == nullptr) return false;
  std::memcpy(out, address, sizeof(T));
  return true;
}

// A handle to the libjvm already in the process, or nullptr.
void* libjvm() {
  std::string path;
  dl_iterate_phdr(find_libjvm, &path);
  if (path.empty()) return nullptr;
  // RTLD_NOLOAD: only a handle to the libjvm already in the process (a reference we never drop,
  // as the JVM never unloads it either).
  return dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
}

std::optional<Table> structs_table() {
  void* lib = libjvm();
  if (lib == nullptr) return std::nullopt;
  Table t;
  bool ok = read_symbol(lib, "gHotSpotVMStructs", &t.entries) &&
            read_symbol(lib, "gHotSpotVMStructEntryArrayStride", &t.stride) &&
            read_symbol(lib, "gHotSpotVMStructEntryTypeNameOffset", &t.type_name) &&
            read_symbol(lib, "gHotSpotVMStructEntryFieldNameOffset", &t.field_name) &&
            read_symbol(lib, "gHotSpotVMStructEntryTypeStringOffset", &t.type_string) &&
            read_symbol(lib, "gHotSpotVMStructEntryIsStaticOffset", &t.is_static) &&
            read_symbol(lib, "gHotSpotVMStructEntryOffsetOffset", &t.offset) &&
            read_symbol(lib, "gHotSpotVMStructEntryAddressOffset", &t.address);
  if (!ok || t.entries == nullptr || t.stride == 0) return std::nullopt;
  return t;
}

template <typename T>
T entry_value(const char* entry, uint64_t offset) {
  T value;
  std::memcpy(&value, entry + offset, sizeof(T));
  return value;
}

// The entry describing TYPE::FIELD in TABLE, or nullptr.
const char* find_entry(const Table& table, const char* type, const char* field) {
  // The table ends with an entry whose type name is NULL.
  for (const char* e = table.entries;; e += table.stride) {
    const char* type_name = entry_value<const char*>(e, table.type_name);
    if (type_name == nullptr) return nullptr;
    const char* field_name = entry_value<const char*>(e, table.field_name);
    if (field_name != nullptr && std::strcmp(type_name, type) == 0 && std::strcmp(field_name, field) == 0) return e;
  }
}

// The entry named NAME of a table of named values (gHotSpotVMTypes, gHotSpotVMIntConstants), whose
// address, entry stride, name offset and value offset libjvm exports under the four symbols given.
// Sets *VALUE_OFFSET; nullptr when the table or the entry is absent.
const char* find_named_entry(const char* table_symbol, const char* stride_symbol, const char* name_symbol,
                             const char* value_symbol, const char* name, uint64_t* value_offset) {
  void* lib = libjvm();
  if (lib == nullptr) return nullptr;
  const char* entries = nullptr;
  uint64_t stride = 0, name_offset = 0;
  if (!read_symbol(lib, table_symbol, &entries) || !read_symbol(lib, stride_symbol, &stride) ||
      !read_symbol(lib, name_symbol, &name_offset) || !read_symbol(lib, value_symbol, value_offset) ||
      entries == nullptr || stride == 0) {
    return nullptr;
  }
  // The table ends with an entry whose name is NULL.
  for (const char* e = entries;; e += stride) {
    const char* entry_name = entry_value<const char*>(e, name_offset);
    if (entry_name == nullptr) return nullptr;
    if (std::strcmp(entry_name, name) == 0) return e;
  }
}

}  // namespace

std::optional<intptr_t> vm_struct_offset(const char* type, const char* field) {
  std::optional<Table> table = structs_table();
  if (!table) return std::nullopt;
  const char* e = find_entry(*table, type, field);
  if (e == nullptr || entry_value<int32_t>(e, table->is_static) != 0) return std::nullopt;
  return static_cast<intptr_t>(entry_value<uint64_t>(e, table->offset));
}

std::optional<uintptr_t> vm_static_field_address(const char* type, const char* field) {
  std::optional<Table> table = structs_table();
  if (!table) return std::nullopt;
  const char* e = find_entry(*table, type, field);
  if (e == nullptr || entry_value<int32_t>(e, table->is_static) == 0) return std::nullopt;
  const auto address = entry_value<uintptr_t>(e, table->address);
  if (address == 0) return std::nullopt;
  return address;
}

std::optional<uint64_t> vm_type_size(const char* type) {
  uint64_t size = 0;
  const char* e = find_named_entry("gHotSpotVMTypes", "gHotSpotVMTypeEntryArrayStride",
                                   "gHotSpotVMTypeEntryTypeNameOffset", "gHotSpotVMTypeEntrySizeOffset", type, &size);
  if (e == nullptr) return std::nullopt;
  return entry_value<uint64_t>(e, size);
}

std::optional<uint64_t> vm_struct_field_size(const char* type, const char* field) {
  std::optional<Table> table = structs_table();
  if (!table) return std::nullopt;
  const char* e = find_entry(*table, type, field);
  if (e == nullptr) return std::nullopt;
  const char* field_type = entry_value<const char*>(e, table->type_string);
  if (field_type == nullptr) return std::nullopt;
  if (std::optional<uint64_t> size = vm_type_size(field_type)) return size;
  // gHotSpotVMTypes lists only some pointer types ("char*" but not "const char*"): any pointer
  // has a pointer's size.
  const size_t length = std::strlen(field_type);
  if (length > 0 && field_type[length - 1] == '*') return sizeof(void*);
  return std::nullopt;
}

std::optional<int32_t> vm_int_constant(const char* name) {
  uint64_t value = 0;
  const char* e =
      find_named_entry("gHotSpotVMIntConstants", "gHotSpotVMIntConstantEntryArrayStride",
                       "gHotSpotVMIntConstantEntryNameOffset", "gHotSpotVMIntConstantEntryValueOffset", name, &value);
  if (e == nullptr) return std::nullopt;
  return entry_value<int32_t>(e, value);
}

}  // namespace jvmkit::hotspot
