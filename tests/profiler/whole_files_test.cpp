// Files written whole or not at all (whole_files.hpp), files of whole JFR chunks (chunk_file.hpp)
// and the report's lines of a profile split between the file asked for and a fallback
// (output_fallback.hpp), on real folders. A full disk and read-only files are the JVM test
// write_failures.sh's (they need a mount, or chattr, as root).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "profiler/outputs/chunk_file.hpp"
#include "profiler/outputs/output_fallback.hpp"
#include "profiler/outputs/whole_files.hpp"
#include "tests/support/temp_folder.hpp"

namespace jvmkit::prof {
namespace {

// A fresh folder, removed with what it holds.
struct Folder : jvmkit::testing::TempFolder {
  Folder() : TempFolder("whole-files") {}
};

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST(WholeFiles, ReplacesTheFileAndKeepsItsMode) {
  Folder f;
  write(f / "p.html", "old");
  chmod((f / "p.html").c_str(), 0600);
  std::vector<std::string> renamed;
  ASSERT_FALSE(write_whole_files(std::vector<FileBytes>{{f / "p.html", "new page"}}, &renamed));
  EXPECT_EQ(read(f / "p.html"), "new page");
  EXPECT_EQ(renamed, std::vector<std::string>{f / "p.html"});
  struct stat st {};
  ASSERT_EQ(stat((f / "p.html").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(f.names(), std::set<std::string>{"p.html"});  // no temporary file left
}

TEST(WholeFiles, AFileThatCannotBeWrittenLeavesNothingAndTheOthersUntouched) {
  Folder f;
  write(f / "a.collapsed", "old a");
  std::vector<std::string> renamed;
  const Error e = write_whole_files(
      std::vector<FileBytes>{{f / "a.collapsed", "new a"}, {f / "missing/b.collapsed", "new b"}}, &renamed);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.message(), "cannot write " + (f / "missing/b.collapsed") + ": No such file or directory");
  // The first file was written to its temporary name, never renamed: all or nothing.
  EXPECT_EQ(read(f / "a.collapsed"), "old a");
  EXPECT_TRUE(renamed.empty());
  EXPECT_EQ(f.names(), std::set<std::string>{"a.collapsed"});
}

TEST(WholeFiles, ALinkIsWrittenWhereItPoints) {
  Folder f;
  write(f / "real.html", "old");
  ASSERT_EQ(symlink((f / "real.html").c_str(), (f / "link.html").c_str()), 0);
  std::vector<std::string> renamed;
  ASSERT_FALSE(write_whole_files(std::vector<FileBytes>{{f / "link.html", "page"}}, &renamed));
  EXPECT_EQ(read(f / "real.html"), "page");
  struct stat st {};
  ASSERT_EQ(lstat((f / "link.html").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST(WholeFiles, ADeviceIsWrittenDirectly) {
  std::vector<std::string> renamed;
  EXPECT_FALSE(write_whole_files(std::vector<FileBytes>{{"/dev/null", "bytes"}}, &renamed));
  EXPECT_EQ(renamed, std::vector<std::string>{"/dev/null"});
}

TEST(ChunkFile, CountsWholeChunksAndReadsThemBackOnceRemoved) {
  Folder f;
  ChunkFile file;
  ASSERT_FALSE(file.create(f / "p.jfr"));
  ASSERT_FALSE(file.append("chunk1", 3));
  ASSERT_FALSE(file.append("chunk2", 4));
  EXPECT_EQ(file.chunks(), 2);
  EXPECT_EQ(file.samples(), 7);
  EXPECT_TRUE(file.at_path());
  // Its folder's entry removed (or replaced): the open file reaches nobody, its chunks are read back.
  ASSERT_EQ(unlink((f / "p.jfr").c_str()), 0);
  EXPECT_FALSE(file.at_path());
  write(f / "p.jfr", "another's");
  EXPECT_FALSE(file.at_path());
  std::string back;
  ASSERT_FALSE(file.read_back(&back));
  EXPECT_EQ(back, "chunk1chunk2");
  file.abandon();
  EXPECT_EQ(read(f / "p.jfr"), "another's");
}

TEST(ChunkFile, AFileWithoutAChunkIsRemovedAtClose) {
  Folder f;
  ChunkFile file;
  ASSERT_FALSE(file.create(f / "p.jfr"));
  file.close();
  EXPECT_TRUE(f.names().empty());
  ChunkFile reserved;
  write(f / "fallback.jfr", "");
  ASSERT_EQ(symlink((f / "elsewhere").c_str(), (f / "link.jfr").c_str()), 0);
  EXPECT_TRUE(reserved.open_reserved(f / "link.jfr"));  // a link is never followed
  ASSERT_FALSE(reserved.open_reserved(f / "fallback.jfr"));
  ASSERT_FALSE(reserved.append("chunk", 1));
  reserved.close();
  EXPECT_EQ(read(f / "fallback.jfr"), "chunk");
}

TEST(OutputResultLines, ARecordingSplitNamesEachFileOnceWithItsSamplesTheFallbackLast) {
  OutputResult r;
  r.error = Error("cannot write /small/p.jfr: No space left on device");
  WrittenFile fallback{"/tmp/jvmkit-7-20261207-101010.jfr", WrittenFile::kAllEvents, 526, true};
  WrittenFile asked{"/small/p.jfr", WrittenFile::kAllEvents, 98, false};
  r.files = {fallback, asked};
  r.fallback = true;
  EXPECT_EQ(output_result_lines(r, OutputFormat::kJfr, {}),
            "ERROR: cannot write /small/p.jfr: No space left on device\n"
            "wrote jfr output (98 samples) to /small/p.jfr (the part written before the error)\n"
            "wrote jfr output (526 samples) to /tmp/jvmkit-7-20261207-101010.jfr (a fallback file: the rest, which "
            "the file asked for could not take)");
  r.files = {asked};
  r.fallback_error = Error("cannot write /tmp/jvmkit-7-20261207-101010.jfr: No space left on device");
  r.lost_samples = 526;
  r.lost_why = "no file could take them";
  EXPECT_EQ(output_result_lines(r, OutputFormat::kJfr, {}),
            "ERROR: cannot write /small/p.jfr: No space left on device\n"
            "wrote jfr output (98 samples) to /small/p.jfr (the part written before the error)\n"
            "ERROR: the fallback failed too: cannot write /tmp/jvmkit-7-20261207-101010.jfr: No space left on device\n"
            "ERROR: 526 samples lost: no file could take them");
}

}  // namespace
}  // namespace jvmkit::prof
