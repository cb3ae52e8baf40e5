#include "hotspot/interpreter_codelets.hpp"

#include <cstring>
#include <optional>

#include "hotspot/vm_structs.hpp"

namespace jvmkit::hotspot {

namespace {

template <typename T>
T read(uintptr_t address) {
  T value;
  std::memcpy(&value, reinterpret_cast<const void*>(address), sizeof(value));
  return value;
}

struct QueueLayout {
  uintptr_t code_field;  // &AbstractInterpreter::_code (a StubQueue*)
  intptr_t buffer, begin, end;
  intptr_t size, description;
  uint64_t header_size;
};

std::optional<QueueLayout> queue_layout() {
  const auto code = vm_static_field_address("AbstractInterpreter", "_code");
  const auto buffer = vm_struct_offset("StubQueue", "_stub_buffer");
  const auto begin = vm_struct_offset("StubQueue", "_queue_begin");
  const auto end = vm_struct_offset("StubQueue", "_queue_end");
  const auto size = vm_struct_offset("InterpreterCodelet", "_size");
  const auto description = vm_struct_offset("InterpreterCodelet", "_description");
  const auto header = vm_type_size("InterpreterCodelet");
  if (!code || !buffer || !begin || !end || !size || !description || !header) return std::nullopt;
  return QueueLayout{*code, *buffer, *begin, *end, *size, *description, *header};
}

}  // namespace

std::vector<InterpreterCodelet> interpreter_codelets() {
  std::vector<InterpreterCodelet> out;
  const std::optional<QueueLayout> layout = queue_layout();
  if (!layout) return out;
  const uintptr_t queue = read<uintptr_t>(layout->code_field);
  if (queue == 0) return out;
  const uintptr_t buffer = read<uintptr_t>(queue + layout->buffer);
  const int begin = read<int>(queue + layout->begin), end = read<int>(queue + layout->end);
  // The interpreter's queue is filled once, from its start, and never wraps around.
  if (buffer == 0 || begin < 0 || end < begin) return out;
  for (uintptr_t at = buffer + static_cast<uintptr_t>(begin); at < buffer + static_cast<uintptr_t>(end);) {
    const int size = read<int>(at + layout->size);
    if (size <= 0 || static_cast<uint64_t>(size) <= layout->header_size) break;  // not a codelet: stop
    const char* description = read<const char*>(at + layout->description);
    out.push_back({at + layout->header_size, at + static_cast<uintptr_t>(size), description ? description : ""});
    at += static_cast<uintptr_t>(size);
  }
  return out;
}

}  // namespace jvmkit::hotspot
