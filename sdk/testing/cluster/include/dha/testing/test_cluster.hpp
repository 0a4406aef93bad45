#pragma once
// One test fixture, two Kubernetes backends, like controller-runtime's envtest:
//   embedded  the in-process ApiServer of this kit (fast, fault injection, no RBAC);
//   real      etcd + kube-apiserver from their Go modules (dha-kube-control-plane, a child
//             process): real RBAC, validation, admission and apiextensions.
//
//   dha::testing::TestClusterOptions o;
//   o.identities["tenant"] = {"tenant-user", {}, ""};
//   o.crd_paths = {"charts/db-autoscaler/crds"};
//   auto cluster = dha::testing::start_test_cluster(o);   // DHA_TEST_KUBE picks the backend
//   kubectl --kubeconfig cluster->kubeconfig("tenant") get dha -A
//
// The real backend runs the binary named by DHA_KUBE_CONTROL_PLANE (scripts/test builds it with
// scripts/build-go-tool sdk/testing/controlplane . dha-kube-control-plane).

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dha/testing/api_server.hpp"

namespace dha::testing {

enum class KubeBackend { embedded, real };

// "embedded" or "real".
const char* to_string(KubeBackend backend);
// DHA_TEST_KUBE=embedded|real; embedded when unset. Throws std::runtime_error on another value.
KubeBackend kube_backend_from_environment();
// Why the real backend cannot start here ("" when it can): DHA_KUBE_CONTROL_PLANE unset or not
// an executable. Tests that need the real server fail with this under CI=true and may skip
// with it on a developer's machine (see real_kube_required_but_missing()).
std::string real_kube_unavailable_reason();
// True when CI=true: a missing real backend is then a failure, never a skip.
bool running_in_ci();

struct TestClusterOptions {
  std::optional<KubeBackend> backend;  // unset: kube_backend_from_environment()
  // Bearer-token identities by name, each with its own kubeconfig. "admin" (group
  // system:masters) is always there. A ServiceAccount is username
  // "system:serviceaccount:NS:NAME" with groups system:serviceaccounts[:NS] (service_account()).
  std::map<std::string, Identity> identities;
  // CRD files or directories of them, installed at start and waited for until Established.
  std::vector<std::string> crd_paths;
  // Only for the embedded backend: everything else ApiServer offers (webhook_services,
  // sar_allowed_users, watch_history...). tokens and crd_dirs are filled from the above.
  ApiServerOptions embedded;
  // Only for the real backend: extra kube-apiserver flags ("--flag=value").
  std::vector<std::string> real_apiserver_args;
  std::chrono::seconds start_timeout{180};
};

Identity service_account(const std::string& namespace_name, const std::string& name);

struct KubeResponse {
  long status = 0;  // 0 when no HTTP answer came (then `error` says why)
  std::string body;
  std::string error;
};

class TestCluster {
 public:
  virtual ~TestCluster() = default;
  virtual KubeBackend backend() const = 0;
  virtual std::string url() const = 0;     // https://127.0.0.1:PORT
  virtual std::string ca_pem() const = 0;  // the serving CA
  // The kubeconfig file of an identity (throws std::out_of_range for an unknown name).
  virtual std::string kubeconfig(const std::string& identity) const = 0;
  virtual std::string token(const std::string& identity) const = 0;
  // Installs CRDs from files or directories and returns once every one is Established.
  virtual void install_crds(const std::vector<std::string>& paths) = 0;
  // Requests served so far, oldest first, as the embedded server records them (method, path,
  // query, username, status, request body of writes, times). The real backend reads them from
  // kube-apiserver's audit log (requests by the API server itself are left out; a watch is
  // there from when its response started).
  virtual std::vector<AuditEntry> audit() const = 0;
  virtual void clear_audit() = 0;
  // The embedded server, for fault injection; nullptr on the real backend.
  virtual ApiServer* embedded_server() { return nullptr; }
  // Where logs and kubeconfigs are (the real backend's log is <dir>/control-plane.log).
  virtual std::string work_dir() const = 0;

  // One request as an identity: path like "/api/v1/namespaces", body sent when non-empty.
  KubeResponse request(const std::string& identity, const std::string& method, const std::string& path,
                       const std::string& body = {}, const std::string& content_type = "application/json",
                       std::chrono::milliseconds timeout = std::chrono::seconds(30)) const;
};

// Each non-empty document of a (multi-document) YAML text as JSON, typed as kube-apiserver
// reads YAML: quoted scalars stay strings, plain ones become numbers, booleans or null.
// Throws std::runtime_error on invalid YAML.
std::vector<std::string> yaml_documents_as_json(const std::string& yaml);

// Starts the chosen backend; throws std::runtime_error with the reason (and the control plane's
// log tail) when it cannot.
std::unique_ptr<TestCluster> start_test_cluster(TestClusterOptions options = {});

// One cluster for every test of a process that asks for it: the first call starts it
// (start_test_cluster), later calls return the same one and ignore their options; it stops
// when the process exits. A real kube-apiserver takes ~10 s to start on a busy machine, so a
// suite registered as one process pays that once instead of per test. Tests sharing it keep out
// of each other's way themselves (their own names or namespaces, or cleaning up before each).
TestCluster& process_test_cluster(const TestClusterOptions& options);
// True once process_test_cluster() started one (a test can tell it is not the first).
bool process_test_cluster_started();

}  // namespace dha::testing
