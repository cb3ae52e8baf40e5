// The ticket rules of ThreadRegistry (src/stack_walk/thread_registry.hpp): which Thread a request
// resolves to when JNIEnv addresses are reused, and when references are released. JNI is faked:
// NewGlobalRef returns its argument and both calls are counted.
#include "stack_walk/thread_registry.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace jvmkit::walk {
namespace {

int g_new_refs = 0;
int g_deleted_refs = 0;

jobject JNICALL fake_new_global_ref(JNIEnv*, jobject obj) {
  g_new_refs++;
  return obj;
}
void JNICALL fake_delete_global_ref(JNIEnv*, jobject) { g_deleted_refs++; }

class ThreadRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::memset(&table_, 0, sizeof(table_));
    table_.NewGlobalRef = fake_new_global_ref;
    table_.DeleteGlobalRef = fake_delete_global_ref;
    env_.functions = &table_;
    g_new_refs = g_deleted_refs = 0;
    registry_.open();
  }
  JNIEnv* jni() { return &env_; }
  static JNIEnv* key(uintptr_t k) { return reinterpret_cast<JNIEnv*>(k); }
  static jthread thread(uintptr_t t) { return reinterpret_cast<jthread>(t); }

  JNINativeInterface_ table_;
  JNIEnv env_;
  ThreadRegistry registry_;
};

TEST_F(ThreadRegistryTest, ResolvesRequestsMadeAfterRegistration) {
  registry_.add(jni(), key(0x100), thread(0xA), 5, true);
  EXPECT_EQ(registry_.find(key(0x100), 5), thread(0xA));
  EXPECT_EQ(registry_.find(key(0x100), 1000), thread(0xA));
  EXPECT_EQ(registry_.find(key(0x100), 4), nullptr);
  EXPECT_EQ(registry_.find(key(0x200), 5), nullptr);
}

TEST_F(ThreadRegistryTest, ReusedJNIEnvResolvesEachRequestToTheThreadThatMadeIt) {
  registry_.add(jni(), key(0x100), thread(0xA), 0, true);
  registry_.end(key(0x100), 10);                            // A ends; its requests have tickets < 10
  registry_.add(jni(), key(0x100), thread(0xB), 12, true);  // B gets A's JNIEnv address
  EXPECT_EQ(registry_.find(key(0x100), 9), thread(0xA));
  EXPECT_EQ(registry_.find(key(0x100), 11), nullptr);  // before B's ThreadStart: unknown
  EXPECT_EQ(registry_.find(key(0x100), 12), thread(0xB));
}

TEST_F(ThreadRegistryTest, RootedMarkBelongsToOneThreadNotToItsReusedJNIEnv) {
  registry_.add(jni(), key(0x100), thread(0xA), 0, true);
  bool rooted = true;
  EXPECT_EQ(registry_.find(key(0x100), 3, &rooted), thread(0xA));
  EXPECT_FALSE(rooted);
  registry_.mark_rooted(key(0x100), 3);
  EXPECT_EQ(registry_.find(key(0x100), 4, &rooted), thread(0xA));
  EXPECT_TRUE(rooted);
  registry_.end(key(0x100), 10);
  registry_.add(jni(), key(0x100), thread(0xB), 12, true);  // B gets A's JNIEnv address
  EXPECT_EQ(registry_.find(key(0x100), 12, &rooted), thread(0xB));
  EXPECT_FALSE(rooted);
  EXPECT_EQ(registry_.find(key(0x100), 9, &rooted), thread(0xA));
  EXPECT_TRUE(rooted);
}

TEST_F(ThreadRegistryTest, ScanDoesNotOverrideButThreadStartReplaces) {
  registry_.add(jni(), key(0x100), thread(0xA), 0, false);  // from a scan
  registry_.add(jni(), key(0x100), thread(0xC), 0, false);  // a second scan: A stays
  EXPECT_EQ(registry_.find(key(0x100), 3), thread(0xA));
  EXPECT_EQ(g_new_refs, 1);
  // A rescan registered A during its ThreadEnd, so the entry stayed open; B's ThreadStart ends it.
  registry_.add(jni(), key(0x100), thread(0xB), 20, true);
  EXPECT_EQ(registry_.find(key(0x100), 19), thread(0xA));
  EXPECT_EQ(registry_.find(key(0x100), 20), thread(0xB));
}

TEST_F(ThreadRegistryTest, PurgeReleasesEndedThreadsOnceTheirRequestsAreTaken) {
  registry_.add(jni(), key(0x100), thread(0xA), 0, true);
  registry_.add(jni(), key(0x200), thread(0xB), 0, true);
  registry_.end(key(0x100), 10);
  registry_.purge(jni(), 9);  // ticket 9 not yet taken: A may still be needed
  EXPECT_EQ(g_deleted_refs, 0);
  EXPECT_EQ(registry_.find(key(0x100), 9), thread(0xA));
  registry_.purge(jni(), 10);
  EXPECT_EQ(g_deleted_refs, 1);
  EXPECT_EQ(registry_.find(key(0x100), 9), nullptr);
  EXPECT_EQ(registry_.find(key(0x200), 50), thread(0xB));  // live threads are kept
}

TEST_F(ThreadRegistryTest, CloseReleasesEverythingAndRefusesNewEntries) {
  registry_.add(jni(), key(0x100), thread(0xA), 0, true);
  registry_.add(jni(), key(0x200), thread(0xB), 0, true);
  registry_.end(key(0x200), 3);
  registry_.close(jni());
  EXPECT_EQ(g_deleted_refs, 2);
  EXPECT_EQ(registry_.find(key(0x100), 1), nullptr);
  registry_.add(jni(), key(0x300), thread(0xC), 0, true);  // a callback racing with Disable
  EXPECT_EQ(registry_.find(key(0x300), 1), nullptr);
  EXPECT_EQ(g_new_refs, 2);
}

}  // namespace
}  // namespace jvmkit::walk
