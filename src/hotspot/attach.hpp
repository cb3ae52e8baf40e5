// A client of HotSpot's attach mechanism (the "dynamic attach" jcmd and the Attach API use), so
// that jvmkit's command-line tool can load an agent into a running JVM without a JDK on its side.
//
// How HotSpot's attach listener works on Linux (JDK 17 to 25):
//   - The listener thread starts lazily. A client creates the trigger file ".attach_pid<pid>" in
//     the JVM's working directory (or its /tmp) and sends SIGQUIT; HotSpot's signal dispatcher sees
//     the file (owned by the JVM's user or root) and starts the listener instead of printing a
//     thread dump. The listener then creates the UNIX socket /tmp/.java_pid<pid>.
//   - A request is "1\0" (protocol version 1), the command, and exactly three arguments, each
//     NUL-terminated (empty when unused). HotSpot checks the peer's credentials: same effective uid
//     and gid as the JVM, or root.
//   - The reply is the command's status as a decimal line, then its output until the listener
//     closes the connection. For "load" the output holds the agent's own result
//     ("return code: N"; an older JDK writes the bare number).
//
// Containers: a JVM in other mount and PID namespaces is reached through /proc/<pid>/root and
// /proc/<pid>/cwd, under the pid it has in its own namespace (the last NSpid of /proc/<pid>/status).
//
// Before it signals, the client checks that the process maps libjvm.so (SIGQUIT would kill most
// other programs) and, where the JVM publishes its performance data (hsperfdata), that attach is
// not disabled (-XX:+DisableAttachMechanism, which would turn the SIGQUIT into a thread dump in the
// application's output).
//
// Not signal context; each call may block up to the timeout it is given.
#pragma once

#include <sys/types.h>

#include <array>
#include <string>

#include "base/error.hpp"

namespace jvmkit::hotspot {

// A running JVM, as seen from the attaching process.
struct AttachTarget {
  pid_t pid = 0;     // in the attaching process's PID namespace
  pid_t ns_pid = 0;  // in the JVM's own PID namespace (the name of its socket and files)
  uid_t uid = 0;     // the JVM's effective uid and gid
  gid_t gid = 0;
  std::string root;              // /proc/<pid>/root: the JVM's file system
  std::string cwd;               // /proc/<pid>/cwd: its working directory
  bool attach_disabled = false;  // hsperfdata says the JVM does not support attach
  int64_t started_s = 0;         // when the process started (seconds since the epoch; 0: unknown)
};

// The listener's answer to one command.
struct AttachReply {
  int status = 0;      // the listener's status line (0: the command ran)
  std::string output;  // what the command printed
};

// Finds PID and checks that it is a HotSpot JVM this process may attach to. Errors name the
// cause: no such process, not permitted, not a HotSpot JVM, attach disabled.
Error find_attach_target(pid_t pid, AttachTarget* out);

// Runs COMMAND with up to three arguments, starting the attach listener first if it is not
// running, waiting at most TIMEOUT_MS for it.
Error attach_execute(const AttachTarget& target, const std::string& command, const std::array<std::string, 3>& args,
                     int timeout_ms, AttachReply* reply);

// Loads the agent library at the absolute PATH into the JVM with OPTIONS (Agent_OnAttach).
// *AGENT_RESULT receives Agent_OnAttach's return value; an Error when the library could not be
// loaded (the JVM's message included) or the listener did not answer.
Error attach_load_agent(const AttachTarget& target, const std::string& path, const std::string& options, int timeout_ms,
                        int* agent_result, std::string* output);

// Parses the pid in the JVM's own namespace from /proc/<pid>/status text (its last NSpid field;
// the Pid field on kernels without NSpid). Returns 0 if neither is there.
pid_t ns_pid_from_status(const std::string& status_text);

// Parses the agent's result from the output of "load": "return code: N" or a bare number on the
// first line. Returns false if there is neither.
bool agent_result_from_load_output(const std::string& output, int* result);

// Reads the "sun.rt.jvmCapabilities" string from an hsperfdata file's bytes; its first character
// is '1' when attach is supported. Returns false if the bytes hold no such entry.
bool jvm_capabilities_from_perfdata(const std::string& bytes, std::string* capabilities);

}  // namespace jvmkit::hotspot
