#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "dha/testing/real_kube_skip.hpp"
#include "dha/testing/test_cluster.hpp"

namespace dha::testing {

const char* to_string(KubeBackend backend) { return backend == KubeBackend::real ? "real" : "embedded"; }

KubeBackend kube_backend_from_environment() {
  const char* value = std::getenv("DHA_TEST_KUBE");
  const std::string v = value == nullptr ? "" : value;
  if (v.empty() || v == "embedded") return KubeBackend::embedded;
  if (v == "real") return KubeBackend::real;
  throw std::runtime_error("DHA_TEST_KUBE must be \"embedded\" or \"real\", got \"" + v + "\"");
}

std::string real_kube_unavailable_reason() {
  const char* path = std::getenv("DHA_KUBE_CONTROL_PLANE");
  if (path == nullptr || *path == '\0')
    return "DHA_KUBE_CONTROL_PLANE is not set: it names the dha-kube-control-plane binary "
           "(./scripts/test builds it; by hand: scripts/build-go-tool sdk/testing/controlplane . "
           "dha-kube-control-plane; DHA_REAL_KUBE_MAY_SKIP=1 turns this failure into a skip)";
  if (::access(path, X_OK) != 0) return std::string("DHA_KUBE_CONTROL_PLANE=") + path + " is not an executable file";
  return {};
}

bool running_in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

bool real_kube_may_be_skipped() {
  const char* may = std::getenv("DHA_REAL_KUBE_MAY_SKIP");
  return !running_in_ci() && may != nullptr && std::string(may) == "1";
}

Identity service_account(const std::string& namespace_name, const std::string& name) {
  return {"system:serviceaccount:" + namespace_name + ":" + name,
          {"system:serviceaccounts", "system:serviceaccounts:" + namespace_name},
          ""};
}

}  // namespace dha::testing
