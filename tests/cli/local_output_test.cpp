// The tool's own check of -o (src/cli/local_output.hpp): the files the agent would write for the
// command line (one per event for collapsed output of several events), the option named.
#include "cli/local_output.hpp"
#include "parsed_command_line.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <string>
#include <vector>

namespace jvmkit::cli {
namespace {

TEST(LocalOutput, NamesTheOptionAndTheReason) {
  const CommandLine cl = parsed({"profile", "-o", "/nonexistent/jvmkit-dir/p.html", "--", "java", "Main"});
  EXPECT_EQ(check_local_output(cl, "/nonexistent/jvmkit-dir/p.html").message(),
            "-o /nonexistent/jvmkit-dir/p.html: directory /nonexistent/jvmkit-dir does not exist");
  const CommandLine by_default = parsed({"stop", "42"});
  EXPECT_EQ(check_local_output(by_default, "/nonexistent/jvmkit-dir/profile.html").message(),
            "the default output file /nonexistent/jvmkit-dir/profile.html: directory /nonexistent/jvmkit-dir does not "
            "exist");
}

TEST(LocalOutput, EveryEventFileOfACollapsedProfile) {
  char name[] = "/tmp/jvmkit-local-output-XXXXXX";
  const std::string dir = mkdtemp(name);
  const CommandLine cl = parsed({"profile", "-e", "cpu,alloc", "-o", dir + "/m.collapsed", "--", "java", "Main"});
  EXPECT_FALSE(check_local_output(cl, dir + "/m.collapsed"));
  mkdir((dir + "/m.alloc.collapsed").c_str(), 0755);
  EXPECT_EQ(check_local_output(cl, dir + "/m.collapsed").message(),
            "-o " + dir + "/m.collapsed: " + dir + "/m.alloc.collapsed is a directory");
  // html holds every event in one file: only that one is checked.
  const CommandLine html = parsed({"profile", "-e", "cpu,alloc", "-o", dir + "/m.html", "--", "java", "Main"});
  EXPECT_FALSE(check_local_output(html, dir + "/m.html"));
  std::system(("rm -rf '" + dir + "'").c_str());
}

}  // namespace
}  // namespace jvmkit::cli
