#include "base/debug_check.hpp"
#include "base/signal_safe.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace jvmkit {

namespace {

// write(2) until done or failed: the message must get out even from a signal handler.
JVMKIT_SIGNAL_SAFE void write_all(const char* text) noexcept {
  size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n;
    left -= static_cast<size_t>(n);
  }
}

// Decimal digits of a non-negative line number, without printf (not async-signal-safe).
JVMKIT_SIGNAL_SAFE void write_line_number(int line) noexcept {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + line % 10);
    line /= 10;
  } while (line > 0 && n < 15);
  char text[16];
  for (int i = 0; i < n; i++) text[i] = digits[n - 1 - i];
  text[n] = '\0';
  write_all(text);
}

}  // namespace

JVMKIT_SIGNAL_SAFE void debug_check_failed(const char* condition, const char* file, int line) noexcept {
  write_all("jvmkit: debug check failed: ");
  write_all(condition);
  write_all(" at ");
  write_all(file);
  write_all(":");
  write_line_number(line < 0 ? 0 : line);
  write_all("\n");
  std::abort();
}

}  // namespace jvmkit
