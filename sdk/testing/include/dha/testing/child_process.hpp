#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace dha::testing {

// Test kit: a child program (a database, an exporter) whose output goes to a log file. The destructor stops it:
// SIGTERM, then SIGKILL if it has not exited within the grace period. Only this child is ever signalled. The child also
// gets SIGKILL if the test process dies first (PR_SET_PDEATHSIG), so a killed test leaves no server behind; start
// children from the thread that owns them.
class ChildProcess {
 public:
  // Throws std::runtime_error when the binary is missing or cannot start.
  ChildProcess(const std::vector<std::string>& argv, const std::string& log_path,
               const std::vector<std::string>& extra_env = {});
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool running();
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(10));
  pid_t pid() const { return pid_; }
  const std::string& log_path() const { return log_path_; }
  // The last `bytes` of the log, for error messages.
  std::string log_tail(size_t bytes = 2000) const;

 private:
  pid_t pid_ = -1;
  std::string log_path_;
};

// mkdtemp under $TMPDIR (or /tmp); the caller removes it.
std::string make_temp_dir(const std::string& prefix);

}  // namespace dha::testing
