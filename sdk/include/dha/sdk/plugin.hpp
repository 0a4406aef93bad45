#pragma once

// The base classes a plugin inherits from. A plugin class:
//   - declares `static constexpr dha::sdk::PluginInfo info{...};` (its descriptor),
//   - has a constructor `(const dha::sdk::Host&, const dha::sdk::json::Value& config)`, where
//     config is the JSON object the host has already validated and defaulted against
//     `info.config_schema` (throw dha::sdk::Error(DHA_INVALID_ARGUMENT, ...) to reject it),
//   - inherits one or more of EngineAdapter, MetricSource, Gate, Actuator: its capabilities are
//     exactly the bases it has, worked out at compile time by export.hpp.
// Every capability method is const and may run on several host threads at once.

#include <vector>

#include "dha/sdk/actuator_types.hpp"
#include "dha/sdk/engine_types.hpp"
#include "dha/sdk/gate_types.hpp"
#include "dha/sdk/metrics_types.hpp"
#include "dha/sdk/object_view.hpp"
#include "dha/sdk/range_query_types.hpp"
#include "dha/sdk/workload_monitor.hpp"

namespace dha::sdk {

// Static facts about a plugin; becomes its dha_plugin_descriptor. All strings must be literals.
struct PluginInfo {
  const char* id;       // [a-z0-9][a-z0-9.-]*, unique across everything a host loads
  const char* name;     // human name
  const char* version;  // the plugin's own semantic version
  const char* vendor;
  const char* description;
  const char* config_schema = nullptr;  // {"keys": [...]} as in abi.h, or nullptr for none
};

// dha.engine/1
class EngineAdapter {
 public:
  virtual ~EngineAdapter() = default;
  virtual std::vector<TargetKind> targets() const = 0;
  // `target` is the object exactly as read from the API server.
  virtual Topology topology(const ObjectView& target) const = 0;
  virtual Queries queries(const QueryRequest& request) const = 0;
  // Default: the object is a cozystack WorkloadMonitor (see workload_monitor.hpp).
  virtual Health health(const HealthRequest& request) const { return read_workload_monitor_health(*request.object); }
};

// dha.metrics/1. Return every sample; throw Error with the typed status of ext/metrics.h.
class MetricSource {
 public:
  virtual ~MetricSource() = default;
  virtual Samples instant_query(const InstantQuery& query) const = 0;
  // Since ABI 1.1. Default: the source has no range queries (DHA_UNIMPLEMENTED). The query has
  // passed RangeQuery::check() when it arrives.
  virtual RangeResult range_query(const RangeQuery& query) const {
    (void)query;
    throw Error(DHA_UNIMPLEMENTED, "this metric source does not run range queries");
  }
};

// dha.gate/1
class Gate {
 public:
  virtual ~Gate() = default;
  virtual Verdict evaluate(const GateRequest& request) const = 0;
};

// dha.actuator/1
class Actuator {
 public:
  virtual ~Actuator() = default;
  virtual ActuatorPlan plan(const ActuatorRequest& request) const = 0;
};

}  // namespace dha::sdk
