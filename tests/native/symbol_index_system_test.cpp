// native/symbol_index.hpp on this host's own objects: libc named from libc6-dbg's debug file by
// build-id, libz's .dynsym with static functions that must stay unnamed, the vDSO from memory,
// and libjvm 17's .symtab (with the build figures printed).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <string>

#include "native/symbol_index.hpp"
#include "symbol_test_support.hpp"

namespace jvmkit::native {
namespace {

using testing::build_and_report;
using testing::symbol_named;

LoadedObject libc_object() {
  for (LoadedObject& object : loaded_objects()) {
    if (object.holds_code(reinterpret_cast<uintptr_t>(&getpid))) return std::move(object);
  }
  return {};
}

TEST(SymbolIndexLibc, InternalFunctionsAreNamedFromLibc6DbgByBuildId) {
  const LoadedObject libc = libc_object();
  ASSERT_FALSE(libc.path.empty());
  const std::string debug_file = testing::installed_debug_file(libc);
  if (debug_file.empty()) GTEST_SKIP() << "libc6-dbg's debug file for " << hex(libc.build_id) << " is not installed";
  auto index = build_and_report(libc, SymbolIndexOptions{"/usr/lib/debug"});
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->count(SymbolSource::kDebugFile), index->symbols().size());

  // _int_malloc is static in malloc.c: .dynsym does not have it.
  EXPECT_EQ(testing::dynsym_function_names(libc.path).count("_int_malloc"), 0u);
  const FunctionSymbol* internal = symbol_named(*index, "_int_malloc");
  ASSERT_NE(internal, nullptr);
  EXPECT_EQ(index->find(internal->start + internal->size / 2), internal);
  EXPECT_EQ(internal->symbol_source(), SymbolSource::kDebugFile);

  // libc's own definitions: a sanitizer's runtime interposes malloc, free and pthread_create, so
  // the process's first definitions are not libc's.
  void* handle = dlopen(libc.path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(handle, nullptr) << dlerror();
  const auto malloc_offset = reinterpret_cast<uintptr_t>(dlsym(handle, "malloc")) - libc.bias;
  const FunctionSymbol* exported = index->find(malloc_offset);
  ASSERT_NE(exported, nullptr);
  const std::string name = index->name(*exported);
  EXPECT_TRUE(name == "malloc" || name == "__libc_malloc") << name;

  // The debug file's .symtab spells versions into names ("pthread_create@@GLIBC_2.34",
  // "cfree@GLIBC_2.2.5", an old alias of free): frames show the function's own name.
  for (const char* function : {"free", "pthread_create"}) {
    const FunctionSymbol* symbol = index->find(reinterpret_cast<uintptr_t>(dlsym(handle, function)) - libc.bias);
    ASSERT_NE(symbol, nullptr) << function;
    EXPECT_STREQ(index->name(*symbol), function);
  }
  for (const FunctionSymbol& symbol : index->symbols()) EXPECT_EQ(std::strchr(index->name(symbol), '@'), nullptr);
  dlclose(handle);
}

TEST(SymbolIndexLibc, WithoutTheDebugFileInternalFunctionsAreUnnamed) {
  const LoadedObject libc = libc_object();
  ASSERT_FALSE(libc.path.empty());
  std::string why;
  auto with_debug = SymbolIndex::build(libc, SymbolIndexOptions{"/usr/lib/debug"}, &why);
  const FunctionSymbol* internal = with_debug ? symbol_named(*with_debug, "_int_malloc") : nullptr;
  if (internal == nullptr) GTEST_SKIP() << "libc6-dbg's debug file is not installed";
  auto dynsym_only = build_and_report(libc, SymbolIndexOptions{"/nonexistent-debug-root"});
  ASSERT_NE(dynsym_only, nullptr);
  EXPECT_EQ(dynsym_only->count(SymbolSource::kDynsym), dynsym_only->symbols().size());
  EXPECT_EQ(dynsym_only->find(internal->start + internal->size / 2), nullptr);
}

// libz 1.2.13 keeps .dynsym only; its static functions (longest_match, deflate_stored, ...) lie
// between exported ones. Where libdw's CFI shows code beyond an exported function's end, no name
// may be given: a lookup without the size check would answer the exported function before it.
TEST(SymbolIndexLibz, StaticFunctionsGetNoExportedNeighboursName) {
  const LoadedObject libz = testing::loaded_or_file("/lib/x86_64-linux-gnu/libz.so.1");
  auto index = build_and_report(libz, SymbolIndexOptions{"/nonexistent-debug-root"});
  ASSERT_NE(index, nullptr);
  ASSERT_GT(index->symbols().size(), 50u);
  EXPECT_EQ(index->count(SymbolSource::kDynsym), index->symbols().size());
  testing::FileCfi cfi(libz.path);
  ASSERT_TRUE(cfi.valid());

  size_t static_pcs = 0;
  const auto symbols = index->symbols();
  for (size_t i = 0; i + 1 < symbols.size(); i++) {
    for (uint64_t pc = symbols[i].start + symbols[i].size; pc < symbols[i + 1].start; pc += 4) {
      if (!cfi.row_start(pc).has_value()) continue;  // padding between functions
      static_pcs++;
      const FunctionSymbol* found = index->find(pc);
      EXPECT_EQ(found, nullptr) << "libz.so.1+0x" << std::hex << pc << " named " << index->name(*found) << ", beyond "
                                << index->name(symbols[i]) << "'s end";
      if (static_pcs == 1) {
        std::printf("[ symbols  ] e.g. %s: code after %s's end (0x%llx), unnamed\n",
                    fallback_name(libz.path, pc, std::nullopt).c_str(), index->name(symbols[i]),
                    static_cast<unsigned long long>(symbols[i].start + symbols[i].size));
      }
    }
  }
  std::printf("[ symbols  ] libz: %zu PCs (every 4th byte) in static functions, all unnamed\n", static_pcs);
  EXPECT_GT(static_pcs, 100u) << "libz's static functions were not found between its exported ones";
}

TEST(SymbolIndexVdso, ClockGettimeIsNamedInsideIt) {
  std::optional<LoadedObject> vdso;
  for (LoadedObject& object : loaded_objects()) {
    if (object.is_vdso) vdso = std::move(object);
  }
  if (!vdso) GTEST_SKIP() << "no vDSO in this process";
  auto index = build_and_report(*vdso, SymbolIndexOptions{"/nonexistent-debug-root"});
  ASSERT_NE(index, nullptr);
  const std::optional<uint64_t> start = testing::vdso_symbol_value("__vdso_clock_gettime");
  ASSERT_TRUE(start.has_value()) << "libelf finds no __vdso_clock_gettime in the vDSO image";
  const FunctionSymbol* symbol = index->find(*start + 4);
  ASSERT_NE(symbol, nullptr);
  const std::string name = index->name(*symbol);
  EXPECT_TRUE(name == "__vdso_clock_gettime" || name == "clock_gettime") << name;
  EXPECT_EQ(symbol->start, *start);
  // The vDSO is mapped where the loader says: its text holds the symbol at bias + offset.
  EXPECT_TRUE(vdso->holds_code(vdso->bias + *start + 4));
}

// No debug file anywhere, and a debuginfod server named: libdwfl's standard search would now load
// libdebuginfod and ask the server; jvmkit's never does.
TEST(SymbolIndexLibc, AMissingDebugFileIsNeverAskedOfDebuginfod) {
  setenv("DEBUGINFOD_URLS", "http://127.0.0.1:9", 1);
  std::string why;
  auto index = SymbolIndex::build(libc_object(), SymbolIndexOptions{"/nonexistent-debug-root"}, &why);
  unsetenv("DEBUGINFOD_URLS");
  ASSERT_NE(index, nullptr) << why;
  EXPECT_TRUE(index->debug_file().empty());
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) EXPECT_EQ(line.find("libdebuginfod"), std::string::npos) << line;
}

TEST(SymbolIndexLibjvm, CallHelperIsFoundDemangledAndStripped) {
  if (access(testing::kLibjvm17, R_OK) != 0) GTEST_SKIP() << testing::kLibjvm17 << " is not installed";
  LoadedObject libjvm;
  libjvm.path = testing::kLibjvm17;
  auto index = build_and_report(libjvm, SymbolIndexOptions{"/nonexistent-debug-root"});
  ASSERT_NE(index, nullptr);
  EXPECT_GT(index->symbols().size(), 40000u);
  EXPECT_EQ(index->count(SymbolSource::kSymtab), index->symbols().size());

  const FunctionSymbol* call_helper = nullptr;
  size_t nested = 0;
  const auto symbols = index->symbols();
  for (size_t i = 0; i < symbols.size(); i++) {
    if (i > 0 && symbols[i - 1].start + symbols[i - 1].size > symbols[i].start) nested++;
    if (std::strncmp(index->name(symbols[i]), "_ZN9JavaCalls11call_helper", 26) == 0) call_helper = &symbols[i];
  }
  ASSERT_NE(call_helper, nullptr);
  EXPECT_STREQ(index->function_name(*call_helper), "JavaCalls::call_helper");
  EXPECT_STREQ(index->demangled(*call_helper),
               "JavaCalls::call_helper(JavaValue*, methodHandle const&, JavaCallArguments*, JavaThread*)");
  EXPECT_EQ(index->find(call_helper->start + call_helper->size - 1), call_helper);
  // The pointers stay where they were: the cache hands out the same string again.
  EXPECT_EQ(index->function_name(*call_helper), index->function_name(*call_helper));

  const auto start = std::chrono::steady_clock::now();
  for (const FunctionSymbol& symbol : symbols) index->function_name(symbol);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "[ symbols  ] libjvm.so: %zu functions overlap the one before; demangling and stripping all: %.0f ms, "
      "%zu bytes more\n",
      nested, ms, index->demangled_bytes());
}

}  // namespace
}  // namespace jvmkit::native
