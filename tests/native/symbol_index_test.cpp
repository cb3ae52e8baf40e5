// native/symbol_index.hpp on libchain_nofp.so, a stripped library whose static functions are named
// only in a separate debug file (tests/native/split_debug.cmake): found by build-id, found by
// .gnu_debuglink, refused when it belongs to another build, absent.
#include "native/symbol_index.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "symbol_test_support.hpp"

namespace jvmkit::native {
namespace {

const std::string kRoots = JVMKIT_NATIVE_CHAIN_DEBUG_ROOTS;

// libchain_nofp.so loaded, and its static functions' library offsets.
class ChainLibrary : public ::testing::Test {
 protected:
  void SetUp() override {
    handle_ = dlopen(JVMKIT_NATIVE_CHAIN_NOFP, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle_, nullptr) << dlerror();
    for (LoadedObject& object : loaded_objects()) {
      if (object.path == JVMKIT_NATIVE_CHAIN_NOFP) object_ = std::move(object);
    }
    ASSERT_FALSE(object_.path.empty()) << "the loader does not list " << JVMKIT_NATIVE_CHAIN_NOFP;
    using Addresses = void (*)(void**, void**, void**);
    auto addresses = reinterpret_cast<Addresses>(dlsym(handle_, "chain_static_functions"));
    ASSERT_NE(addresses, nullptr);
    void* functions[3];
    addresses(&functions[0], &functions[1], &functions[2]);
    for (int i = 0; i < 3; i++) statics_[i] = reinterpret_cast<uintptr_t>(functions[i]) - object_.bias;
    run_ = reinterpret_cast<uintptr_t>(dlsym(handle_, "chain_run")) - object_.bias;
  }
  void TearDown() override {
    if (handle_ != nullptr) dlclose(handle_);
  }

  std::unique_ptr<SymbolIndex> build(const std::string& debuginfo_path) {
    std::string why;
    auto index = SymbolIndex::build(object_, SymbolIndexOptions{debuginfo_path}, &why);
    EXPECT_NE(index, nullptr) << why;
    return index;
  }

  // The name at a PC inside each static function (one byte past its start), or "" when none.
  std::string name_inside(const SymbolIndex& index, int which) {
    const FunctionSymbol* symbol = index.find(statics_[which] + 1);
    return symbol != nullptr ? index.name(*symbol) : "";
  }

  void expect_statics_named(const SymbolIndex& index) {
    const char* names[3] = {"chain_a", "chain_b", "chain_c"};
    for (int i = 0; i < 3; i++) {
      const FunctionSymbol* symbol = index.find(statics_[i] + 1);
      ASSERT_NE(symbol, nullptr) << names[i];
      EXPECT_STREQ(index.name(*symbol), names[i]);
      EXPECT_EQ(symbol->start, statics_[i]);
      EXPECT_EQ(symbol->symbol_source(), SymbolSource::kDebugFile);
    }
    EXPECT_EQ(index.count(SymbolSource::kDebugFile), index.symbols().size());
  }

  void expect_only_exported_named(const SymbolIndex& index) {
    EXPECT_TRUE(index.debug_file().empty()) << index.debug_file();
    for (int i = 0; i < 3; i++) EXPECT_EQ(name_inside(index, i), "") << "static function " << i;
    const FunctionSymbol* run = index.find(run_);
    ASSERT_NE(run, nullptr);
    EXPECT_STREQ(index.name(*run), "chain_run");
    EXPECT_EQ(run->symbol_source(), SymbolSource::kDynsym);
    EXPECT_EQ(index.count(SymbolSource::kDynsym), index.symbols().size());
  }

  void* handle_ = nullptr;
  LoadedObject object_;
  uint64_t statics_[3] = {};
  uint64_t run_ = 0;
};

TEST_F(ChainLibrary, StaticFunctionsAreNamedFromTheDebugFileFoundByBuildId) {
  auto index = build(kRoots + "/by_id");
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->debug_file().rfind(kRoots + "/by_id/.build-id/", 0), 0u) << index->debug_file();
  expect_statics_named(*index);
}

TEST_F(ChainLibrary, StaticFunctionsAreNamedFromTheDebugFileFoundByDebuglink) {
  auto index = build(kRoots + "/by_link");
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->debug_file(),
            kRoots + "/by_link" + object_.path.substr(0, object_.path.rfind('/')) + "/libchain_nofp.debug");
  expect_statics_named(*index);
}

TEST_F(ChainLibrary, TheEnvironmentNamesTheDebugRoot) {
  setenv("JVMKIT_DEBUGINFO_PATH", (kRoots + "/by_id").c_str(), 1);
  auto index = build("");
  unsetenv("JVMKIT_DEBUGINFO_PATH");
  ASSERT_NE(index, nullptr);
  expect_statics_named(*index);
}

TEST_F(ChainLibrary, ADebugFileOfAnotherBuildIsNeverUsed) {
  auto index = build(kRoots + "/mismatched");
  ASSERT_NE(index, nullptr);
  expect_only_exported_named(*index);
}

TEST_F(ChainLibrary, WithoutTheDebugRootOnlyExportedFunctionsAreNamed) {
  auto index = build("/nonexistent-debug-root");
  ASSERT_NE(index, nullptr);
  expect_only_exported_named(*index);
  // The caller names the PC by the start of its FDE, which is the function's start.
  testing::FileCfi cfi(object_.path);
  ASSERT_TRUE(cfi.valid());
  EXPECT_EQ(cfi.row_start(statics_[2]), statics_[2]);
  char expected[64];
  std::snprintf(expected, sizeof(expected), "libchain_nofp.so+0x%llx", static_cast<unsigned long long>(statics_[2]));
  EXPECT_EQ(fallback_name(object_.path, statics_[2] + 5, cfi.row_start(statics_[2])), expected);
}

TEST_F(ChainLibrary, AFileThatIsNotTheLoadedImageIsRefused) {
  LoadedObject replaced = object_;
  replaced.build_id.back() ^= 1;  // as if the file had been replaced on disk since it was loaded
  std::string why;
  EXPECT_EQ(SymbolIndex::build(replaced, SymbolIndexOptions{kRoots + "/by_id"}, &why), nullptr);
  EXPECT_NE(why.find("build-id"), std::string::npos) << why;
}

TEST(SymbolIndex, AMissingFileIsReported) {
  LoadedObject missing;
  missing.path = "/nonexistent/libfoo.so";
  std::string why;
  EXPECT_EQ(SymbolIndex::build(missing, SymbolIndexOptions{}, &why), nullptr);
  EXPECT_NE(why.find("/nonexistent/libfoo.so"), std::string::npos) << why;
}

TEST(SymbolIndex, FallbackNamesTheFunctionStartWhenKnownElseThePc) {
  EXPECT_EQ(fallback_name("/lib/x86_64-linux-gnu/libz.so.1", 0x4a17, 0x4a10), "libz.so.1+0x4a10");
  EXPECT_EQ(fallback_name("/lib/x86_64-linux-gnu/libz.so.1", 0x4a17, std::nullopt), "libz.so.1+0x4a17");
  EXPECT_EQ(fallback_name("[vdso]", 0x10, std::nullopt), "[vdso]+0x10");
}

}  // namespace
}  // namespace jvmkit::native
