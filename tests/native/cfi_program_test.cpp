// The one-pass compiler of FDE programs against libdw's row-by-row answers: on the hand-written
// fixtures and on whole system libraries, both give the same rows (start, rule, operand) and the
// same counts (rows before merging, unsupported rows by reason, empty and overlapping FDEs). The
// FDEs the fast path gives back to libdw are counted, so that a change that quietly sends every
// FDE back (and makes the comparison trivial) fails too.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "native/cfi_rows.hpp"

namespace jvmkit::native {
namespace {

struct Compiled {
  CompiledCfi fast;
  CompiledCfi libdw;
};

Compiled compile_both(const char* path) {
  std::string why;
  ElfImage image = ElfImage::open_file(path, &why);
  EXPECT_NE(image.elf(), nullptr) << why;
  Compiled out;
  if (image.elf() == nullptr) return out;
  out.fast = compile_cfi(image.elf(), CfiPrograms::kFastPath);
  ElfImage reference = ElfImage::open_file(path, &why);  // libdw's caches of its own
  out.libdw = compile_cfi(reference.elf(), CfiPrograms::kLibdwOnly);
  return out;
}

std::string describe(const UnwindRow& row) {
  return "start 0x" + std::to_string(row.start) + " kind " + std::to_string(static_cast<int>(row.cfa_kind())) +
         " offset " + std::to_string(row.cfa_offset) + " rbp " + std::to_string(static_cast<int>(row.rbp_rule())) +
         " operand " + std::to_string(row.operand);
}

// Both compilations of PATH agree; returns how many FDEs the fast path left to libdw.
uint32_t expect_same_rows(const char* path) {
  const Compiled both = compile_both(path);
  const CompiledCfi& fast = both.fast;
  const CompiledCfi& libdw = both.libdw;
  EXPECT_EQ(fast.error, CfiError::kNone) << to_string(fast.error) << ": " << fast.detail;
  EXPECT_EQ(libdw.error, CfiError::kNone) << to_string(libdw.error) << ": " << libdw.detail;
  EXPECT_EQ(libdw.stats.libdw_fdes, libdw.stats.fdes);
  EXPECT_FALSE(fast.rows.empty());
  EXPECT_EQ(fast.rows.size(), libdw.rows.size());
  int reported = 0;
  for (size_t i = 0; i < std::min(fast.rows.size(), libdw.rows.size()) && reported < 10; i++) {
    const UnwindRow& a = fast.rows[i];
    const UnwindRow& b = libdw.rows[i];
    if (a.start == b.start && a.same_rule(b)) continue;
    ADD_FAILURE() << path << " row " << i << ": fast path " << describe(a) << ", libdw " << describe(b);
    reported++;
  }
  EXPECT_EQ(fast.function_starts, libdw.function_starts);
  EXPECT_EQ(fast.stats.libdw_rows, libdw.stats.libdw_rows);
  EXPECT_EQ(fast.stats.empty_fdes, libdw.stats.empty_fdes);
  EXPECT_EQ(fast.stats.overlapping_fdes, libdw.stats.overlapping_fdes);
  EXPECT_EQ(std::memcmp(fast.stats.unsupported, libdw.stats.unsupported, sizeof(fast.stats.unsupported)), 0);
  std::printf("%-60s FDEs %6u, left to libdw %4u; rows %7zu; %6.1f ms against libdw's %6.1f ms\n", path,
              fast.stats.fdes, fast.stats.libdw_fdes, fast.rows.size(), fast.stats.compile_ns / 1e6,
              libdw.stats.compile_ns / 1e6);
  return fast.stats.libdw_fdes;
}

TEST(CfiProgram, HandWrittenFixturesGiveLibdwsRows) {
  // The fixtures hold one FDE per kind of rule, and the kinds the fast path leaves to libdw (CFA
  // expressions, a signal frame, DRAP's rbp expression, a program that runs past its end).
  const uint32_t left = expect_same_rows(JVMKIT_NATIVE_CFI_FIXTURES);
  EXPECT_GE(left, 4u);
}

void expect_system_library(const char* path, uint32_t max_left_to_libdw) {
  if (access(path, R_OK) != 0) GTEST_SKIP() << path << " is not installed";
  EXPECT_LE(expect_same_rows(path), max_left_to_libdw);
}

// Measured (Debian 12, Temurin 25.0.3): libc leaves 6 of 3,713 FDEs to libdw (its PLT, signal
// return, longjmp code), libz 1 of 123 (its PLT), libjvm 17 1 of 43,705 and libjvm 25 5 of 52,857.
TEST(CfiProgram, LibcGivesLibdwsRows) { expect_system_library("/lib/x86_64-linux-gnu/libc.so.6", 20); }
TEST(CfiProgram, LibzGivesLibdwsRows) { expect_system_library("/lib/x86_64-linux-gnu/libz.so.1", 5); }
TEST(CfiProgram, LibstdcxxGivesLibdwsRows) { expect_system_library("/lib/x86_64-linux-gnu/libstdc++.so.6", 20); }
TEST(CfiProgram, LibgccGivesLibdwsRows) { expect_system_library("/lib/x86_64-linux-gnu/libgcc_s.so.1", 20); }
TEST(CfiProgram, DynamicLoaderGivesLibdwsRows) { expect_system_library("/lib64/ld-linux-x86-64.so.2", 20); }
TEST(CfiProgram, Libjvm17GivesLibdwsRows) {
  expect_system_library("/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so", 20);
}
TEST(CfiProgram, Libjvm25GivesLibdwsRows) {
  expect_system_library("/usr/lib/jvm/temurin-25-jdk-amd64/lib/server/libjvm.so", 20);
}

}  // namespace
}  // namespace jvmkit::native
