// The built-in engine: a Cozystack Postgres application as CloudNativePG and kube-state-metrics
// run it. Written in the engine description format so that Postgres goes through the same
// simulation as any engine an author describes; the label sets are the ones plugins/postgres
// joins on (cnpg_exporter.hpp lists them).
#include "dha/testing/world/engine_description.hpp"

namespace dha::testing::world {

std::string_view EngineDescription::postgres_yaml() {
  return R"(# Cozystack Postgres run by CloudNativePG, with the CNPG exporter and kube-state-metrics.
kind: Postgres
group: apps.cozystack.io
version: v1alpha1
plural: postgreses
replicas: {path: spec.replicas, default: 2}   # the cozystack postgres chart's default
pods: postgres-${app}
roles: {primary: primary, replica: replica}
status: {readyCondition: true}
health:
  workloadMonitor: {name: "postgres-${app}", kind: postgres, minReplicas: 1}
series:
- metric: kube_pod_labels          # kube-state-metrics sees pods while they provision
  pods: all
  value: 1
  labels:
    namespace: ${namespace}
    pod: ${pod}
    label_cnpg_io_cluster: postgres-${app}
    label_cnpg_io_instance_name: ${pod}
    label_cnpg_io_instance_role: ${role}
    label_apps_cozystack_io_application_name: ${app}
    label_apps_cozystack_io_application_kind: Postgres
- metric: cnpg_backends_total
  value: readConnections
  labels: {namespace: "${namespace}", pod: "${pod}", datname: app, usename: app, application_name: "", state: active}
- metric: cnpg_backends_total
  value: 3                         # idle backends: not load
  labels: {namespace: "${namespace}", pod: "${pod}", datname: app, usename: app, application_name: "", state: idle}
- metric: cnpg_pg_replication_lag
  value: lagSeconds
  labels: {namespace: "${namespace}", pod: "${pod}"}
- metric: cnpg_collector_wal_bytes   # pg_stat_wal.wal_bytes: the WAL the primary wrote
  pods: primary
  value: writtenBytes
  labels: {namespace: "${namespace}", pod: "${pod}", stats_reset: "2026-01-01 00:00:00+00"}
- metric: cnpg_pg_stat_replication_sent_diff_bytes   # kept for adapters that read it; see the header
  pods: primary
  value: writtenBytes
  labels: {namespace: "${namespace}", pod: "${pod}"}
- metric: container_cpu_usage_seconds_total
  value: readCpuSeconds
  labels: {namespace: "${namespace}", pod: "${pod}", container: postgres}
- metric: cnpg_pg_database_size_bytes  # CNPG's default pg_database query, per database
  value: 536870912                     # 0.5 GiB: what a new instance clones
  labels: {namespace: "${namespace}", pod: "${pod}", datname: app}
)";
}

const EngineDescription& EngineDescription::postgres() {
  static const EngineDescription description = parse(postgres_yaml(), "the built-in Postgres engine");
  return description;
}

}  // namespace dha::testing::world
