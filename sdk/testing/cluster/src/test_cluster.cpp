#include <memory>

#include "cluster_backends.hpp"
#include "kube_request.hpp"

namespace dha::testing {

KubeResponse TestCluster::request(const std::string& identity, const std::string& method, const std::string& path,
                                  const std::string& body, const std::string& content_type,
                                  std::chrono::milliseconds timeout) const {
  return detail::kube_request(url() + path, ca_pem(), token(identity), method, body, content_type, timeout);
}

std::unique_ptr<TestCluster> start_test_cluster(TestClusterOptions options) {
  if (options.identities.count("admin") == 0) options.identities["admin"] = {"admin", {"system:masters"}, ""};
  const KubeBackend backend = options.backend.value_or(kube_backend_from_environment());
  auto cluster =
      backend == KubeBackend::real ? detail::start_real_cluster(options) : detail::start_embedded_cluster(options);
  if (!options.crd_paths.empty()) cluster->install_crds(options.crd_paths);
  return cluster;
}

namespace {

std::unique_ptr<TestCluster>& process_cluster() {
  // Destroyed after main() returns: the real backend's child process is stopped then.
  static std::unique_ptr<TestCluster> cluster;
  return cluster;
}

}  // namespace

TestCluster& process_test_cluster(const TestClusterOptions& options) {
  auto& cluster = process_cluster();
  if (!cluster) cluster = start_test_cluster(options);
  return *cluster;
}

bool process_test_cluster_started() { return process_cluster() != nullptr; }

}  // namespace dha::testing
