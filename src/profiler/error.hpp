// Error: a failure as a value. Nothing in the profiler throws: option parsing, engine start-up and
// output writing return an Error, and the agent turns it into a message on stderr and JNI_ERR.
#ifndef JVMKIT_PROFILER_ERROR_HPP
#define JVMKIT_PROFILER_ERROR_HPP

#include <string>
#include <utility>

namespace jvmkit::prof {

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

}  // namespace jvmkit::prof

#endif
