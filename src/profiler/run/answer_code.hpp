// Agent_OnAttach's return values: the one contract between the agent (profiler.hpp) and the
// jvmkit tool (src/cli), which turns them into its messages and exit status. The agent's answer
// text goes to the reply= file; these numbers are all HotSpot's "load" command passes back.
// The Java API (java/api/org/jvmkit/Profiler.java) gets the same numbers and maps them to its
// exceptions: a change here is a change there.
#pragma once

namespace jvmkit::prof {

enum class AnswerCode : int {
  kOk = 0,
  kBadOption = 1,
  kAlreadyRunning = 2,
  kNotRunning = 3,
  kOtherVersion = 4,
  kCannotStart = 5,
  kCannotWrite = 6,
};

// What CODE (an Agent_OnAttach result) means, for a message: "already running".
inline const char* answer_code_meaning(int code) {
  switch (static_cast<AnswerCode>(code)) {
    case AnswerCode::kOk:
      return "done";
    case AnswerCode::kBadOption:
      return "bad option list";
    case AnswerCode::kAlreadyRunning:
      return "already running";
    case AnswerCode::kNotRunning:
      return "not running";
    case AnswerCode::kOtherVersion:
      return "another version of the jvmkit agent is loaded in this JVM";
    case AnswerCode::kCannotStart:
      return "could not start";
    case AnswerCode::kCannotWrite:
      return "could not write the output";
  }
  return "failed";
}

}  // namespace jvmkit::prof
