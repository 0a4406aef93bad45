#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dha/testing/test_cluster.hpp"

namespace dha::testing::detail {

std::unique_ptr<TestCluster> start_embedded_cluster(const TestClusterOptions& options);
std::unique_ptr<TestCluster> start_real_cluster(const TestClusterOptions& options);

// Every CRD file a list of files and directories names (directories: their *.yaml, *.yml and
// *.json, sorted), read whole; throws std::runtime_error for a path that does not exist.
struct CrdFile {
  std::string path;
  std::string text;
};
std::vector<CrdFile> read_crd_files(const std::vector<std::string>& paths);

// Creates (or replaces) the CRDs of `files` on a real server as `cluster`'s admin and waits
// until each is Established; throws with the server's answer when one is refused.
void install_crds_over_http(const TestCluster& cluster, const std::vector<CrdFile>& files,
                            std::chrono::seconds timeout);

// kube-apiserver's JSON audit log as AuditEntry, oldest first (see TestCluster::audit()).
std::vector<AuditEntry> read_kube_audit_log(const std::string& path);

}  // namespace dha::testing::detail
