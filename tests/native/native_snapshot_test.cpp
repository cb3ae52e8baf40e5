// Snapshots of the process's unwind tables: a library appears after a re-preparation and is gone
// after dlclose; unchanged objects are reused; the vDSO is prepared from memory; a file of another
// build leaves its object unprepared; the lookup runs through the cell's signal-safe Reader.
#include "native/native_snapshot.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <cstdio>

namespace jvmkit::native {
namespace {

RowLookup lookup(const NativePreparer& preparer, uintptr_t pc) {
  NativeSnapshotCell::Reader reader(preparer.cell());
  EXPECT_NE(reader.get(), nullptr);
  return reader.get() != nullptr ? reader.get()->lookup(pc) : RowLookup{};
}

const PreparedObject* object_at(const NativePreparer& preparer, uintptr_t pc) {
  const RowLookup found = preparer.current()->lookup(pc);
  return found.module != nullptr ? &preparer.current()->object_of(*found.module) : nullptr;
}

TEST(NativeSnapshot, TheProgramAndLibcHaveRows) {
  NativePreparer preparer;
  const PrepareSummary summary = preparer.update(loaded_objects());
  EXPECT_GT(summary.objects, 2u);
  EXPECT_EQ(summary.prepared + summary.failed, summary.objects);
  for (const uintptr_t pc : {reinterpret_cast<uintptr_t>(&getpid), reinterpret_cast<uintptr_t>(&object_at)}) {
    const RowLookup found = lookup(preparer, pc);
    ASSERT_EQ(found.status, LookupStatus::kFound) << std::hex << pc;
    EXPECT_EQ(found.module->bias + found.row->start <= pc, true);
    EXPECT_TRUE(object_at(preparer, pc)->prepared());
  }
  EXPECT_EQ(base_name(object_at(preparer, reinterpret_cast<uintptr_t>(&getpid))->path), "libc.so.6");
  uint64_t rows = 0;
  for (const auto& object : preparer.current()->objects()) rows += object->rows.size();
  std::printf("[ tables   ] this process: %u objects (%u prepared, %u failed), %llu rows, %.1f KiB, %.1f ms\n",
              summary.objects, summary.prepared, summary.failed, static_cast<unsigned long long>(rows),
              rows * sizeof(UnwindRow) / 1024.0, summary.ns / 1e6);
  for (const auto& object : preparer.current()->objects()) {
    if (!object->prepared())
      std::printf("[ tables   ]   unprepared %s: %s\n", object->path.c_str(), object->detail.c_str());
  }
}

// What an object that stays loaded needs stays loaded too (the JDK's libzip.so keeps the system's
// libz.so.1): its frames need no check that its code is still mapped.
TEST(NativeSnapshot, WhatAnObjectThatStaysNeedsStaysToo) {
  std::vector<LoadedObject> objects(4);
  objects[0].path = "/jdk/lib/libzip.so";
  objects[0].needed = {"libz.so.1", "libjvm.so"};
  objects[1].path = "/usr/lib/x86_64-linux-gnu/libz.so.1.2.13";  // found by its soname
  objects[1].soname = "libz.so.1";
  objects[1].needed = {"libdep.so"};
  objects[2].path = "/opt/app/libdep.so";     // needed by libz: by its file name
  objects[3].path = "/opt/app/libplugin.so";  // dlopened, needed by nothing that stays
  const std::vector<bool> stays = stays_mapped_closure(objects, "/jdk/lib/");
  EXPECT_EQ(stays, (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(stays_mapped_closure(objects, ""), (std::vector<bool>{false, false, false, false}));
  // A second libz.so.1 (an application's own, dlopened): which one the loader bound is unknown, so
  // neither is taken to stay.
  objects.push_back(LoadedObject{});
  objects.back().path = "/opt/app/lib/libz.so.1";
  objects.back().soname = "libz.so.1";
  EXPECT_EQ(stays_mapped_closure(objects, "/jdk/lib/"), (std::vector<bool>{true, false, false, false, false}));
}

TEST(NativeSnapshot, ADlopenedLibraryAppearsAfterAnUpdateAndGoesAfterDlclose) {
  // A library no other test keeps loaded (the CFI fixtures stay loaded for their tests).
  NativePreparer preparer;
  preparer.update(loaded_objects());
  void* handle = dlopen(JVMKIT_NATIVE_FIXTURE_EMPTY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  const auto pc = reinterpret_cast<uintptr_t>(dlsym(handle, "jvmkit_fixture_empty"));
  ASSERT_NE(pc, 0u);
  EXPECT_EQ(lookup(preparer, pc).status, LookupStatus::kNoModule) << "loaded after the last preparation";

  const size_t before = preparer.current()->objects().size();
  const PrepareSummary loaded = preparer.update(loaded_objects());
  EXPECT_EQ(loaded.prepared, 1u);
  EXPECT_EQ(loaded.reused, before);
  EXPECT_EQ(loaded.dropped, 0u);
  const RowLookup found = lookup(preparer, pc);
  ASSERT_EQ(found.status, LookupStatus::kFound);
  EXPECT_EQ(found.row->cfa_kind(), CfaKind::kRsp) << "the function's first instruction: CFA = rsp + 8";
  EXPECT_EQ(found.row->cfa_offset, 8);
  EXPECT_EQ(object_at(preparer, pc)->path, JVMKIT_NATIVE_FIXTURE_EMPTY);
  EXPECT_FALSE(found.module->stays_mapped) << "a dlopened library may be unloaded: its bytes are checked first";
  const RowLookup libc = lookup(preparer, reinterpret_cast<uintptr_t>(&getpid));
  ASSERT_NE(libc.module, nullptr);
  EXPECT_TRUE(libc.module->stays_mapped) << "libc is never unloaded";

  ASSERT_EQ(dlclose(handle), 0);
  const PrepareSummary unloaded = preparer.update(loaded_objects());
  EXPECT_EQ(unloaded.dropped, 1u);
  EXPECT_EQ(unloaded.prepared + unloaded.failed, 0u);
  EXPECT_EQ(lookup(preparer, pc).status, LookupStatus::kNoModule);
  preparer.reclaim();
  EXPECT_EQ(preparer.reclaim(), 0u) << "no reader holds a retired snapshot";
}

TEST(NativeSnapshot, UnchangedObjectsKeepTheirRows) {
  NativePreparer preparer;
  preparer.update(loaded_objects());
  const RowLookup first = preparer.current()->lookup(reinterpret_cast<uintptr_t>(&getpid));
  const PrepareSummary again = preparer.update(loaded_objects());
  EXPECT_EQ(again.reused, again.objects);
  EXPECT_EQ(again.prepared + again.failed + again.dropped, 0u);
  EXPECT_EQ(preparer.current()->lookup(reinterpret_cast<uintptr_t>(&getpid)).row, first.row) << "the same rows";
}

TEST(NativeSnapshot, AVdsoFunctionFindsARow) {
  void* vdso = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (vdso == nullptr || getauxval(AT_SYSINFO_EHDR) == 0) GTEST_SKIP() << "this kernel maps no vDSO";
  const auto pc = reinterpret_cast<uintptr_t>(dlsym(vdso, "__vdso_clock_gettime"));
  dlclose(vdso);
  ASSERT_NE(pc, 0u);
  EXPECT_FALSE(vdso_image().empty());
  NativePreparer preparer;
  preparer.update(loaded_objects());
  const RowLookup found = lookup(preparer, pc);
  ASSERT_EQ(found.status, LookupStatus::kFound);
  const PreparedObject& object = preparer.current()->object_of(*found.module);
  EXPECT_TRUE(object.is_vdso);
  EXPECT_TRUE(object.prepared()) << object.detail;
  EXPECT_GT(object.stats.fdes, 0u);
}

TEST(NativeSnapshot, AFileOfAnotherBuildLeavesItsObjectUnprepared) {
  void* handle = dlopen(JVMKIT_NATIVE_CFI_FIXTURES, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  const auto pc = reinterpret_cast<uintptr_t>(dlsym(handle, "jvmkit_cfi_rbp_body"));
  std::vector<LoadedObject> objects = loaded_objects();
  bool claimed = false;
  for (LoadedObject& object : objects) {
    if (object.path != JVMKIT_NATIVE_CFI_FIXTURES) continue;
    object.build_id.at(0) ^= 0xff;  // as if the file on disk had been replaced since the load
    claimed = true;
  }
  ASSERT_TRUE(claimed);
  NativePreparer preparer;
  const PrepareSummary summary = preparer.update(objects);
  EXPECT_GE(summary.failed, 1u);
  const RowLookup found = lookup(preparer, pc);
  EXPECT_EQ(found.status, LookupStatus::kUnprepared);
  ASSERT_NE(found.module, nullptr);
  EXPECT_EQ(preparer.current()->object_of(*found.module).error, CfiError::kBuildIdMismatch);
  dlclose(handle);
}

}  // namespace
}  // namespace jvmkit::native
