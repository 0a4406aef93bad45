#include "samples.hpp"

#include <fmt/format.h>

namespace dha::plugin_check {

std::string sample_target(const sdk::TargetKind& kind, bool with_replicas) {
  const std::string spec = with_replicas ? R"({"replicas": 3, "instances": 3})" : "{}";
  return fmt::format(R"({{"apiVersion": "{}/{}", "kind": "{}", "metadata": {{"name": "db", "namespace": "{}",
      "uid": "00000000-0000-0000-0000-000000000001", "resourceVersion": "1", "generation": 1}}, "spec": {}}})",
                     kind.api_group, kind.version, kind.kind, kNamespace, spec);
}

sdk::QueryRequest sample_query_request(const sdk::TargetKind& kind, const std::string& name,
                                       const std::string& release) {
  return {kNamespace, name, release, kind.api_group, kind.kind, {"ReadConnections", "ReadCPUUtilization"}};
}

std::string sample_health_request(const std::string& target, const sdk::Topology& topology) {
  const std::string object =
      topology.health.source == sdk::HealthSource::Source::kTarget
          ? target
          : fmt::format(R"({{"apiVersion": "{}/{}", "kind": "{}", "metadata": {{"name": "{}", "namespace": "{}"}}}})",
                        topology.health.api_group, topology.health.version, topology.health.kind, topology.health.name,
                        kNamespace);
  return fmt::format(R"({{"target": {}, "object": {}}})", target, object);
}

std::string sample_gate_request() {
  return fmt::format(
      R"({{"now": 10000, "dha": {{"namespace": "{}", "name": "db"}}, "spec": {{"minReplicas": 2, "maxReplicas": 6,
        "metrics": [{{"type": "ReadConnections", "target": {{"averageValue": "150"}}}}]}},
        "observation": {{"currentReplicas": 3}}, "state": {{}}, "proposal": {{"kind": "Scale", "currentReplicas": 3, "replicas": 4}}}})",
      kNamespace);
}

std::string sample_plan_request() {
  return fmt::format(
      R"({{"action": "scale", "dha": {{"namespace": "{0}", "name": "db"}}, "target": {{"apiVersion": "example.com/v1",
        "kind": "Widget", "metadata": {{"name": "db", "namespace": "{0}"}}, "spec": {{"replicas": 3}}}},
        "replicasPath": "spec.replicas", "currentReplicas": 3, "desiredReplicas": 4}})",
      kNamespace);
}

const std::vector<std::string>& malformed_inputs() {
  static const std::vector<std::string> garbage{"", "{not json", "[]", "null", "42", R"({"unexpected": true})"};
  return garbage;
}

}  // namespace dha::plugin_check
