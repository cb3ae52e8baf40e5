// hotspot/elf_symbols.hpp on this test program itself: its symbol table is read from its file.
#include "hotspot/elf_symbols.hpp"

#include <gtest/gtest.h>

// Data symbols of the program, named in its .symtab (extern "C": unmangled).
extern "C" {
[[gnu::used]] volatile long jvmkit_elf_test_marker = 42;
[[gnu::used]] volatile long jvmkit_elf_test_array[64];
}

namespace {

using jvmkit::elf::find_data_symbol;
using jvmkit::elf::object_containing;

TEST(ElfSymbols, FindsTheObjectHoldingAnAddress) {
  auto object = object_containing(const_cast<const long*>(&jvmkit_elf_test_marker));
  ASSERT_TRUE(object.has_value());
  EXPECT_TRUE(object->contains(reinterpret_cast<uintptr_t>(&jvmkit_elf_test_marker), sizeof(long)));
  EXPECT_FALSE(object->path.empty());
}

TEST(ElfSymbols, NoObjectHoldsAddressZero) { EXPECT_FALSE(object_containing(nullptr).has_value()); }

TEST(ElfSymbols, FindsLocalDataSymbolsAtTheirRunTimeAddress) {
  auto object = object_containing(const_cast<const long*>(&jvmkit_elf_test_marker));
  ASSERT_TRUE(object.has_value());
  std::string why;
  auto marker = find_data_symbol(*object, "jvmkit_elf_test_marker", &why);
  ASSERT_TRUE(marker.has_value()) << why;
  EXPECT_EQ(*marker, reinterpret_cast<uintptr_t>(&jvmkit_elf_test_marker));
  auto array = find_data_symbol(*object, "jvmkit_elf_test_array", &why);
  ASSERT_TRUE(array.has_value()) << why;
  EXPECT_EQ(*array, reinterpret_cast<uintptr_t>(&jvmkit_elf_test_array[0]));
}

TEST(ElfSymbols, NamesMustMatchWholly) {
  auto object = object_containing(const_cast<const long*>(&jvmkit_elf_test_marker));
  ASSERT_TRUE(object.has_value());
  std::string why;
  EXPECT_FALSE(find_data_symbol(*object, "jvmkit_elf_test_marke", &why).has_value());
  EXPECT_NE(why.find("no symbol table entry"), std::string::npos) << why;
  EXPECT_FALSE(find_data_symbol(*object, "jvmkit_elf_test_marker_", &why).has_value());
}

TEST(ElfSymbols, FunctionsAreNotData) {
  auto object = object_containing(const_cast<const long*>(&jvmkit_elf_test_marker));
  ASSERT_TRUE(object.has_value());
  std::string why;
  EXPECT_FALSE(find_data_symbol(*object, "main", &why).has_value());
}

TEST(ElfSymbols, SeveralNamesAtOnceEachAtItsPlace) {
  auto object = object_containing(const_cast<const long*>(&jvmkit_elf_test_marker));
  ASSERT_TRUE(object.has_value());
  std::string why;
  const char* const names[] = {"jvmkit_elf_test_array", "jvmkit_elf_test_no_such_thing", "jvmkit_elf_test_marker"};
  const auto found = jvmkit::elf::find_data_symbols(*object, names, &why);
  ASSERT_EQ(found.size(), 3u);
  ASSERT_TRUE(found[0].has_value());
  EXPECT_EQ(*found[0], reinterpret_cast<uintptr_t>(&jvmkit_elf_test_array[0]));
  EXPECT_FALSE(found[1].has_value());
  EXPECT_NE(why.find("jvmkit_elf_test_no_such_thing"), std::string::npos) << why;
  ASSERT_TRUE(found[2].has_value());
  EXPECT_EQ(*found[2], reinterpret_cast<uintptr_t>(&jvmkit_elf_test_marker));
  // Remembered: the same answers again, a missing name still missing.
  const auto again = jvmkit::elf::find_data_symbols(*object, names, &why);
  EXPECT_EQ(again, found);
}

TEST(ElfSymbols, UnreadableFileIsReported) {
  jvmkit::elf::LoadedObject missing;
  missing.path = "/nonexistent/libjvm.so";
  std::string why;
  EXPECT_FALSE(find_data_symbol(missing, "main_vm", &why).has_value());
  EXPECT_NE(why.find("cannot read"), std::string::npos) << why;
}

}  // namespace
