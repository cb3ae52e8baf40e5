// Error: a failure as a value, with a message for the user. Internal C++ code that can fail with
// something to say returns one; nothing throws. At the edges it becomes what the interface needs:
// a message on stderr and JNI_ERR in an agent, an exit status in a command-line tool.
#pragma once

#include <string>
#include <utility>

namespace jvmkit {

class Error {
 public:
  Error() = default;  // success
  explicit Error(std::string message) : message_(std::move(message)), failed_(true) {}

  static Error ok() { return Error(); }

  explicit operator bool() const { return failed_; }  // true when this is a failure
  const std::string& message() const { return message_; }

 private:
  std::string message_;
  bool failed_ = false;
};

}  // namespace jvmkit
