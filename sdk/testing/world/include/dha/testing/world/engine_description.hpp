#pragma once

// What the world simulator needs to know to play one engine's operator and exporters: the custom
// resource it watches, where that resource keeps its replica count, which status and health
// objects its operator maintains, and the series its exporters publish. Read from YAML (or JSON,
// which is YAML too), so a plugin author describes a new engine without writing code:
//
//   kind: AcmeDB                      # the custom resource the engine operator watches
//   group: db.example.com
//   version: v1
//   plural: acmedbs
//   replicas: {path: spec.replicas, default: 3}    # default: when the object leaves it out
//   pods: acmedb-${app}               # instance pods are <pods>-1, <pods>-2, ...; -1 is the primary
//   roles: {primary: primary, replica: replica}    # what ${role} becomes in labels
//   status:                           # optional: what the operator reports on the object itself
//     availablePath: status.availableReplicas      #   available instances
//     readyCondition: true            #   status.conditions[type=Ready]
//     fields:                         #   any other status field, under status.:
//       topology.readyNodes: available    #   available | instances | ready (a boolean) | a constant
//       phase: Running
//   health:                           # optional: a cozystack WorkloadMonitor kept in step
//     workloadMonitor: {name: acmedb-${app}, minReplicas: 1}
//   series:                           # one exporter series per instance pod and entry
//   - metric: acmedb_client_connections
//     labels: {namespace: "${namespace}", cluster: "${app}", pod: "${pod}", role: "${role}"}
//     value: readConnections          # see SeriesValue
//     pods: available                 # all | available | primary | replicas (default available)
//
// Label values may use ${namespace}, ${app} (the object's name), ${pod} and ${role}; `pods` may
// use ${app}. Bad input throws std::invalid_argument naming the source and the key.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dha::testing::world {

// What one series reports for one pod, from the load curve at that moment.
enum class SeriesValue {
  kConstant,         // `value: <number>`, on every selected pod
  kReadConnections,  // the curve's ReadConnections spread evenly over the pods that take reads
                     // (the available read replicas, or the primary when none is available); 0 on
                     // the others
  kReadCpuSeconds,   // counter: CPU seconds of the same share of ReadCPUUtilization (left out
                     // while the curve has no ReadCPUUtilization)
  kLagSeconds,       // the curve's lagSeconds on replicas, 0 on the primary
  kWrittenBytes,     // counter: bytes written to the application (writeRate times elapsed time)
};

enum class PodSelection { kAll, kAvailable, kPrimary, kReplicas };

struct SeriesDescription {
  std::string metric;
  std::vector<std::pair<std::string, std::string>> labels;  // in the order written
  SeriesValue value = SeriesValue::kConstant;
  double constant = 0;
  PodSelection pods = PodSelection::kAvailable;
};

struct WorkloadMonitorDescription {
  std::string name;  // may use ${app}
  std::string kind;  // spec.kind and spec.type of the monitor (default: the kind in lower case)
  int min_replicas = 1;
};

// A status field the simulated operator keeps (`status.fields`): where, and what it holds.
struct StatusField {
  enum class Source { kAvailable, kInstances, kReady, kConstant };
  std::string path;  // dotted, under status. ("status.topology.readyNodes")
  Source source = Source::kConstant;
  std::string constant;  // kConstant: the YAML scalar as written
  bool constant_is_number = false;
};

struct EngineDescription {
  std::string kind, group, version, plural;
  std::string replicas_path = "spec.replicas";
  int default_replicas = 1;
  std::string pods;  // pod name prefix, may use ${app}
  std::string primary_role = "primary", replica_role = "replica";
  std::optional<std::string> available_path;  // under status.
  bool ready_condition = false;
  std::vector<StatusField> status_fields;
  std::optional<WorkloadMonitorDescription> workload_monitor;
  std::vector<SeriesDescription> series;

  static EngineDescription parse(std::string_view yaml, const std::string& source);
  static EngineDescription read_file(const std::string& path);
  // The Cozystack Postgres application as CloudNativePG runs it (see cnpg_exporter.hpp): what
  // dha-world-sim plays without --engine. Written in the format above.
  static const EngineDescription& postgres();
  static std::string_view postgres_yaml();

  // "/apis/<group>/<version>[/namespaces/<ns>]/<plural>"
  std::string collection_path(const std::string& namespace_name) const;
};

// `text` with ${app} (and ${namespace}, ${pod}, ${role} when given) replaced.
std::string fill_placeholders(const std::string& text, const std::string& namespace_name, const std::string& app,
                              const std::string& pod = "", const std::string& role = "");

}  // namespace dha::testing::world
