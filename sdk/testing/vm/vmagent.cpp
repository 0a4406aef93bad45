#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "dha/testing/child_process.hpp"
#include "dha/testing/victoria_metrics.hpp"

namespace dha::testing {
namespace {

// YAML double-quoted scalar; test labels are plain, but keep the file well-formed regardless.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

VmAgent::VmAgent(const VictoriaMetrics& vm, const std::vector<Target>& targets, std::chrono::milliseconds interval,
                 std::string binary) {
  work_dir_ = make_temp_dir("dha-vmagent");
  const std::string config_path = work_dir_ + "/scrape.yaml";
  {
    std::ofstream config(config_path);
    const std::string every = std::to_string(interval.count()) + "ms";
    config << "global:\n  scrape_interval: " << every << "\n  scrape_timeout: " << every << "\nscrape_configs:\n";
    for (const Target& t : targets) {
      config << "- job_name: " << quoted(t.job + "/" + t.address) << "\n"
             << "  static_configs:\n  - targets: [" << quoted(t.address) << "]\n    labels:\n";
      // The job label is set explicitly so that several targets can share one job name.
      config << "      job: " << quoted(t.job) << "\n";
      for (const auto& [k, v] : t.labels) config << "      " << k << ": " << quoted(v) << "\n";
    }
  }
  const uint16_t port = free_loopback_port();
  try {
    process_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{binary, "-promscrape.config=" + config_path,
                                 "-remoteWrite.url=" + vm.url() + "/api/v1/write",
                                 "-remoteWrite.tmpDataPath=" + work_dir_ + "/queue", "-remoteWrite.flushInterval=200ms",
                                 "-httpListenAddr=127.0.0.1:" + std::to_string(port), "-loggerLevel=WARN"},
        work_dir_ + "/vmagent.log");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (http_request("GET", "http://127.0.0.1:" + std::to_string(port) + "/health", {}, std::chrono::seconds(1))
               .status != 200) {
      if (!process_->running()) throw std::runtime_error("vmagent exited during startup: " + process_->log_tail());
      if (std::chrono::steady_clock::now() > deadline) {
        throw std::runtime_error("vmagent did not become healthy: " + process_->log_tail());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  } catch (...) {
    process_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(work_dir_, ignored);
    throw;
  }
}

VmAgent::~VmAgent() {
  process_.reset();
  std::error_code ignored;
  std::filesystem::remove_all(work_dir_, ignored);
}

}  // namespace dha::testing
