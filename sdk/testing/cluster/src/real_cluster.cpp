#include <rapidjson/document.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "cluster_backends.hpp"
#include "dha/testing/child_process.hpp"

namespace dha::testing::detail {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string identity_flag(const std::string& name, const Identity& id) {
  std::string flag = "--identity=" + name + "=" + id.username;
  for (const auto& g : id.groups) flag += "," + g;
  return flag;
}

// etcd and kube-apiserver in one child process (sdk/testing/controlplane), started with one
// token per identity; it writes its ready JSON (URL, CA, tokens, kubeconfigs, audit log) to a file.
class RealCluster final : public TestCluster {
 public:
  explicit RealCluster(const TestClusterOptions& options) : dir_(make_temp_dir("dha-kube-real-")) {
    const std::string reason = real_kube_unavailable_reason();
    if (!reason.empty()) throw std::runtime_error("the real Kubernetes backend cannot start: " + reason);
    const std::string ready_file = dir_ + "/ready.json";
    std::vector<std::string> argv{std::getenv("DHA_KUBE_CONTROL_PLANE"), "--data-dir=" + dir_ + "/kube",
                                  "--ready-file=" + ready_file,
                                  "--ready-timeout=" + std::to_string(options.start_timeout.count()) + "s"};
    for (const auto& [name, id] : options.identities)
      if (name != "admin") argv.push_back(identity_flag(name, id));
    for (const auto& arg : options.real_apiserver_args) argv.push_back("--apiserver-arg=" + arg);
    child_ = std::make_unique<ChildProcess>(argv, dir_ + "/control-plane.log");
    const auto deadline = std::chrono::steady_clock::now() + options.start_timeout + std::chrono::seconds(10);
    while (!std::filesystem::exists(ready_file)) {
      if (!child_->running())
        throw std::runtime_error("dha-kube-control-plane exited before it was ready:\n" + child_->log_tail());
      if (std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error("dha-kube-control-plane not ready in time:\n" + child_->log_tail());
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    rapidjson::Document ready;
    ready.Parse(slurp(ready_file).c_str());
    if (!ready.IsObject()) throw std::runtime_error("unreadable " + ready_file);
    url_ = ready["url"].GetString();
    ca_pem_ = slurp(ready["caFile"].GetString());
    audit_log_ = ready["auditLog"].GetString();
    for (const auto& m : ready["identities"].GetObject()) {
      tokens_[m.name.GetString()] = m.value["token"].GetString();
      kubeconfigs_[m.name.GetString()] = m.value["kubeconfig"].GetString();
    }
  }
  ~RealCluster() override {
    if (child_) child_->stop(std::chrono::seconds(30));
    if (std::getenv("DHA_KEEP_TEST_DIRS") == nullptr) std::filesystem::remove_all(dir_);
  }

  KubeBackend backend() const override { return KubeBackend::real; }
  std::string url() const override { return url_; }
  std::string ca_pem() const override { return ca_pem_; }
  std::string kubeconfig(const std::string& identity) const override { return kubeconfigs_.at(identity); }
  std::string token(const std::string& identity) const override { return tokens_.at(identity); }
  void install_crds(const std::vector<std::string>& paths) override {
    install_crds_over_http(*this, read_crd_files(paths), std::chrono::seconds(60));
  }
  std::vector<AuditEntry> audit() const override {
    auto all = read_kube_audit_log(audit_log_);
    const auto skip = std::min(all.size(), audit_skip_);
    return {all.begin() + static_cast<std::ptrdiff_t>(skip), all.end()};
  }
  void clear_audit() override { audit_skip_ = read_kube_audit_log(audit_log_).size(); }
  std::string work_dir() const override { return dir_; }

 private:
  std::string dir_;
  std::unique_ptr<ChildProcess> child_;
  std::string url_, ca_pem_, audit_log_;
  std::map<std::string, std::string> tokens_, kubeconfigs_;
  std::size_t audit_skip_ = 0;
};

}  // namespace

std::unique_ptr<TestCluster> start_real_cluster(const TestClusterOptions& options) {
  return std::make_unique<RealCluster>(options);
}

}  // namespace dha::testing::detail
