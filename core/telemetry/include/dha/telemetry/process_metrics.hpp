#pragma once

// The process_* families of the Prometheus client libraries (CPU, memory, file descriptors,
// start time), read from /proc at every scrape, and a build-info gauge. Dashboards use them to
// tell a restart, a leak or fd exhaustion from an overloaded operator.

#include "dha/telemetry/registry.hpp"

#include <string>

namespace dha::telemetry {

// Registers the process families and a collector that refreshes them from /proc/self.
void register_process_metrics(Registry& registry);

// db_autoscaler_build_info{version, abi} 1.
void register_build_info(Registry& registry, const std::string& version, const std::string& abi);

}  // namespace dha::telemetry
