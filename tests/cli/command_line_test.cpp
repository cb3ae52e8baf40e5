// The jvmkit tool's command line (src/cli/command_line.hpp): every command and flag, the usage
// errors and their messages, and the agent option lists and java command each mode builds.
#include "cli/command_line.hpp"
#include "cli/usage.hpp"
#include "parsed_command_line.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace jvmkit::cli {
namespace {

// The usage error's message (empty, and a test failure, when the line was accepted).
std::string refused(std::vector<std::string> args) {
  CommandLine cl;
  Error e = parse_command_line(args, &cl);
  EXPECT_TRUE(e) << "accepted: " << args.size() << " arguments";
  return e.message();
}

// jvmkit with no arguments prints the usage (a usage error): its first lines name every command,
// the ones main() hands to the converter before the command line is parsed included.
TEST(CommandLine, TheUsageListsEveryCommand) {
  const std::string_view usage = usage_text();
  const std::string_view synopsis = usage.substr(0, usage.find("\n\n"));
  for (const char* command : {"profile", "start", "stop", "dump", "status", "convert", "diff"}) {
    EXPECT_NE(synopsis.find(std::string("jvmkit ") + command + " "), std::string_view::npos) << command;
  }
}

TEST(CommandLine, HelpVersionAndNothing) {
  EXPECT_EQ(parsed({}).command, Command::kUsage);
  EXPECT_EQ(parsed({"--help"}).command, Command::kHelp);
  EXPECT_EQ(parsed({"-h"}).command, Command::kHelp);
  EXPECT_EQ(parsed({"help"}).command, Command::kHelp);
  EXPECT_EQ(parsed({"profile", "-e", "wall", "--help"}).command, Command::kHelp);
  EXPECT_EQ(parsed({"stop", "-h"}).command, Command::kHelp);
  EXPECT_EQ(parsed({"--version"}).command, Command::kVersion);
  EXPECT_EQ(refused({"frobnicate"}), "unknown command 'frobnicate' (try jvmkit --help)");
}

TEST(CommandLine, LaunchModeTakesEverythingAfterTheDashes) {
  CommandLine cl = parsed(
      {"profile", "-e", "cpu", "-i", "2ms", "-t", "-o", "out.collapsed", "--", "java", "-cp", "app.jar", "-t", "Main"});
  EXPECT_EQ(cl.command, Command::kLaunch);
  EXPECT_EQ(cl.java_command, (std::vector<std::string>{"java", "-cp", "app.jar", "-t", "Main"}));
  EXPECT_EQ(launch_options(cl, "/work"), "file=/work/out.collapsed,event=cpu,interval=2ms,threads");
}

TEST(CommandLine, LaunchOptionsInTheTablesOrderWithTheDefaultOutput) {
  CommandLine cl = parsed({"profile", "--signal", "41", "-a", "--format=pprof", "--event=wall", "--depth", "100",
                           "--max-stacks", "5000", "--", "java"});
  EXPECT_EQ(launch_options(cl, "/"),
            "file=/profile.html,event=wall,format=pprof,ann,signal=41,depth=100,max_stacks=5000");
  // Absolute paths stay; a flag given twice keeps its last value.
  cl = parsed({"profile", "-o", "/var/tmp/a.html", "-e", "cpu", "-e", "itimer", "--", "java"});
  EXPECT_EQ(launch_options(cl, "/work"), "file=/var/tmp/a.html,event=itimer");
}

TEST(CommandLine, AgentGoesAfterJavaOrIntoJavaToolOptions) {
  CommandLine cl = parsed({"profile", "-o", "p.html", "--", "/usr/lib/jvm/bin/java", "-jar", "app.jar"});
  std::vector<std::string> argv;
  std::string tool_options;
  launch_command(cl, "/opt/lib/libjvmkit_prof.so", "/w", "-Xmx1g", &argv, &tool_options);
  EXPECT_EQ(argv,
            (std::vector<std::string>{"/usr/lib/jvm/bin/java", "-agentpath:/opt/lib/libjvmkit_prof.so=file=/w/p.html",
                                      "-jar", "app.jar"}));
  EXPECT_EQ(tool_options, "");

  cl = parsed({"profile", "-o", "p.html", "--", "./run-java.sh", "-jar", "app.jar"});
  launch_command(cl, "/a.so", "/w", "-Xmx1g", &argv, &tool_options);
  EXPECT_EQ(argv, (std::vector<std::string>{"./run-java.sh", "-jar", "app.jar"}));
  EXPECT_EQ(tool_options, "-agentpath:/a.so=file=/w/p.html -Xmx1g");
  launch_command(cl, "/a.so", "/w", "", &argv, &tool_options);
  EXPECT_EQ(tool_options, "-agentpath:/a.so=file=/w/p.html");
  launch_command(cl, "/a.so", "/w", nullptr, &argv, &tool_options);
  EXPECT_EQ(tool_options, "-agentpath:/a.so=file=/w/p.html");
}

TEST(CommandLine, SeveralEventsAndTheirOptions) {
  // -e a,b: an event= per event; --alloc, --lock and --live as the agent spells them.
  CommandLine cl = parsed({"profile", "-e", "cpu,alloc,lock", "--alloc", "64k", "--lock=1ms", "--live", "--", "java"});
  EXPECT_EQ(launch_options(cl, "/w"), "file=/w/profile.html,event=cpu,event=alloc,event=lock,alloc=64k,lock=1ms,live");
  cl = parsed({"start", "--alloc", "1m", "4242"});
  EXPECT_EQ(join_options(start_options(cl, "")), "format=html,alloc=1m");
}

// --cstack passes its value to the agent (which checks it: no, native), launched and attached;
// stop and dump do not take it.
TEST(CommandLine, CStackReachesTheAgent) {
  CommandLine cl = parsed({"profile", "--cstack", "native", "-e", "wall", "--", "java"});
  EXPECT_EQ(launch_options(cl, "/w"), "file=/w/profile.html,event=wall,cstack=native");
  cl = parsed({"start", "--cstack=native", "4242"});
  EXPECT_EQ(join_options(start_options(cl, "")), "format=html,cstack=native");
  cl = parsed({"profile", "--cstack", "no", "-d", "5", "4242"});
  EXPECT_EQ(join_options(start_options(cl, "")), "format=html,cstack=no");
  EXPECT_EQ(refused({"stop", "--cstack", "native", "12"}),
            "stop: --cstack is not an option of this command (see jvmkit --help)");
  EXPECT_EQ(refused({"profile", "--cstack", "native,kernel", "--", "java"}),
            "--cstack native,kernel: the value must not contain a comma (agent options are comma-separated)");
}

TEST(CommandLine, LaunchModeMistakes) {
  EXPECT_EQ(refused({"profile", "-o", "a,b.html", "--", "java"}),
            "--output a,b.html: the file name must not contain a comma (agent options are comma-separated)");
  EXPECT_EQ(refused({"profile", "-e", "cpu,threads", "--", "java"}),
            "-e cpu,threads: unknown event 'threads' (known: cpu, wall, itimer, cpu-clock, task-clock, page-faults, "
            "context-switches, cycles, instructions, cache-misses, branch-misses, alloc, lock)");
  EXPECT_EQ(refused({"profile", "--event=cpu,,lock", "--", "java"}),
            "--event cpu,,lock: unknown event '' (known: cpu, wall, itimer, cpu-clock, task-clock, page-faults, "
            "context-switches, cycles, instructions, cache-misses, branch-misses, alloc, lock)");
  EXPECT_EQ(refused({"profile", "--lock", "1,5ms", "--", "java"}),
            "--lock 1,5ms: the value must not contain a comma (agent options are comma-separated)");
  EXPECT_EQ(refused({"profile", "-e", "wall", "--"}),
            "profile: no command given after -- (e.g. jvmkit profile -- java -jar app.jar)");
  EXPECT_NE(refused({"profile", "-e", "wall"}).find("profile: missing pid, or the java command after --"),
            std::string::npos);
  EXPECT_EQ(refused({"profile", "--bogus", "--", "java"}),
            "profile: unknown option '--bogus' (the java command goes after --; see jvmkit --help)");
  EXPECT_EQ(refused({"profile", "java", "-jar", "app.jar"}),
            "profile: 'java' is not a pid (the java command goes after --: jvmkit profile [options] -- java ...)");
  EXPECT_EQ(refused({"profile", "-o"}), "-o needs a value");
  EXPECT_EQ(refused({"profile", "--event=", "--", "java"}), "--event= needs a value");
  EXPECT_EQ(refused({"profile", "--annotate=yes", "--", "java"}), "--annotate=yes takes no value");
  EXPECT_EQ(refused({"profile", "--threads=", "--", "java"}), "--threads= needs a value after =");
  EXPECT_EQ(refused({"profile", "-d", "5", "--", "java"}),
            "-d/--duration: only with a pid (a java command run by jvmkit is profiled until it exits)");
  EXPECT_EQ(refused({"profile", "12", "--", "java"}), "profile: a pid and a java command: give one of them");
  EXPECT_EQ(refused({"stop", "12", "--", "java"}), "stop: only jvmkit profile runs a java command (after --)");
}

TEST(CommandLine, ProfileAPidForADuration) {
  CommandLine cl = parsed({"profile", "4242"});
  EXPECT_EQ(cl.command, Command::kProfile);
  EXPECT_EQ(cl.pid, 4242);
  EXPECT_EQ(cl.duration_ns, kDefaultDurationNs);
  EXPECT_EQ(output_or_default(cl), "profile.html");
  EXPECT_EQ(output_format(cl), "html");

  cl = parsed({"profile", "-d", "3", "-o", "x.collapsed", "4242"});
  EXPECT_EQ(cl.duration_ns, 3'000'000'000);
  EXPECT_EQ(output_format(cl), "collapsed");
  // Options after the pid, --long=value, a unit.
  cl = parsed({"profile", "4242", "--duration=500ms", "-e", "wall"});
  EXPECT_EQ(cl.pid, 4242);
  EXPECT_EQ(cl.duration_ns, 500'000'000);
  EXPECT_EQ(cl.options, (std::vector<AgentOption>{{"event", "wall"}}));
}

TEST(CommandLine, BadDurationsAndPids) {
  EXPECT_EQ(
      refused({"profile", "-d", "3x", "4242"}),
      "-d 3x: bad duration: unknown unit 'x' (use ns, us, ms or s) (e.g. 30s, 500ms, or seconds as a bare number)");
  EXPECT_NE(refused({"profile", "--duration", "0", "4242"}).find("--duration 0: bad duration: must be more than 0"),
            std::string::npos);
  EXPECT_NE(refused({"profile", "--loop", "soon", "4242"}).find("--loop soon: bad duration"), std::string::npos);
  EXPECT_EQ(refused({"status"}), "status: missing pid (jvmkit status [options] PID)");
  EXPECT_EQ(refused({"stop", "-o", "x.html"}), "stop: missing pid (jvmkit stop [options] PID)");
  EXPECT_EQ(refused({"status", "12", "13"}), "status: more than one pid (12 and 13)");
  EXPECT_EQ(refused({"dump", "abc"}), "dump: 'abc' is not a pid");
  EXPECT_EQ(refused({"dump", "0"}), "dump: '0' is not a pid");
  EXPECT_EQ(refused({"dump", "99999999999"}), "dump: '99999999999' is not a pid");
  EXPECT_EQ(refused({"stop", "--bogus", "12"}), "stop: unknown option '--bogus' (see jvmkit --help)");
}

TEST(CommandLine, EachCommandTakesItsOwnFlags) {
  EXPECT_EQ(refused({"stop", "-e", "cpu", "12"}), "stop: -e is not an option of this command (see jvmkit --help)");
  EXPECT_EQ(refused({"dump", "--loop", "1s", "12"}),
            "dump: --loop is not an option of this command (see jvmkit --help)");
  EXPECT_EQ(refused({"status", "-o", "x", "12"}), "status: -o is not an option of this command (see jvmkit --help)");
  EXPECT_EQ(refused({"start", "-d", "5", "12"}), "start: -d is not an option of this command (see jvmkit --help)");

  CommandLine cl = parsed({"stop", "-o", "a.pb.gz", "12"});
  EXPECT_EQ(cl.command, Command::kStop);
  EXPECT_EQ(output_format(cl), "pprof");
  cl = parsed({"dump", "-f", "collapsed", "-o", "a.html", "12"});
  EXPECT_EQ(cl.command, Command::kDump);
  EXPECT_EQ(output_format(cl), "collapsed");
  EXPECT_EQ(parsed({"status", "12"}).command, Command::kStatus);
}

TEST(CommandLine, StartOptionsAlwaysCarryTheFormat) {
  CommandLine cl = parsed({"start", "-e", "wall", "-t", "-i", "5ms", "12"});
  EXPECT_EQ(cl.command, Command::kStart);
  EXPECT_EQ(join_options(start_options(cl, "")), "format=html,event=wall,interval=5ms,threads");
  cl = parsed({"start", "-f", "pprof", "-a", "12"});
  EXPECT_EQ(join_options(start_options(cl, "/tmp/jvmkit-out-1-2.pb.gz")),
            "file=/tmp/jvmkit-out-1-2.pb.gz,format=pprof,ann");
  cl = parsed({"profile", "-o", "x.htm", "12"});
  EXPECT_EQ(output_format(cl), "html");
  cl = parsed({"profile", "-o", "x.pprof", "12"});
  EXPECT_EQ(output_format(cl), "pprof");
  cl = parsed({"profile", "-o", "x.txt", "12"});
  EXPECT_EQ(output_format(cl), "collapsed");
}

TEST(CommandLine, LoopRunsUntilStopOrForADuration) {
  CommandLine cl = parsed({"profile", "--loop", "1s", "--keep", "3", "-o", "w-%t.collapsed", "12"});
  EXPECT_TRUE(cl.loop());
  EXPECT_EQ(cl.duration_ns, 0);  // start and return
  EXPECT_EQ(join_options(start_options(cl, "/w/w-%t.collapsed")),
            "file=/w/w-%t.collapsed,format=collapsed,loop=1s,keep=3");
  cl = parsed({"profile", "--loop", "5", "-d", "20", "-o", "w-%t.collapsed", "12"});
  EXPECT_EQ(cl.duration_ns, 20'000'000'000);
  EXPECT_EQ(cl.value("loop"), "5s");  // the agent reads a bare number as ns
  EXPECT_EQ(parsed({"start", "--loop", "2s", "12"}).value("loop"), "2s");
  EXPECT_EQ(launch_options(parsed({"profile", "--loop", "10", "-o", "/o/%p-%t.html", "--", "java"}), "/"),
            "file=/o/%p-%t.html,loop=10s");
}

TEST(CommandLine, PathsAndPatterns) {
  EXPECT_TRUE(is_file_pattern("w-%t.collapsed"));
  EXPECT_TRUE(is_file_pattern("/x/%p.html"));
  EXPECT_TRUE(is_file_pattern("100%%.html"));
  EXPECT_FALSE(is_file_pattern("profile.html"));
  EXPECT_FALSE(is_file_pattern("50%.html"));
  EXPECT_EQ(absolute_path("a/b.html", "/w"), "/w/a/b.html");
  EXPECT_EQ(absolute_path("b.html", "/"), "/b.html");
  EXPECT_EQ(absolute_path("/x/b.html", "/w"), "/x/b.html");
}

TEST(CommandLine, DurationsAreSecondsWhenBare) {
  int64_t ns = 0;
  EXPECT_FALSE(parse_cli_duration("2", &ns));
  EXPECT_EQ(ns, 2'000'000'000);
  EXPECT_FALSE(parse_cli_duration("250ms", &ns));
  EXPECT_EQ(ns, 250'000'000);
  EXPECT_FALSE(parse_cli_duration("1500us", &ns));
  EXPECT_EQ(ns, 1'500'000);
  EXPECT_TRUE(parse_cli_duration("0s", &ns));
  EXPECT_TRUE(parse_cli_duration("1m", &ns));
  EXPECT_TRUE(parse_cli_duration("", &ns));
}

}  // namespace
}  // namespace jvmkit::cli
