#include <filesystem>

#include "cluster_backends.hpp"
#include "dha/testing/child_process.hpp"

namespace dha::testing::detail {
namespace {

class EmbeddedCluster final : public TestCluster {
 public:
  explicit EmbeddedCluster(const TestClusterOptions& options) : dir_(make_temp_dir("dha-cluster-")) {
    ApiServerOptions o = options.embedded;
    o.tls = true;  // kubectl sends bearer tokens only over TLS
    for (const auto& [name, id] : options.identities) {
      tokens_[name] = name + "-token";
      Identity with_uid = id;
      if (with_uid.uid.empty()) with_uid.uid = "uid-" + name;
      o.tokens[tokens_[name]] = with_uid;
    }
    server_ = std::make_unique<ApiServer>(o);
    server_->start();
    for (const auto& [name, token] : tokens_) server_->write_kubeconfig(kubeconfig(name), token);
  }
  ~EmbeddedCluster() override {
    server_.reset();
    if (std::getenv("DHA_KEEP_TEST_DIRS") == nullptr) std::filesystem::remove_all(dir_);
  }

  KubeBackend backend() const override { return KubeBackend::embedded; }
  std::string url() const override { return server_->url(); }
  std::string ca_pem() const override { return server_->ca_pem(); }
  std::string kubeconfig(const std::string& identity) const override {
    tokens_.at(identity);
    return dir_ + "/kubeconfig-" + identity;
  }
  std::string token(const std::string& identity) const override { return tokens_.at(identity); }
  void install_crds(const std::vector<std::string>& paths) override {
    for (const auto& file : read_crd_files(paths)) server_->register_crd(file.text);
  }
  std::vector<AuditEntry> audit() const override { return server_->audit(); }
  void clear_audit() override { server_->clear_audit(); }
  ApiServer* embedded_server() override { return server_.get(); }
  std::string work_dir() const override { return dir_; }

 private:
  std::string dir_;
  std::map<std::string, std::string> tokens_;
  std::unique_ptr<ApiServer> server_;
};

}  // namespace

std::unique_ptr<TestCluster> start_embedded_cluster(const TestClusterOptions& options) {
  return std::make_unique<EmbeddedCluster>(options);
}

}  // namespace dha::testing::detail
