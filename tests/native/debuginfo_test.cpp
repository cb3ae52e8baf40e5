// native/debuginfo.hpp: the debug-file search path and the .gnu_debuglink candidates, and the
// build-id check every debug file passes.
#include "native/debuginfo.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "native/elfutils_handles.hpp"
#include "native/loaded_objects.hpp"
#include "symbol_test_support.hpp"

namespace jvmkit::native {
namespace {

// Sets an environment variable for one test and restores it.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const char* value) : name_(name) {
    const char* old = getenv(name);
    if (old != nullptr) old_ = old;
    had_ = old != nullptr;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnvironment() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(Debuginfo, PathComesFromTheEnvironmentElseTheDistributionsDefault) {
  {
    ScopedEnvironment unset("JVMKIT_DEBUGINFO_PATH", nullptr);
    EXPECT_EQ(debuginfo_path_from_environment(), ":.debug:/usr/lib/debug");
  }
  {
    ScopedEnvironment empty("JVMKIT_DEBUGINFO_PATH", "");
    EXPECT_EQ(debuginfo_path_from_environment(), ":.debug:/usr/lib/debug");
  }
  ScopedEnvironment set("JVMKIT_DEBUGINFO_PATH", "/tmp/debug-root");
  EXPECT_EQ(debuginfo_path_from_environment(), "/tmp/debug-root");
}

TEST(Debuginfo, DebuglinkCandidatesFollowLibdwflsPathNotation) {
  const std::vector<std::string> candidates =
      debuglink_candidates("/nonexistent/x/libfoo.so", "libfoo.debug", ":.debug:/usr/lib/debug");
  const std::vector<std::string> expected = {"/nonexistent/x/libfoo.debug", "/nonexistent/x/.debug/libfoo.debug",
                                             "/usr/lib/debug/nonexistent/x/libfoo.debug"};
  EXPECT_EQ(candidates, expected);
}

TEST(Debuginfo, DebuglinkCandidatesTryTheRealDirectoryBehindASymbolicLink) {
  // Debian 12's /lib is a link to usr/lib: debug files are filed under either.
  const std::vector<std::string> candidates =
      debuglink_candidates("/lib/x86_64-linux-gnu/libc.so.6", "libc.debug", "/usr/lib/debug");
  ASSERT_FALSE(candidates.empty());
  EXPECT_EQ(candidates.front(), "/usr/lib/debug/lib/x86_64-linux-gnu/libc.debug");
  std::string real_directory(PATH_MAX, '\0');
  ASSERT_NE(realpath("/lib/x86_64-linux-gnu", real_directory.data()), nullptr);
  real_directory.resize(std::strlen(real_directory.c_str()));
  if (real_directory != "/lib/x86_64-linux-gnu") {
    ASSERT_EQ(candidates.size(), 2u);
    EXPECT_EQ(candidates.back(), "/usr/lib/debug" + real_directory + "/libc.debug");
  }
}

TEST(Debuginfo, TheObjectItselfIsNeverItsOwnDebugFile) {
  // A .gnu_debuglink naming the object's own file must not make it its own debug file.
  const std::vector<std::string> candidates =
      debuglink_candidates(JVMKIT_NATIVE_CHAIN_NOFP, base_name(JVMKIT_NATIVE_CHAIN_NOFP), ":.debug");
  for (const std::string& candidate : candidates) EXPECT_NE(candidate, JVMKIT_NATIVE_CHAIN_NOFP);
  EXPECT_EQ(candidates.size(), 1u) << "only <dir>/.debug/<name> is another file";
}

TEST(Debuginfo, BuildIdsMustBeEqualAndPresent) {
  const auto libc = testing::loaded_object_named("libc.so.6");
  ASSERT_TRUE(libc.has_value());
  ASSERT_FALSE(libc->build_id.empty());
  init_libelf();
  FileDescriptor fd(open(libc->path.c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(fd.valid());
  ElfHandle elf(elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr));
  ASSERT_NE(elf, nullptr);
  EXPECT_TRUE(has_build_id(elf.get(), libc->build_id));
  std::vector<uint8_t> other = libc->build_id;
  other.back() ^= 1;
  EXPECT_FALSE(has_build_id(elf.get(), other));
  EXPECT_FALSE(has_build_id(elf.get(), {}));
  EXPECT_FALSE(has_build_id(nullptr, libc->build_id));
}

}  // namespace
}  // namespace jvmkit::native
