// Field offsets from HotSpot's own description of its data structures (gHotSpotVMStructs, the
// table the Serviceability Agent reads). libjvm.so exports it in every stock build; a field that
// is not in the table of the running JVM is reported as missing, never guessed.
//
// Not signal context: looks up libjvm with dl_iterate_phdr/dlopen and walks the table.
#pragma once

#include <cstdint>
#include <optional>

namespace jvmkit::hotspot {

// The offset of FIELD inside TYPE (a non-static field), as the running JVM describes it, or
// nothing when libjvm or the entry is missing. TYPE is HotSpot's class name ("JavaThread").
std::optional<intptr_t> vm_struct_offset(const char* type, const char* field);

// The address of the static field FIELD of TYPE, as the running JVM describes it, or nullopt.
std::optional<uintptr_t> vm_static_field_address(const char* type, const char* field);

// The size in bytes of TYPE as the running JVM describes it (gHotSpotVMTypes), or nothing.
std::optional<uint64_t> vm_type_size(const char* type);

// The size in bytes of FIELD of TYPE: the size gHotSpotVMTypes gives the type gHotSpotVMStructs
// names for the field ("int", "size_t", "uint32_t"; a pointer's size for a pointer type the
// types table leaves out, such as "const char*"), or nothing when either is missing.
std::optional<uint64_t> vm_struct_field_size(const char* type, const char* field);

// The value of the integer constant NAME (gHotSpotVMIntConstants: "CodeBlobKind::Nmethod"), or
// nothing.
std::optional<int32_t> vm_int_constant(const char* name);

}  // namespace jvmkit::hotspot
