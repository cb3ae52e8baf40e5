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
  KernelSymbols out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    out.error_ = path + ": " + std::strerror(errno);
    return out;
  }
  // /proc/kallsyms is generated as it is read (about 130,000 lines, 6 MB): parsed chunk by chunk
  // from large reads, never held whole (each copy of 6 MB costs page faults and time).
  constexpr size_t kChunk = size_t{1} << 19;
  std::vector<char> buffer(kChunk);
  out.names_.reserve(size_t{1} << 22);
  size_t kept = 0;  // bytes of an unfinished line at the buffer's start
  for (;;) {
    if (kept == buffer.size()) buffer.resize(buffer.size() * 2);  // a line longer than a chunk
    const ssize_t n = ::read(fd, buffer.data() + kept, buffer.size() - kept);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    std::string_view text(buffer.data(), kept + static_cast<size_t>(n));
    for (size_t eol; (eol = text.find('\n')) != std::string_view::npos; text.remove_prefix(eol + 1)) {
      out.add_line(text.substr(0, eol));
    }
    kept = text.size();
    std::memmove(buffer.data(), text.data(), kept);
  }
  ::close(fd);
  if (kept > 0) out.add_line(std::string_view(buffer.data(), kept));
  out.finish();
  return out;
}

KernelSymbols KernelSymbols::parse(std::string_view text) {
  KernelSymbols out;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    out.add_line(text.substr(0, eol));
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
  }
  out.finish();
  return out;
}

void KernelSymbols::add_line(std::string_view line) {
  Line parsed;
  if (!parse_line(line, &parsed)) return;
  listed_++;
  if (parsed.address == 0) return;  // hidden (kptr_restrict)
  if (!starts_.empty()) {
    // Of several names at one address the first listed wins (kallsyms lists aliases after).
    if (in_order_ && starts_.back().start == parsed.address) return;
    in_order_ = in_order_ && starts_.back().start < parsed.address;
  }
  // Every symbol bounds the text symbol before it (data after the last function, a module's
  // end); only text symbols name frames.
  uint32_t name = UINT32_MAX;  // a bound, not a function
  if (is_text(parsed.type)) {
    name = static_cast<uint32_t>(names_.size());
    names_.append(parsed.name);
    names_.push_back('\0');
  }
  starts_.push_back(Entry{parsed.address, name});
}

void KernelSymbols::finish() {
  if (starts_.empty()) {
    hidden_ = listed_ > 0;
    if (listed_ == 0) error_ = "no symbols";
    return;
  }
  // The core kernel's symbols come sorted; the modules' follow, each in its own order. Stable, so
  // that the first listed of one address stays first, and is the one kept.
  if (!in_order_) {
    const auto by_start = [](const Entry& a, const Entry& b) { return a.start < b.start; };
    std::stable_sort(starts_.begin(), starts_.end(), by_start);
    const auto same_start = [](const Entry& a, const Entry& b) { return a.start == b.start; };
    starts_.erase(std::unique(starts_.begin(), starts_.end(), same_start), starts_.end());
  }
  starts_.shrink_to_fit();
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
