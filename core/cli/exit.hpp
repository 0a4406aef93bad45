#pragma once

#include <stdexcept>
#include <string>

namespace dha::cli {

enum ExitCode : int { kExitOk = 0, kExitFailure = 1, kExitBadInput = 2 };

// Thrown by a command to end the program with a code and a message for stderr.
class Exit : public std::runtime_error {
 public:
  Exit(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

}  // namespace dha::cli
