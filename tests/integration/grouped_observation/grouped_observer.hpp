#pragma once

// The operator's observe stage in process, with grouped metric queries or without, for the
// grouped-observation tests: one engine plugin and metrics-vm, no API server (the namespace and
// health reads fail, noted as problems and health causes, the same either way), metrics from a
// real VictoriaMetrics. expect_same() compares two observations field by field.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "dha/kube/client.hpp"
#include "dha/kube/clock.hpp"
#include "dha/kube/controller.hpp"
#include "dha/kube/json.hpp"
#include "dha/model/spec.hpp"
#include "dha/telemetry/registry.hpp"
#include "host/cached_reader.hpp"
#include "host/plugin_set.hpp"
#include "host/self_metrics.hpp"
#include "pipeline/observe.hpp"
#include "pipeline/target.hpp"

namespace grouped_observation {

// The pipeline's wall clock, set by the test: which cycle a reconcile falls in.
class TestClock final : public dha::kube::Clock {
 public:
  dha::kube::TimePoint now() const override { return dha::kube::TimePoint{} + std::chrono::seconds(seconds); }
  std::chrono::system_clock::time_point wall_now() const override {
    return std::chrono::system_clock::time_point{} + std::chrono::seconds(seconds);
  }
  std::int64_t seconds = 1'700'000'000;
};

// One DHA's target: its kind and the object the target watch would hold.
struct TargetObject {
  std::string ns, name;
  std::string api_group, kind;
  std::string object_json;  // apiVersion, kind, metadata and spec
};

// A cozystack Application (apps.cozystack.io/v1alpha1) of `kind` with `replicas`.
inline TargetObject cozystack_application(const std::string& kind, const std::string& ns, const std::string& name,
                                          int replicas = 3) {
  return {ns, name, "apps.cozystack.io", kind,
          R"({"apiVersion": "apps.cozystack.io/v1alpha1", "kind": ")" + kind + R"(", "metadata": {"name": ")" + name +
              R"(", "namespace": ")" + ns + R"("}, "spec": {"replicas": )" + std::to_string(replicas) + "}}"};
}

class Observer {
 public:
  // `plugin_dir`/`plugin_id`: the engine plugin under test, loaded next to metrics-vm.
  Observer(const std::string& plugin_dir, const std::string& plugin_id, const std::string& metrics_vm_dir,
           const std::string& vm_url, bool grouped, std::int64_t max_age_seconds, const TestClock& clock)
      : plugins_(dha::op::PluginSet::load({{plugin_dir, metrics_vm_dir},
                                           {plugin_id, "metrics-vm"},
                                           R"({"metrics-vm": {"url": ")" + vm_url + R"(", "timeoutSeconds": 3}})"})),
        client_(unreachable_api()),
        metrics_(registry_),
        reader_(client_, metrics_) {
    dha::pipeline::ObserveOptions options;
    options.query_timeout_seconds = 3;
    options.grouped_queries = grouped;
    options.grouped_answer_seconds = max_age_seconds;
    options.clock = &clock;
    observe_ = std::make_unique<dha::pipeline::Observe>(
        reader_, *plugins_, options,
        [this](const std::string& scope, const std::string& outcome) { metrics_.count_metric_query(scope, outcome); });
  }

  // The signals of a DHA on `t` with both driver metrics (averageValue targets); `behavior` is its
  // spec.behavior ("" = the model's defaults, the Windowed policy).
  dha::pipeline::Signals signals(const TargetObject& t, const std::string& behavior = "") const {
    const auto spec = dha::model::parse_spec(dha::kube::parse_json(
        R"({"targetRef": {"apiGroup": ")" + t.api_group + R"(", "kind": ")" + t.kind + R"(", "name": ")" + t.name +
        R"("}, "minReplicas": 2, "maxReplicas": 6,)" + (behavior.empty() ? "" : R"("behavior": )" + behavior + ",") +
        R"(
            "metrics": [{"type": "ReadConnections", "target": {"averageValue": "100"}},
                        {"type": "ReadCPUUtilization", "target": {"averageValue": "500"}}]})"));
    auto located = dha::pipeline::locate_target(*plugins_, *spec.target_ref, t.ns);
    auto& target = std::get<dha::pipeline::Target>(located);
    target.object = std::make_shared<const rapidjson::Document>(dha::kube::parse_json(t.object_json));
    const auto topology = std::get<dha::sdk::Topology>(dha::pipeline::read_topology(target));
    return observe_->signals({t.ns, t.name + "-dha", spec, *target.engine, *target.object, topology});
  }

  // Queries sent to the metric source of one shape ("grouped" or "target"), from /metrics.
  double queries_sent(const std::string& shape) const {
    std::istringstream lines(registry_.expose());
    double total = 0;
    const std::string prefix = "db_autoscaler_metric_queries_total{shape=\"" + shape + "\"";
    for (std::string line; std::getline(lines, line);)
      if (line.rfind(prefix, 0) == 0) total += std::stod(line.substr(line.rfind(' ') + 1));
    return total;
  }

 private:
  static dha::kube::Config unreachable_api() {
    dha::kube::Config config;
    config.server = "http://127.0.0.1:1";
    return config;
  }

  std::unique_ptr<dha::op::PluginSet> plugins_;
  dha::kube::Client client_;
  dha::telemetry::Registry registry_;
  dha::op::SelfMetrics metrics_;
  dha::op::CachedReader reader_;
  std::unique_ptr<dha::pipeline::Observe> observe_;
};

inline std::string optional_text(const std::optional<double>& v) {
  return v ? std::to_string(*v) : std::string("unavailable");
}

// Causes without the connect time curl puts in a transport error ("after 6 ms"): the one thing
// two reads of an unreachable server do not share.
inline std::vector<std::string> without_timings(std::vector<std::string> causes) {
  static const std::regex kTiming(R"(after [0-9]+ ms)");
  for (auto& c : causes) c = std::regex_replace(c, kTiming, "after _ ms");
  return causes;
}

// Field by field, so that a difference names the field.
inline void expect_same(const dha::pipeline::Signals& grouped, const dha::pipeline::Signals& own,
                        const std::string& which) {
  SCOPED_TRACE(which);
  const auto& g = grouped.observation;
  const auto& o = own.observation;
  EXPECT_EQ(g.current_replicas, o.current_replicas);
  EXPECT_EQ(g.primary_count, o.primary_count);
  EXPECT_EQ(g.quorum_floor, o.quorum_floor);
  EXPECT_EQ(g.health_known, o.health_known);
  EXPECT_EQ(g.operational, o.operational);
  EXPECT_EQ(g.available_replicas, o.available_replicas);
  ASSERT_EQ(g.metrics.size(), o.metrics.size());
  for (std::size_t i = 0; i < g.metrics.size(); ++i) {
    EXPECT_EQ(g.metrics[i].type, o.metrics[i].type);
    EXPECT_EQ(optional_text(g.metrics[i].value), optional_text(o.metrics[i].value)) << g.metrics[i].type;
  }
  EXPECT_EQ(optional_text(g.lag_seconds), optional_text(o.lag_seconds)) << "lag";
  EXPECT_EQ(optional_text(g.write_rate), optional_text(o.write_rate)) << "write rate";
  EXPECT_EQ(optional_text(g.ready_estimate_seconds), optional_text(o.ready_estimate_seconds)) << "ready estimate";
  EXPECT_EQ(g.quota_max_replicas, o.quota_max_replicas);
  EXPECT_EQ(g.forecast, o.forecast);
  EXPECT_EQ(g.forecast_missing, o.forecast_missing);
  EXPECT_EQ(without_timings(grouped.metric_causes), without_timings(own.metric_causes));
  EXPECT_EQ(without_timings(grouped.health_causes), without_timings(own.health_causes));
  EXPECT_EQ(without_timings(grouped.notes), without_timings(own.notes));
}

inline std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace grouped_observation
