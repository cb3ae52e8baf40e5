// A test driver of the attach client: attach_tool PID COMMAND [ARG...]
//   attach_tool PID load PATH [OPTIONS]   prints "agent result: N" and the JVM's output
//   attach_tool PID <other> [ARGS]        any attach command (properties, threaddump, ...)
// Exit status: 0 done, 1 the attach failed (its message on stderr), 2 usage.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "hotspot/attach.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: attach_tool PID COMMAND [ARG...]\n");
    return 2;
  }
  using namespace jvmkit::hotspot;
  AttachTarget target;
  if (jvmkit::Error e = find_attach_target(static_cast<pid_t>(std::atoi(argv[1])), &target)) {
    std::fprintf(stderr, "attach_tool: %s\n", e.message().c_str());
    return 1;
  }
  const std::string command = argv[2];
  if (command == "load") {
    int result = 0;
    std::string output;
    if (jvmkit::Error e =
            attach_load_agent(target, argc > 3 ? argv[3] : "", argc > 4 ? argv[4] : "", 10000, &result, &output)) {
      std::fprintf(stderr, "attach_tool: %s\n", e.message().c_str());
      return 1;
    }
    std::printf("agent result: %d\n%s", result, output.c_str());
    return 0;
  }
  std::array<std::string, 3> args;
  for (int i = 3; i < argc && i < 6; i++) args[i - 3] = argv[i];
  AttachReply reply;
  if (jvmkit::Error e = attach_execute(target, command, args, 10000, &reply)) {
    std::fprintf(stderr, "attach_tool: %s\n", e.message().c_str());
    return 1;
  }
  std::printf("status: %d\n%s", reply.status, reply.output.c_str());
  return reply.status == 0 ? 0 : 1;
}
