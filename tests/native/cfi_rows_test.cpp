// The unwind rows of real libraries against libdw's own reading of the same CFI, PC by PC: at
// every row's first and last byte and at 100,000 random PCs, the row and libdw's Dwarf_Frame,
// evaluated on the same synthetic registers and memory, give the same CFA, return-address slot
// and caller rbp, or the row holds no rule (unsupported, no info, outermost) where libdw agrees
// there is none we keep. Prints each library's figures (rows, bytes, ms, unsupported rates).
#include "native/cfi_rows.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "cfi_agreement.hpp"

namespace jvmkit::native {
namespace {

constexpr uint64_t kRandomPcs = 100'000;
constexpr uint64_t kSeed = 20261204;

struct Expectation {
  const char* name;
  const char* path;
  // Upper bounds of the unsupported share, in percent of rows and of covered code bytes: a bit
  // above what these builds measure, so that a change that loses rules fails.
  double max_unsupported_rows_percent;
  double max_unsupported_code_percent;
};

void expect_agreement(const Expectation& library) {
  if (access(library.path, R_OK) != 0) GTEST_SKIP() << library.path << " is not installed";
  std::string why;
  ElfImage image = ElfImage::open_file(library.path, &why);
  ASSERT_NE(image.elf(), nullptr) << why;
  const CompiledCfi cfi = compile_cfi(image.elf());
  ASSERT_EQ(cfi.error, CfiError::kNone) << to_string(cfi.error) << ": " << cfi.detail;
  ASSERT_FALSE(cfi.rows.empty());

  ElfImage oracle_image = ElfImage::open_file(library.path, &why);  // libdw's caches of its own
  const oracle::Agreement agreement =
      oracle::compare_with_libdw(cfi.rows, oracle_image.elf(), cfi.stats.debug_frame, kRandomPcs, kSeed);
  const oracle::ByteShares shares = oracle::byte_shares(cfi.rows, oracle::executable_ranges(image.elf()));
  std::printf("%s\n", oracle::describe(library.name, cfi.stats, shares, agreement).c_str());
  std::fflush(stdout);

  EXPECT_EQ(agreement.disagreements, 0u);
  for (const std::string& example : agreement.examples) ADD_FAILURE() << library.name << ": " << example;
  EXPECT_GE(agreement.pcs, kRandomPcs + cfi.rows.size());
  const double rows_percent = 100.0 * cfi.stats.unsupported_rows / cfi.stats.rows;
  const double code_percent = shares.covered > 0 ? 100.0 * shares.unsupported / shares.covered : 0;
  EXPECT_LE(rows_percent, library.max_unsupported_rows_percent);
  EXPECT_LE(code_percent, library.max_unsupported_code_percent);
  EXPECT_EQ(cfi.stats.bytes, cfi.rows.size() * sizeof(UnwindRow));
  for (size_t i = 1; i < cfi.rows.size(); i++) {
    ASSERT_LT(cfi.rows[i - 1].start, cfi.rows[i].start) << "rows sorted, one per start";
    ASSERT_FALSE(cfi.rows[i - 1].same_rule(cfi.rows[i])) << "adjacent equal rows merged";
  }
}

TEST(CfiRows, LibcAgreesWithLibdw) {
  // Measured (glibc 2.36): 7 of 28,274 rows, 0.054 % of the code: buffered_vfprintf's 33 KB frame
  // (an offset beyond 16 bits), and code whose return address is in a register or a ucontext
  // (__longjmp, __longjmp_cancel, ____longjmp_chk, setcontext, vfork).
  expect_agreement({"libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6", 0.1, 0.2});
}

TEST(CfiRows, LibzAgreesWithLibdw) {
  // Measured (zlib 1.2.13): none.
  expect_agreement({"libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1", 0.05, 0.05});
}

TEST(CfiRows, Libjvm17AgreesWithLibdw) {
  // Measured (Debian 17.0.x): none of 191,233 rows.
  expect_agreement({"libjvm.so (JDK 17)", "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so", 0.01, 0.01});
}

TEST(CfiRows, Libjvm25AgreesWithLibdw) {
  // Measured (Temurin 25.0.x): 4 of 230,777 rows, hand-written code that returns through rcx.
  expect_agreement({"libjvm.so (Temurin 25)", "/usr/lib/jvm/temurin-25-jdk-amd64/lib/server/libjvm.so", 0.01, 0.01});
}

}  // namespace
}  // namespace jvmkit::native
