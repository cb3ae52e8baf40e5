// Output files checked at a run's start (output_check.hpp) and the fallback file that keeps a
// profile whose file could not be written at the end (output_fallback.hpp), on real folders.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>

#include "profiler/outputs/output_check.hpp"
#include "profiler/outputs/output_fallback.hpp"
#include "tests/support/temp_folder.hpp"

namespace jvmkit::prof {
namespace {

// 2026-12-03 22:30:01 UTC, in ns since the epoch.
constexpr int64_t kSample = 1'796'337'001'000'000'000;

// A fresh folder, removed with what it holds.
struct Folder : jvmkit::testing::TempFolder {
  Folder() : TempFolder("output-check") {}
};

Options parsed(const std::string& text) {
  Options o;
  EXPECT_FALSE(parse_options(text.c_str(), 4242, &o)) << text;
  return o;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(OutputCheck, DirectoryOfAPath) {
  EXPECT_EQ(directory_of("/a/b/p.html"), "/a/b");
  EXPECT_EQ(directory_of("/p.html"), "/");
  EXPECT_EQ(directory_of("//p.html"), "/");
  EXPECT_EQ(directory_of("/a//p.html"), "/a");
  EXPECT_EQ(directory_of("p.html"), ".");
  EXPECT_EQ(directory_of("out/p.html"), "out");
}

TEST(OutputCheck, FilesOfARun) {
  EXPECT_EQ(output_files(parsed("file=/x/p.html,event=cpu,alloc"), 4242, kSample),
            std::vector<std::string>{"/x/p.html"});
  EXPECT_EQ(
      output_files(parsed("file=/x/%p/w-%t.collapsed,event=cpu,alloc,lock"), 4242, kSample),
      (std::vector<std::string>{"/x/4242/w-20261203-223001.cpu.collapsed", "/x/4242/w-20261203-223001.alloc.collapsed",
                                "/x/4242/w-20261203-223001.lock.collapsed"}));
  EXPECT_EQ(output_files(parsed("event=cpu"), 4242, kSample), std::vector<std::string>{"jvmkit-profile-4242.html"});
}

TEST(OutputCheck, WritableFolderLeavesNothingBehind) {
  Folder f;
  std::ofstream(f.path() + "/old.collapsed") << "kept";
  EXPECT_FALSE(check_writable(f.path() + "/new.html"));
  EXPECT_FALSE(check_writable(f.path() + "/old.collapsed"));
  EXPECT_EQ(f.names(), std::set<std::string>{"old.collapsed"});  // no probe, no empty output file
  EXPECT_EQ(read(f.path() + "/old.collapsed"), "kept");
}

TEST(OutputCheck, SaysWhyAFileCannotBeWritten) {
  Folder f;
  std::ofstream(f.path() + "/plain") << "x";
  mkdir((f.path() + "/dir.html").c_str(), 0755);
  EXPECT_EQ(check_writable(f.path() + "/gone/p.html").message(), "directory " + f.path() + "/gone does not exist");
  EXPECT_EQ(check_writable(f.path() + "/plain/p.html").message(), f.path() + "/plain is not a directory");
  EXPECT_EQ(check_writable(f.path() + "/dir.html").message(), f.path() + "/dir.html is a directory");
  EXPECT_EQ(check_writable(f.path() + "/a/b/p.html").message(), "directory " + f.path() + "/a/b does not exist");
}

TEST(OutputCheck, ReadOnlyFolderWhenNotRoot) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes whatever the permission bits say";
  Folder f;
  const std::string locked = f.path() + "/locked";
  mkdir(locked.c_str(), 0555);
  EXPECT_EQ(check_writable(locked + "/p.html").message(),
            "directory " + locked + " is not writable (Permission denied)");
  chmod(locked.c_str(), 0755);
}

TEST(OutputCheck, EveryEventFileAndTheOptionNamed) {
  Folder f;
  const Options several = parsed("file=" + f.path() + "/m.collapsed,event=cpu,alloc");
  EXPECT_FALSE(check_output("file=" + several.file, several, 4242, kSample));
  mkdir((f.path() + "/m.alloc.collapsed").c_str(), 0755);
  EXPECT_EQ(check_output("file=" + several.file, several, 4242, kSample).message(),
            "file=" + several.file + ": " + f.path() + "/m.alloc.collapsed is a directory");
  const Options missing = parsed("file=/nonexistent/jvmkit-dir/%p.html");
  EXPECT_EQ(check_output("file=" + missing.file, missing, 4242, kSample).message(),
            "file=/nonexistent/jvmkit-dir/%p.html: directory /nonexistent/jvmkit-dir does not exist");
}

// --- the fallback ---

Profile one_sample() {
  Profile p;
  const uint32_t m = p.add_method("app.Main.hot", "Main.java");
  p.add_sample({{m, FrameType::kJit, 1}});
  return p;
}

TEST(OutputFallback, DirectoryFromTheJvmThenTheEnvironment) {
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old != nullptr ? old : "";
  EXPECT_EQ(fallback_directory("/jvm/tmp"), "/jvm/tmp");
  setenv("TMPDIR", "/env/tmp", 1);
  EXPECT_EQ(fallback_directory(""), "/env/tmp");
  unsetenv("TMPDIR");
  EXPECT_EQ(fallback_directory(""), "/tmp");
  if (old != nullptr) setenv("TMPDIR", saved.c_str(), 1);
}

TEST(OutputFallback, AFileThatCannotBeWrittenGoesToTheFallback) {
  Folder f;
  const Profile profile = one_sample();
  RunInfo info;
  const EventProfile event = event_profile(profile, info);
  const Options options = parsed("file=/nonexistent/jvmkit-dir/p.collapsed");
  const OutputResult first = write_with_fallback({&event, 1}, options, info, f.path(), 4242, kSample);
  EXPECT_TRUE(first.error);
  ASSERT_TRUE(first.fallback);
  EXPECT_FALSE(first.fallback_error);
  const std::string expected = f.path() + "/jvmkit-4242-20261203-223001.collapsed";
  ASSERT_EQ(first.files.size(), 1u);
  EXPECT_EQ(first.files[0].path, expected);
  EXPECT_EQ(read(expected), "app.Main.hot 1\n");
  EXPECT_EQ(output_result_lines(first, OutputFormat::kCollapsed, {1}),
            "ERROR: cannot write /nonexistent/jvmkit-dir/p.collapsed: No such file or directory\n"
            "wrote collapsed output (1 samples) to " +
                expected + " instead (a fallback file: the file asked for could not be written)");
  // The same second again: a name of its own, the first file untouched.
  const OutputResult second = write_with_fallback({&event, 1}, options, info, f.path(), 4242, kSample);
  ASSERT_EQ(second.files.size(), 1u);
  EXPECT_EQ(second.files[0].path, f.path() + "/jvmkit-4242-20261203-223001-2.collapsed");
  // A link of that name is never written through.
  symlink((f.path() + "/target").c_str(), (f.path() + "/jvmkit-4242-20261203-223001-3.collapsed").c_str());
  const OutputResult third = write_with_fallback({&event, 1}, options, info, f.path(), 4242, kSample);
  ASSERT_EQ(third.files.size(), 1u);
  EXPECT_EQ(third.files[0].path, f.path() + "/jvmkit-4242-20261203-223001-4.collapsed");
  EXPECT_EQ(f.names().count("target"), 0u);
}

TEST(OutputFallback, WrittenFileNeedsNoFallback) {
  Folder f;
  const Profile profile = one_sample();
  RunInfo info;
  const EventProfile event = event_profile(profile, info);
  const Options options = parsed("file=" + f.path() + "/p.collapsed");
  const OutputResult result = write_with_fallback({&event, 1}, options, info, f.path() + "/unused", 4242, kSample);
  EXPECT_FALSE(result.error);
  EXPECT_FALSE(result.fallback);
  EXPECT_EQ(output_result_lines(result, OutputFormat::kCollapsed, {1}),
            "wrote collapsed output (1 samples) to " + f.path() + "/p.collapsed");
}

TEST(OutputFallback, SeveralEventsAFileEachAndBothFailing) {
  Folder f;
  const Profile cpu = one_sample(), alloc = one_sample();
  RunInfo info;
  std::vector<EventProfile> events{event_profile(cpu, info), event_profile(alloc, info)};
  events[1].event = "alloc";
  const Options options = parsed("file=/nonexistent/jvmkit-dir/m.collapsed,event=cpu,alloc");
  const OutputResult result = write_with_fallback(events, options, info, f.path(), 4242, kSample);
  ASSERT_EQ(result.files.size(), 2u);
  EXPECT_EQ(result.files[0].path, f.path() + "/jvmkit-4242-20261203-223001.cpu.collapsed");
  EXPECT_EQ(result.files[1].path, f.path() + "/jvmkit-4242-20261203-223001.alloc.collapsed");
  const OutputResult lost = write_with_fallback(events, options, info, "/nonexistent/jvmkit-tmp", 4242, kSample);
  EXPECT_TRUE(lost.fallback_error);
  EXPECT_TRUE(lost.files.empty());
  EXPECT_NE(output_result_lines(lost, OutputFormat::kCollapsed, {1, 1})
                .find("the fallback failed too: cannot write "
                      "/nonexistent/jvmkit-tmp/"),
            std::string::npos);
}

}  // namespace
}  // namespace jvmkit::prof
