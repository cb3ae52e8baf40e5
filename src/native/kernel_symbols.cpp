#include "native/kernel_symbols.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

namespace jvmkit::native {
namespace {

// Text (code) symbols: T/t, and weak ones W/w, which name functions too.
bool is_text(char type) { return type == 'T' || type == 't' || type == 'W' || type == 'w'; }

struct Line {
  uint64_t address = 0;
  char type = 0;
  std::string_view name;
};

// "ffffffff81000000 T _stext" or "ffffffffc0a01000 t name\t[module]": false for anything else.
bool parse_line(std::string_view line, Line* out) {
  const size_t space = line.find(' ');
  if (space == std::string_view::npos || space + 3 > line.size() || line[space + 2] != ' ') return false;
  auto [end, ec] = std::from_chars(line.data(), line.data() + space, out->address, 16);
  if (ec != std::errc() || end != line.data() + space) return false;
  out->type = line[space + 1];
  std::string_view rest = line.substr(space + 3);
  out->name = rest.substr(0, rest.find('\t'));
  return !out->name.empty();
}

}  // namespace

KernelSymbols KernelSymbols::load(const std::string& path) {
  // Whole, with large reads: /proc/kallsyms is generated as it is read (about 130,000 lines,
  // 6 MB), and a stream's small reads and copies cost more than the kernel's formatting.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    KernelSymbols none;
    none.error_ = path + ": " + std::strerror(errno);
    return none;
  }
  constexpr size_t kChunk = size_t{1} << 20;
  std::string text;
  size_t used = 0;
  for (;;) {
    if (text.size() < used + kChunk) text.resize(used + kChunk);
    const ssize_t n = ::read(fd, text.data() + used, kChunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    used += static_cast<size_t>(n);
  }
  ::close(fd);
  text.resize(used);
  return parse(text);
}

KernelSymbols KernelSymbols::parse(std::string_view text) {
  KernelSymbols out;
  std::vector<std::pair<uint64_t, std::string_view>> symbols;
  size_t listed = 0;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    Line parsed;
    if (!parse_line(line, &parsed)) continue;
    listed++;
    // Every symbol bounds the text symbol before it (data after the last function, a module's
    // end); only text symbols name frames.
    if (parsed.address != 0)
      symbols.emplace_back(parsed.address, is_text(parsed.type) ? parsed.name : std::string_view());
  }
  if (symbols.empty()) {
    out.hidden_ = listed > 0;
    if (listed == 0) out.error_ = "no symbols";
    return out;
  }
  // Stable: of several names at one address, the first listed wins (kallsyms lists aliases after).
  // The core kernel's symbols come sorted; the modules' follow, each in its own order.
  const auto by_address = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (!std::is_sorted(symbols.begin(), symbols.end(), by_address)) {
    std::stable_sort(symbols.begin(), symbols.end(), by_address);
  }
  out.starts_.reserve(symbols.size());
  for (const auto& [address, name] : symbols) {
    if (!out.starts_.empty() && out.starts_.back().start == address) continue;
    uint32_t offset = UINT32_MAX;  // a bound, not a function
    if (!name.empty()) {
      offset = static_cast<uint32_t>(out.names_.size());
      out.names_.append(name);
      out.names_.push_back('\0');
    }
    out.starts_.push_back(Entry{address, offset});
  }
  return out;
}

const char* KernelSymbols::find(uint64_t pc, uint64_t* offset) const {
  auto after = std::upper_bound(starts_.begin(), starts_.end(), pc,
                                [](uint64_t value, const Entry& entry) { return value < entry.start; });
  // The symbol at or below PC, which must be a function and must not be the table's last entry
  // (nothing bounds it: a PC past the kernel's and the modules' text).
  if (after == starts_.begin() || after == starts_.end()) return nullptr;
  const Entry& entry = *(after - 1);
  if (entry.name == UINT32_MAX) return nullptr;
  *offset = pc - entry.start;
  return names_.c_str() + entry.name;
}

}  // namespace jvmkit::native
