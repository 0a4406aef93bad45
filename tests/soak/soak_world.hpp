#pragma once
// The processes the soak kills and restarts: VictoriaMetrics on a fixed port and data directory
// (so a restart keeps its samples and the operators' URL), and `db-autoscaler run` processes
// (SIGKILL, no goodbye). The embedded API server restarts itself (ApiServer::stop/start).

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "dha/testing/child_process.hpp"

namespace dha::soak {

// /usr/bin/victoria-metrics, restartable on the same port and data directory. Instant queries
// look back at most `staleness` (-search.maxStalenessInterval), so a series that stops being
// pushed becomes "no data" for the operator after that long.
class VmServer {
 public:
  VmServer(std::string dir, std::chrono::seconds staleness);
  ~VmServer();

  void start();   // returns once /health answers; throws with the log tail otherwise
  void kill();    // SIGKILL: the data directory keeps what was flushed
  void pause();   // SIGSTOP: every request hangs (slower than any timeout) until resume()
  void resume();  // SIGCONT
  bool up() const { return process_ != nullptr && !paused_; }
  const std::string& url() const { return url_; }
  // Imports exposition text and flushes. kLanded: both answered 2xx. kMayHaveLanded: the import
  // was sent but an answer did not come in time (a loaded VictoriaMetrics ingests it anyway, and
  // flushes by itself within a second). kRefused: it cannot have landed (no connection, or an
  // import answered other than 2xx).
  enum class Push { kLanded, kMayHaveLanded, kRefused };
  Push push(const std::string& exposition, std::chrono::milliseconds timeout);

 private:
  std::string dir_;
  std::chrono::seconds staleness_;
  uint16_t port_;
  std::string url_;
  bool paused_ = false;
  std::unique_ptr<testing::ChildProcess> process_;
};

// One `db-autoscaler run` process. Killed with SIGKILL (kill()) or stopped with SIGTERM (the
// destructor), so both the crash and the graceful path happen.
class OperatorRun {
 public:
  OperatorRun(const std::vector<std::string>& args, const std::string& log_path);
  ~OperatorRun();
  void kill();
  bool running();
  std::string log_tail() const;

 private:
  std::unique_ptr<testing::ChildProcess> process_;
};

}  // namespace dha::soak
