// The files the jvmkit tool shares with a JVM (src/cli/agent_files.hpp), on a temporary folder that
// stands for the JVM's root: where the agent is found, the agent copy a JVM of another user or
// container loads, and the reply and profile files in the JVM's /tmp.
#include "cli/agent_files.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fcntl.h>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace jvmkit::cli {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

struct stat stat_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
  return st;
}

// A temporary folder with a tmp/ in it: a JVM's root.
class AgentFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/jvmkit-cli-test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    root_ = pattern;
    ASSERT_EQ(mkdir((root_ + "/tmp").c_str(), 01777), 0);
    ASSERT_EQ(chmod((root_ + "/tmp").c_str(), 01777), 0);
  }
  void TearDown() override { (void)std::system(("rm -rf '" + root_ + "'").c_str()); }

  TargetTmp open_tmp() {
    TargetTmp tmp;
    Error e = TargetTmp::open(root_, &tmp);
    EXPECT_FALSE(e) << e.message();
    return tmp;
  }

  std::string root_;
};

TEST_F(AgentFilesTest, FindsTheAgentInstalledOrInTheBuildTreeOrWhereTheEnvironmentSays) {
  ASSERT_EQ(mkdir((root_ + "/bin").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((root_ + "/lib").c_str(), 0755), 0);
  std::string agent;
  Error e = find_agent(nullptr, root_ + "/bin/jvmkit", &agent);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.message(), "cannot find libjvmkit_prof.so next to " + root_ + "/bin/jvmkit (looked in " + root_ +
                             "/bin/../lib and " + root_ + "/bin); set JVMKIT_PROF_AGENT");
  write_text(root_ + "/bin/libjvmkit_prof.so", "build tree");
  ASSERT_FALSE(find_agent(nullptr, root_ + "/bin/jvmkit", &agent));
  EXPECT_EQ(agent, root_ + "/bin/libjvmkit_prof.so");
  write_text(root_ + "/lib/libjvmkit_prof.so", "installed");
  ASSERT_FALSE(find_agent("", root_ + "/bin/jvmkit", &agent));
  EXPECT_EQ(agent, root_ + "/lib/libjvmkit_prof.so");  // ../lib first, and resolved

  e = find_agent((root_ + "/nothing.so").c_str(), root_ + "/bin/jvmkit", &agent);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.message(), "JVMKIT_PROF_AGENT=" + root_ + "/nothing.so: no such file");
  ASSERT_FALSE(find_agent((root_ + "/bin/../bin/libjvmkit_prof.so").c_str(), "/nowhere/jvmkit", &agent));
  EXPECT_EQ(agent, root_ + "/bin/libjvmkit_prof.so");
}

TEST_F(AgentFilesTest, NewNamesAreFreshAndTakenFilesGone) {
  TargetTmp tmp = open_tmp();
  const std::string name = tmp.new_name("reply", "");
  EXPECT_EQ(name.rfind("jvmkit-reply-" + std::to_string(getpid()) + "-", 0), 0u) << name;
  EXPECT_NE(name, tmp.new_name("reply", ""));
  EXPECT_EQ(tmp.new_name("out", ".pb.gz").substr(tmp.new_name("out", ".pb.gz").size() - 6), ".pb.gz");

  std::string text = "left over";
  EXPECT_FALSE(tmp.take_text(name, &text));
  EXPECT_EQ(text, "");
  write_text(root_ + "/tmp/" + name, "stopped, wrote /x\n");
  EXPECT_TRUE(tmp.take_text(name, &text));
  EXPECT_EQ(text, "stopped, wrote /x\n");
  EXPECT_NE(access((root_ + "/tmp/" + name).c_str(), F_OK), 0);
}

TEST_F(AgentFilesTest, SymbolicLinksInTheJvmsTmpAreNotFollowed) {
  TargetTmp tmp = open_tmp();
  write_text(root_ + "/secret", "secret");
  ASSERT_EQ(symlink((root_ + "/secret").c_str(), (root_ + "/tmp/jvmkit-reply-x").c_str()), 0);
  std::string text;
  EXPECT_FALSE(tmp.take_text("jvmkit-reply-x", &text));
  Error e = tmp.move_out("jvmkit-reply-x", root_ + "/copy");
  EXPECT_TRUE(e);
  EXPECT_NE(access((root_ + "/copy").c_str(), F_OK), 0);
  EXPECT_EQ(read_text(root_ + "/secret"), "secret");

  // A /tmp that is a symbolic link (it would be resolved in our file system, not the JVM's).
  const std::string other = root_ + "/other-root";
  ASSERT_EQ(mkdir(other.c_str(), 0755), 0);
  ASSERT_EQ(symlink("/tmp", (other + "/tmp").c_str()), 0);
  TargetTmp refused;
  EXPECT_TRUE(TargetTmp::open(other, &refused));
  EXPECT_TRUE(TargetTmp::open(root_ + "/no-such-root", &refused));
}

TEST_F(AgentFilesTest, MovesTheProfileOutAndRemovesIt) {
  TargetTmp tmp = open_tmp();
  const std::string name = tmp.new_name("out", ".collapsed");
  Error e = tmp.move_out(name, root_ + "/profile.collapsed");
  ASSERT_TRUE(e);
  EXPECT_NE(e.message().find("the JVM wrote no file /tmp/" + name), std::string::npos) << e.message();

  write_text(root_ + "/tmp/" + name, "a;b 3\n");
  e = tmp.move_out(name, root_ + "/no-such-dir/profile.collapsed");
  ASSERT_TRUE(e);
  EXPECT_NE(e.message().find("the profile stays in the JVM's /tmp/" + name), std::string::npos) << e.message();
  ASSERT_FALSE(tmp.move_out(name, root_ + "/profile.collapsed"));
  EXPECT_EQ(read_text(root_ + "/profile.collapsed"), "a;b 3\n");
  EXPECT_EQ(stat_of(root_ + "/profile.collapsed").st_uid, geteuid());
  EXPECT_NE(access((root_ + "/tmp/" + name).c_str(), F_OK), 0);
}

TEST_F(AgentFilesTest, PlacesTheAgentOnceAndReplacesAnOtherBuild) {
  write_text(root_ + "/agent.so", "agent version 1");
  TargetTmp tmp = open_tmp();
  std::string jvm_path;
  ASSERT_FALSE(tmp.place_agent(root_ + "/agent.so", geteuid(), getegid(), "9.9.9", &jvm_path));
  EXPECT_EQ(jvm_path, "/tmp/jvmkit-9.9.9/libjvmkit_prof.so");
  const std::string copy = root_ + jvm_path;
  EXPECT_EQ(read_text(copy), "agent version 1");
  EXPECT_EQ(stat_of(root_ + "/tmp/jvmkit-9.9.9").st_mode & 07777, 0755u);
  EXPECT_EQ(stat_of(copy).st_mode & 07777, 0644u);

  // The same bytes: the same file. Other bytes: a new file, while the old one stays intact for a
  // JVM that has it loaded.
  const ino_t first = stat_of(copy).st_ino;
  ASSERT_FALSE(tmp.place_agent(root_ + "/agent.so", geteuid(), getegid(), "9.9.9", &jvm_path));
  EXPECT_EQ(stat_of(copy).st_ino, first);
  const int loaded = open(copy.c_str(), O_RDONLY);
  write_text(root_ + "/agent.so", "agent version 2");
  ASSERT_FALSE(tmp.place_agent(root_ + "/agent.so", geteuid(), getegid(), "9.9.9", &jvm_path));
  EXPECT_NE(stat_of(copy).st_ino, first);
  EXPECT_EQ(read_text(copy), "agent version 2");
  char old[32] = {};
  EXPECT_GT(pread(loaded, old, sizeof(old) - 1, 0), 0);
  EXPECT_STREQ(old, "agent version 1");
  close(loaded);
}

TEST_F(AgentFilesTest, RefusesAnUnsafeFolder) {
  write_text(root_ + "/agent.so", "agent");
  TargetTmp tmp = open_tmp();
  std::string jvm_path;
  ASSERT_EQ(mkdir((root_ + "/tmp/jvmkit-1.0.0").c_str(), 0777), 0);
  ASSERT_EQ(chmod((root_ + "/tmp/jvmkit-1.0.0").c_str(), 0777), 0);
  Error e = tmp.place_agent(root_ + "/agent.so", geteuid(), getegid(), "1.0.0", &jvm_path);
  ASSERT_TRUE(e);
  EXPECT_NE(e.message().find("is writable by others; refused"), std::string::npos) << e.message();

  ASSERT_EQ(symlink(root_.c_str(), (root_ + "/tmp/jvmkit-2.0.0").c_str()), 0);
  e = tmp.place_agent(root_ + "/agent.so", geteuid(), getegid(), "2.0.0", &jvm_path);
  ASSERT_TRUE(e);
  EXPECT_NE(e.message().find("is not a folder (or is a symbolic link)"), std::string::npos) << e.message();
}

TEST_F(AgentFilesTest, HandsTheCopyToTheJvmsUserWhenRoot) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (chown)";
  write_text(root_ + "/agent.so", "agent");
  TargetTmp tmp = open_tmp();
  std::string jvm_path;
  ASSERT_FALSE(tmp.place_agent(root_ + "/agent.so", 65534, 65534, "3.0.0", &jvm_path));
  EXPECT_EQ(stat_of(root_ + "/tmp/jvmkit-3.0.0").st_uid, 65534u);
  EXPECT_EQ(stat_of(root_ + jvm_path).st_uid, 65534u);
  EXPECT_EQ(stat_of(root_ + jvm_path).st_gid, 65534u);
  // A folder of a third user is refused.
  Error e = tmp.place_agent(root_ + "/agent.so", 4321, 4321, "3.0.0", &jvm_path);
  ASSERT_TRUE(e);
  EXPECT_NE(e.message().find("belongs to uid 65534, neither root nor the JVM's user (uid 4321)"), std::string::npos)
      << e.message();
}

TEST(SharesFileSystem, ThisProcessSharesItsOwn) { EXPECT_TRUE(shares_file_system(getpid())); }

}  // namespace
}  // namespace jvmkit::cli
