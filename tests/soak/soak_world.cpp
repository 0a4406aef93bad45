#include "soak_world.hpp"

#include <signal.h>

#include <stdexcept>
#include <thread>

#include "dha/testing/victoria_metrics.hpp"

namespace dha::soak {

using namespace std::chrono_literals;

VmServer::VmServer(std::string dir, std::chrono::seconds staleness)
    : dir_(std::move(dir)),
      staleness_(staleness),
      port_(testing::free_loopback_port()),
      url_("http://127.0.0.1:" + std::to_string(port_)) {}

VmServer::~VmServer() {
  resume();
  process_.reset();
}

void VmServer::start() {
  static int incarnation = 0;
  process_ = std::make_unique<testing::ChildProcess>(
      std::vector<std::string>{"/usr/bin/victoria-metrics", "-httpListenAddr=127.0.0.1:" + std::to_string(port_),
                               "-storageDataPath=" + dir_ + "/data", "-retentionPeriod=100y",
                               "-search.latencyOffset=0s", "-search.disableCache",
                               "-search.maxStalenessInterval=" + std::to_string(staleness_.count()) + "s",
                               "-loggerLevel=WARN"},
      dir_ + "/victoria-metrics-" + std::to_string(++incarnation) + ".log");
  paused_ = false;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (testing::http_request("GET", url_ + "/health", {}, 1s).status != 200) {
    if (!process_->running()) throw std::runtime_error("victoria-metrics exited at start: " + process_->log_tail());
    // The killed predecessor's port may linger for a moment.
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("victoria-metrics not healthy in 30 s: " + process_->log_tail());
    std::this_thread::sleep_for(50ms);
  }
}

void VmServer::kill() {
  if (!process_) return;
  resume();
  ::kill(process_->pid(), SIGKILL);
  process_.reset();  // reaps it
}

void VmServer::pause() {
  if (process_ && !paused_) {
    ::kill(process_->pid(), SIGSTOP);
    paused_ = true;
  }
}

void VmServer::resume() {
  if (process_ && paused_) {
    ::kill(process_->pid(), SIGCONT);
    paused_ = false;
  }
}

bool VmServer::push(const std::string& exposition, std::chrono::milliseconds timeout) {
  const auto r = testing::http_request("POST", url_ + "/api/v1/import/prometheus", exposition, timeout);
  if (r.status < 200 || r.status >= 300) return false;
  return testing::http_request("GET", url_ + "/internal/force_flush", {}, timeout).status == 200;
}

OperatorRun::OperatorRun(const std::vector<std::string>& args, const std::string& log_path)
    : process_(std::make_unique<testing::ChildProcess>(args, log_path)) {}

OperatorRun::~OperatorRun() {
  if (process_) process_->stop(10s);
}

void OperatorRun::kill() {
  if (!process_) return;
  ::kill(process_->pid(), SIGKILL);
  process_->stop(1s);  // reaps it
}

bool OperatorRun::running() { return process_ && process_->running(); }

std::string OperatorRun::log_tail() const { return process_ ? process_->log_tail(4000) : std::string(); }

}  // namespace dha::soak
