// KernelSymbols: /proc/kallsyms text to the function holding a kernel PC.
#include "native/kernel_symbols.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace jvmkit::native {
namespace {

constexpr const char* kSample =
    "ffffffff81000000 T _stext\n"
    "ffffffff81001000 T do_syscall_64\n"
    "ffffffff81001000 t do_syscall_64_alias\n"
    "ffffffff81001200 t ksys_read\n"
    "ffffffff81002000 D some_data\n"
    "ffffffff81003000 W weak_function\n"
    "ffffffff81004000 T _etext\n"
    "ffffffffc0a01000 t module_function\t[ext4]\n"
    "ffffffffc0a01800 b module_bss\t[ext4]\n"
    "not a symbol line\n";

TEST(KernelSymbols, APcBelongsToTheTextSymbolAtOrBelowIt) {
  const KernelSymbols symbols = KernelSymbols::parse(kSample);
  EXPECT_FALSE(symbols.hidden());
  uint64_t offset = 0;
  ASSERT_NE(symbols.find(0xffffffff81001010, &offset), nullptr);
  EXPECT_STREQ(symbols.find(0xffffffff81001010, &offset), "do_syscall_64");  // the first name at an address
  EXPECT_EQ(offset, 0x10u);
  EXPECT_STREQ(symbols.find(0xffffffff81001200, &offset), "ksys_read");
  EXPECT_EQ(offset, 0u);
  EXPECT_STREQ(symbols.find(0xffffffff81003004, &offset), "weak_function");
  EXPECT_STREQ(symbols.find(0xffffffffc0a01004, &offset), "module_function");  // the module's name left out
}

TEST(KernelSymbols, DataPastTheTextAndAddressesOutsideNameNothing) {
  const KernelSymbols symbols = KernelSymbols::parse(kSample);
  uint64_t offset = 0;
  EXPECT_EQ(symbols.find(0xffffffff81002010, &offset), nullptr);  // in some_data
  EXPECT_EQ(symbols.find(0xffffffff80000000, &offset), nullptr);  // below the first symbol
  EXPECT_EQ(symbols.find(0xffffffffc0a01900, &offset), nullptr);  // past the last one
}

TEST(KernelSymbols, AddressesHiddenByKptrRestrictAreSaidSo) {
  const KernelSymbols symbols = KernelSymbols::parse("0000000000000000 T _stext\n0000000000000000 T do_syscall_64\n");
  EXPECT_TRUE(symbols.hidden());
  EXPECT_EQ(symbols.size(), 0u);
  uint64_t offset = 0;
  EXPECT_EQ(symbols.find(0xffffffff81001010, &offset), nullptr);
}

TEST(KernelSymbols, ModulesOutOfOrderAreSortedAndTheFirstNameOfAnAddressKept) {
  // Modules are listed after the core kernel, each in its own order; an alias follows its symbol.
  const KernelSymbols symbols = KernelSymbols::parse(
      "ffffffff81000000 T _stext\n"
      "ffffffff81004000 T _etext\n"
      "ffffffffc0b02000 t second_function\t[xfs]\n"
      "ffffffffc0b02000 t second_alias\t[xfs]\n"
      "ffffffffc0b03000 t second_end\t[xfs]\n"
      "ffffffffc0a01000 t first_function\t[ext4]\n"
      "ffffffffc0a01800 b first_bss\t[ext4]\n");
  uint64_t offset = 0;
  EXPECT_STREQ(symbols.find(0xffffffffc0a01010, &offset), "first_function");
  EXPECT_STREQ(symbols.find(0xffffffffc0b02010, &offset), "second_function");
  EXPECT_EQ(offset, 0x10u);
  EXPECT_EQ(symbols.size(), 6u);
}

TEST(KernelSymbols, AFileIsReadInChunksAcrossLines) {
  // More than one read's worth (512 KiB), the last line without its newline.
  const std::string path = ::testing::TempDir() + "kallsyms_chunks";
  {
    std::ofstream out(path);
    for (int i = 0; i < 40000; i++) {
      out << std::hex << 0xffffffff81000000 + 16 * i << " T function_number_" << std::dec << i << "\n";
    }
    out << "ffffffff82000000 T _etext";
  }
  const KernelSymbols symbols = KernelSymbols::load(path);
  EXPECT_TRUE(symbols.error().empty());
  EXPECT_EQ(symbols.size(), 40001u);
  uint64_t offset = 0;
  EXPECT_STREQ(symbols.find(0xffffffff81000000 + 16 * 33333 + 4, &offset), "function_number_33333");
  EXPECT_EQ(offset, 4u);
  EXPECT_STREQ(symbols.find(0xffffffff81000000 + 16 * 39999 + 8, &offset), "function_number_39999");
  std::remove(path.c_str());
}

TEST(KernelSymbols, AnUnreadableFileIsAnError) {
  const KernelSymbols symbols = KernelSymbols::load("/nonexistent/kallsyms");
  EXPECT_FALSE(symbols.error().empty());
  EXPECT_EQ(symbols.size(), 0u);
}

TEST(KernelSymbols, ThisMachinesTableNamesItsSyscallEntry) {
  const KernelSymbols symbols = KernelSymbols::load();
  if (symbols.hidden()) GTEST_SKIP() << "/proc/kallsyms hides its addresses here";
  ASSERT_GT(symbols.size(), 1000u) << symbols.error();
  std::ifstream in("/proc/kallsyms");
  std::string line;
  uint64_t address = 0;
  while (std::getline(in, line)) {
    if (line.ends_with(" T do_syscall_64")) address = std::stoull(line.substr(0, 16), nullptr, 16);
  }
  ASSERT_NE(address, 0u);
  uint64_t offset = 0;
  EXPECT_STREQ(symbols.find(address + 1, &offset), "do_syscall_64");
  EXPECT_EQ(offset, 1u);
}

}  // namespace
}  // namespace jvmkit::native
