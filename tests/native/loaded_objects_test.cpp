#include "native/loaded_objects.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <sys/auxv.h>
#include <unistd.h>
#include <algorithm>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

namespace jvmkit::native {
namespace {

const LoadedObject* object_holding(const std::vector<LoadedObject>& objects, uintptr_t address) {
  for (const LoadedObject& object : objects) {
    if (object.holds_code(address)) return &object;
  }
  return nullptr;
}

// The build-id binutils' readelf prints for PATH ("Build ID: <hex>"), or "" when none.
std::string readelf_build_id(const std::string& path) {
  const std::string command = "readelf -n '" + path + "' 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return "";
  char line[512];
  while (std::fgets(line, sizeof(line), pipe.get()) != nullptr) {
    const char* at = std::strstr(line, "Build ID: ");
    if (at == nullptr) continue;
    std::string id(at + std::strlen("Build ID: "));
    while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
    return id;
  }
  return "";
}

TEST(LoadedObjects, LibcHoldsItsOwnFunctionsAndCarriesTheFilesBuildId) {
  const auto objects = loaded_objects();
  const LoadedObject* libc = object_holding(objects, reinterpret_cast<uintptr_t>(&getpid));
  ASSERT_NE(libc, nullptr) << "no loaded object holds getpid's code";
  EXPECT_EQ(base_name(libc->path), "libc.so.6");
  EXPECT_FALSE(libc->is_vdso);
  EXPECT_FALSE(libc->is_main_program);
  EXPECT_NE(libc->eh_frame_hdr, 0u) << "libc has a PT_GNU_EH_FRAME";
  ASSERT_FALSE(libc->build_id.empty());
  EXPECT_EQ(hex(libc->build_id), readelf_build_id(libc->path));
}

TEST(LoadedObjects, TheDynamicSectionGivesSonameAndNeeded) {
  const auto objects = loaded_objects();
  const LoadedObject* libc = object_holding(objects, reinterpret_cast<uintptr_t>(&getpid));
  ASSERT_NE(libc, nullptr);
  EXPECT_EQ(libc->soname, "libc.so.6");
  // The program needs libc (the test links it), and libc needs the dynamic loader.
  const std::vector<std::string>& program = objects.front().needed;
  EXPECT_NE(std::find(program.begin(), program.end(), "libc.so.6"), program.end());
  EXPECT_NE(std::find(libc->needed.begin(), libc->needed.end(), "ld-linux-x86-64.so.2"), libc->needed.end());
}

TEST(LoadedObjects, TheProgramComesFirstWithItsPath) {
  const auto objects = loaded_objects();
  ASSERT_FALSE(objects.empty());
  EXPECT_TRUE(objects.front().is_main_program);
  const LoadedObject* self = object_holding(objects, reinterpret_cast<uintptr_t>(&object_holding));
  ASSERT_EQ(self, &objects.front()) << "this test's own code lies in the program";
  EXPECT_EQ(base_name(self->path), "native_tests");
  EXPECT_EQ(hex(self->build_id), readelf_build_id(self->path));
}

TEST(LoadedObjects, TheVdsoIsListedByItsImage) {
  const auto ehdr = static_cast<uintptr_t>(getauxval(AT_SYSINFO_EHDR));
  if (ehdr == 0) GTEST_SKIP() << "this kernel maps no vDSO";
  const auto objects = loaded_objects();
  int vdsos = 0;
  for (const LoadedObject& object : objects) {
    if (!object.is_vdso) continue;
    vdsos++;
    EXPECT_EQ(object.path, "[vdso]");
    ASSERT_FALSE(object.text.empty());
    EXPECT_GE(object.text.front().start, ehdr);
    EXPECT_FALSE(object.build_id.empty()) << "Linux builds its vDSO with a build-id";
  }
  EXPECT_EQ(vdsos, 1);
}

TEST(LoadedObjects, ADlopenIsSeenInTheGenerationAndTheList) {
  const LoadGeneration before = load_generation();
  EXPECT_EQ(load_generation(), before) << "nothing loaded in between";
  void* handle = dlopen(JVMKIT_NATIVE_FIXTURE_EMPTY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  const LoadGeneration loaded = load_generation();
  EXPECT_GT(loaded.adds, before.adds);
  EXPECT_EQ(loaded.subs, before.subs);

  const auto function = reinterpret_cast<uintptr_t>(dlsym(handle, "jvmkit_fixture_empty"));
  ASSERT_NE(function, 0u);
  const auto objects = loaded_objects();
  const LoadedObject* fixture = object_holding(objects, function);
  ASSERT_NE(fixture, nullptr);
  EXPECT_EQ(fixture->path, JVMKIT_NATIVE_FIXTURE_EMPTY);
  EXPECT_EQ(hex(fixture->build_id), readelf_build_id(fixture->path));

  ASSERT_EQ(dlclose(handle), 0);
  const LoadGeneration unloaded = load_generation();
  EXPECT_GT(unloaded.subs, loaded.subs);
  EXPECT_EQ(object_holding(loaded_objects(), function), nullptr) << "the fixture's code is gone after dlclose";
}

TEST(LoadedObjects, HexAndBaseName) {
  EXPECT_EQ(hex({0x00, 0xab, 0x7f}), "00ab7f");
  EXPECT_EQ(hex({}), "");
  EXPECT_EQ(base_name("/lib/x86_64-linux-gnu/libz.so.1"), "libz.so.1");
  EXPECT_EQ(base_name("[vdso]"), "[vdso]");
}

}  // namespace
}  // namespace jvmkit::native
