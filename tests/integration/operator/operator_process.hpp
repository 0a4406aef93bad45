#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace dha::optest {

// `db-autoscaler run ...` as a child process, its stdout and stderr in a log file. Stopped with
// SIGTERM (graceful: the Lease is released) by stop() or the destructor.
class OperatorProcess {
 public:
  OperatorProcess(std::vector<std::string> args, std::string log_path);
  ~OperatorProcess();
  OperatorProcess(const OperatorProcess&) = delete;
  OperatorProcess& operator=(const OperatorProcess&) = delete;

  // SIGTERM and wait (SIGKILL after 15 s); returns the exit status (-1 if it was killed).
  int stop();
  bool running();
  std::string log() const;
  const std::string& log_path() const { return log_path_; }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int exit_status_ = -1;
  std::string log_path_;
};

}  // namespace dha::optest
