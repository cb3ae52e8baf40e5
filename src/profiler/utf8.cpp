#include "profiler/utf8.hpp"

#include <cstdint>

namespace jvmkit::prof {
namespace {

constexpr char32_t kReplacement = 0xFFFD;

void append(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

bool is_continuation(unsigned char b) { return (b & 0xC0) == 0x80; }

// One sequence at IN[i], decoded the strict UTF-8 way, except that surrogates (ED A0..BF xx) and
// the two-byte NUL (C0 80) are accepted when MODIFIED is set. Sets *length to the bytes used (1
// for a bad byte) and returns the code point, or kReplacement for a bad sequence.
char32_t decode(std::string_view in, size_t i, bool modified, size_t* length) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(in[i + k]); };
  const size_t left = in.size() - i;
  const unsigned char lead = b(0);
  *length = 1;
  if (lead < 0x80) return lead;
  if (modified && lead == 0xC0 && left >= 2 && b(1) == 0x80) {
    *length = 2;
    return 0;
  }
  size_t n = 0;
  char32_t c = 0, min = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2, c = lead & 0x1F, min = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    n = 3, c = lead & 0x0F, min = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4, c = lead & 0x07, min = 0x10000;
  } else {
    return kReplacement;
  }
  if (left < n) return kReplacement;
  for (size_t k = 1; k < n; k++) {
    if (!is_continuation(b(k))) return kReplacement;
    c = (c << 6) | (b(k) & 0x3F);
  }
  if (c < min || c > 0x10FFFF) return kReplacement;
  if (c >= 0xD800 && c <= 0xDFFF && !modified) return kReplacement;
  *length = n;
  return c;
}

}  // namespace

std::string utf8_from_modified(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size();) {
    size_t n = 0;
    char32_t c = decode(in, i, true, &n);
    i += n;
    if (c >= 0xD800 && c <= 0xDBFF) {
      // A high surrogate: the low one must follow, else the character is lost.
      size_t m = 0;
      char32_t low = i < in.size() ? decode(in, i, true, &m) : 0;
      if (low >= 0xDC00 && low <= 0xDFFF) {
        i += m;
        c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
      } else {
        c = kReplacement;
      }
    } else if (c >= 0xDC00 && c <= 0xDFFF) {
      c = kReplacement;  // a low surrogate without its high one
    }
    append(out, c);
  }
  return out;
}

std::string valid_utf8(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size();) {
    size_t n = 0;
    append(out, decode(in, i, false, &n));
    i += n;
  }
  return out;
}

}  // namespace jvmkit::prof
