#pragma once

// The servers the world simulator's integration suites run against: one embedded API server
// (serving the CRD directories the suite names) and one VictoriaMetrics per suite, and a fresh
// namespace per test, named after the test, so the suite's servers can be shared.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

#include "dha/testing/api_server.hpp"
#include "dha/testing/victoria_metrics.hpp"
#include "dha/testing/world/kube_rest.hpp"

namespace dha::testing::world {

// `Suite` only gives each suite its own servers (static members per instantiation).
template <typename Suite>
class WorldServers : public ::testing::Test {
 protected:
  static void start_servers(std::vector<std::string> crd_dirs) {
    ApiServerOptions options;
    options.crd_dirs = std::move(crd_dirs);
    api_ = new ApiServer(options);
    api_->start();
    vm_ = new VictoriaMetrics();
    kubeconfig_ = std::filesystem::temp_directory_path() /
                  ("world-test-kubeconfig-" + std::to_string(getpid()) + "-" + typeid(Suite).name());
    api_->write_kubeconfig(kubeconfig_);
  }
  static void TearDownTestSuite() {
    delete vm_;
    delete api_;
    std::filesystem::remove(kubeconfig_);
  }

  void SetUp() override {
    ns_ = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : ns_) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    kube_ = std::make_unique<KubeRest>(KubeEndpoint::from_kubeconfig(kubeconfig_));
    const auto r = kube_->create("/api/v1/namespaces",
                                 R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + ns_ + "\"}}");
    ASSERT_EQ(r.status, 201) << r.body;
  }

  // Polls until the single value of `promql` is within `tolerance` of `expected` (imports become
  // searchable a moment after they are flushed); returns the last value seen.
  double eventually(const std::string& promql, double expected, double tolerance = 1e-6) {
    using namespace std::chrono_literals;
    double last = NAN;
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
      const auto v = vm_->query_vector(promql);
      if (v.size() == 1) {
        last = v[0].value;
        if (std::fabs(last - expected) <= tolerance) return last;
      }
      std::this_thread::sleep_for(100ms);
    }
    ADD_FAILURE() << promql << " = " << last << ", expected " << expected;
    return last;
  }

  static inline ApiServer* api_ = nullptr;
  static inline VictoriaMetrics* vm_ = nullptr;
  static inline std::string kubeconfig_;
  std::string ns_;
  std::unique_ptr<KubeRest> kube_;
  std::ostringstream log_;
};

}  // namespace dha::testing::world
