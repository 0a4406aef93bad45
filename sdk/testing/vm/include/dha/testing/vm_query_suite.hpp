#pragma once

// Test kit (header-only, needs GoogleTest): the fixture for "my adapter's queries against a real
// VictoriaMetrics". One server per test suite, loaded once with the suite's series; value()
// renders a query template for the suite's target as the host does and returns its one value.
//
//   class MyQueries : public dha::testing::VmQuerySuite<MyQueries> {
//    public:
//     static std::string series(int64_t t1, int64_t t0);  // exposition text; t1 = 1 s ago, t0 = t1 - 60 s
//     static Target target() { return {"tenant-a", "orders", "mydb-orders"}; }
//   };
//   TEST_F(MyQueries, ReadsReplicasOnly) { EXPECT_DOUBLE_EQ(value(q.driver.at("ReadConnections")), 42); }

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "dha/testing/victoria_metrics.hpp"

namespace dha::testing {

template <class Derived>
class VmQuerySuite : public ::testing::Test {
 public:
  struct Target {
    std::string namespace_name;
    std::string name;
    std::string release;
  };

  static void SetUpTestSuite() {
    vm_ = std::make_unique<VictoriaMetrics>();
    // Two timestamps a minute apart, just in the past: enough for rate() over counters.
    const int64_t t1 = unix_millis_now() - 1000;
    vm_->import_prometheus(Derived::series(t1, t1 - 60000));
  }
  static void TearDownTestSuite() { vm_.reset(); }

 protected:
  static VictoriaMetrics& vm() { return *vm_; }
  // The value of `query_template` for Derived::target(); throws unless exactly one series answers.
  static double value(std::string_view query_template) {
    const Target t = Derived::target();
    return query_one_value(*vm_, query_template, t.namespace_name, t.name, t.release);
  }

 private:
  inline static std::unique_ptr<VictoriaMetrics> vm_;
};

}  // namespace dha::testing
