#pragma once

// The series a CloudNativePG cluster and kube-state-metrics would expose for one simulated
// Postgres application, in Prometheus exposition format (with millisecond timestamps), ready for
// VictoriaMetrics' /api/v1/import/prometheus. The label sets are the ones plugins/postgres joins
// on (plugins/README.md):
//
//   cnpg_backends_total{namespace, pod, datname, usename, application_name, state="active"|"idle"}
//   kube_pod_labels{namespace, pod, label_cnpg_io_cluster, label_cnpg_io_instance_name,
//                   label_cnpg_io_instance_role="primary"|"replica",
//                   label_apps_cozystack_io_application_name, label_apps_cozystack_io_application_kind}
//   cnpg_pg_replication_lag{namespace, pod}                          (seconds, every instance)
//   cnpg_collector_wal_bytes{namespace, pod, stats_reset}             (counter, on the primary: the
//                                                                     WAL it wrote, as pg_stat_wal)
//   cnpg_pg_stat_replication_sent_diff_bytes{namespace, pod}         (the same counter, on the
//                                                                     primary; kept for adapters
//                                                                     written against it. The real
//                                                                     series is a gauge, the WAL
//                                                                     not yet sent to a standby:
//                                                                     not write activity)
//   container_cpu_usage_seconds_total{namespace, pod, container="postgres"}  (counter, if the
//                                                                     curve has ReadCPUUtilization)
//   cnpg_pg_database_size_bytes{namespace, pod, datname="app"}       (0.5 GiB, every instance)
//
// The load of the curve is spread evenly over the AVAILABLE read replicas; with none available it
// lands on the primary, where the replica-role join does not see it. Provisioning pods already have
// their kube_pod_labels (kube-state-metrics sees pending pods) but no engine series yet.

#include <cstdint>
#include <string>
#include <vector>

#include "dha/testing/world/engine_exporter.hpp"

namespace dha::testing::world {

// The exporters of EngineDescription::postgres(): an EngineExporter with the built-in description.
class CnpgExporter {
 public:
  CnpgExporter(std::string namespace_name, std::string app_name);

  // One scrape: `elapsed_seconds` since the previous scrape advances the counters.
  std::string scrape(const std::vector<SimulatedDatabase::Instance>& instances, const LoadPoint& load,
                     const std::vector<std::string>& removed_pods, double elapsed_seconds, int64_t timestamp_ms) {
    return exporter_.scrape(instances, load, removed_pods, elapsed_seconds, timestamp_ms);
  }

  // Idle backends every available instance reports; only state="active" is load.
  static constexpr double kIdleBackends = 3;

 private:
  EngineExporter exporter_;
};

}  // namespace dha::testing::world
