// Continuous-mode file names: the pattern's fields, and keep= deleting only this run's oldest files.
#include "profiler/outputs/file_pattern.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace jvmkit::prof {
namespace {

// 2026-12-03 22:30:01 UTC, in ns since the epoch.
constexpr int64_t kSample = 1'796'337'001'000'000'000;

TEST(FilePattern, ExpandsPidTimeAndPercent) {
  EXPECT_EQ(expand_file_pattern("/var/tmp/app-%p-%t.pb.gz", 4242, kSample), "/var/tmp/app-4242-20261203-223001.pb.gz");
  EXPECT_EQ(expand_file_pattern("100%%-%x-%", 1, kSample), "100%-%x-%");
  EXPECT_EQ(expand_file_pattern("plain.html", 1, kSample), "plain.html");
  EXPECT_EQ(iso_utc(kSample), "2026-12-03T22:30:01Z");
}

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

TEST(FilePattern, KeepDeletesOnlyTheOldestOfItsOwnFiles) {
  char dir_template[] = "/tmp/jvmkit-file-pattern-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  const std::string stranger = dir + "/w-0.txt";  // matches the pattern, not written by the run
  std::ofstream(stranger) << "x";
  WindowFiles files(2);
  std::vector<std::string> paths;
  for (int i = 1; i <= 4; i++) {
    paths.push_back(dir + "/w-" + std::to_string(i) + ".txt");
    std::ofstream(paths.back()) << i;
    files.written(paths.back());
  }
  files.written(paths.back());  // the same name again is one file
  EXPECT_FALSE(exists(paths[0]));
  EXPECT_FALSE(exists(paths[1]));
  EXPECT_TRUE(exists(paths[2]));
  EXPECT_TRUE(exists(paths[3]));
  EXPECT_TRUE(exists(stranger));
  EXPECT_EQ(files.total_written(), 5);
  ASSERT_EQ(files.kept().size(), 2u);
  EXPECT_EQ(files.kept().front(), paths[2]);
  for (const std::string& p : {paths[2], paths[3], stranger}) unlink(p.c_str());
  rmdir(dir.c_str());
}

TEST(FilePattern, NoBoundKeepsEverything) {
  WindowFiles files(0);
  for (int i = 0; i < 100; i++) files.written("/nonexistent/jvmkit-" + std::to_string(i));
  EXPECT_EQ(files.kept().size(), 100u);
}

}  // namespace
}  // namespace jvmkit::prof
