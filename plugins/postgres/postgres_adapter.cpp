#include "postgres_adapter.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "cnpg_cluster_health.hpp"

namespace dha::plugins {
namespace {

namespace json = sdk::json;
namespace values = sdk::values;

constexpr std::string_view kAppsGroup = "apps.cozystack.io";
constexpr std::string_view kCnpgGroup = "postgresql.cnpg.io";

bool is_cnpg_cluster(std::string_view api_group, std::string_view kind) {
  return api_group == kCnpgGroup && kind == "Cluster";
}

std::string_view group_of(std::string_view api_version) {
  const size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view{} : api_version.substr(0, slash);
}

// CNPG needs maxSyncReplicas synchronous standbys, so fewer than maxSyncReplicas + 1 instances
// stall writes that wait for them. minSyncReplicas <= maxSyncReplicas is enforced by CNPG's
// webhook, so the max covers both. The newer spec.postgresql.synchronous.number counts the same
// thing and wins when larger.
int64_t cnpg_quorum_floor(int32_t max_sync, int32_t synchronous_number) {
  const int64_t standbys = std::max<int64_t>({0, max_sync, synchronous_number});
  return standbys + 1;
}

// The kube_pod_labels label that names the target a pod belongs to.
std::string_view name_label(bool cnpg_cluster) {
  return cnpg_cluster ? "label_cnpg_io_cluster" : "label_apps_cozystack_io_application_name";
}

// `* on(namespace,pod) group_left() kube_pod_labels{...}` restricted to one instance role of the
// target; grouped: of every target of the kind in the namespace, its name label carried over to
// aggregate by.
std::string role_join(bool cnpg_cluster, std::string_view role, bool grouped) {
  const std::string label(name_label(cnpg_cluster));
  std::string join =
      " * on(namespace,pod) group_left(" + (grouped ? label : "") + R"() kube_pod_labels{namespace="${namespace}", )";
  if (!grouped) join += label + R"(="${name}", )";
  if (!cnpg_cluster) join += R"(label_apps_cozystack_io_application_kind="Postgres", )";
  join += R"(label_cnpg_io_instance_role=")" + std::string(role) + "\"}";
  return join;
}

// The per-target queries, or (grouped) the same for every target of the kind at once.
struct Shapes {
  std::string connections, cpu, lag, writes;
};

Shapes shapes(bool cnpg, bool grouped) {
  const std::string by = grouped ? " by (" + std::string(name_label(cnpg)) + ")" : "";
  const std::string replicas = role_join(cnpg, "replica", grouped);
  return {"sum" + by + R"(( cnpg_backends_total{namespace="${namespace}", state="active"})" + replicas + " )",
          "sum" + by +
              R"(( rate(container_cpu_usage_seconds_total{namespace="${namespace}", container="postgres"}[5m]))" +
              replicas + " ) * 1000",
          "max" + by + R"(( cnpg_pg_replication_lag{namespace="${namespace}"})" + replicas + " )",
          // Writes: the WAL the primary generates, in bytes per second. CloudNativePG's exporter
          // publishes pg_stat_wal.wal_bytes as cnpg_collector_wal_bytes, a running total (labelled
          // with the time its statistics were last reset, so a reset starts a new series). Not
          // cnpg_pg_stat_replication_sent_diff_bytes: that is how far each standby's sending is
          // behind, a gauge near 0 however hard the primary writes, so its rate is not writes.
          "sum" + by + R"(( rate(cnpg_collector_wal_bytes{namespace="${namespace}"}[5m]))" +
              role_join(cnpg, "primary", grouped) + " )"};
}

// A new instance is ready after it has cloned the primary (pg_basebackup copies every database)
// and started streaming: about kReadyBaseSeconds plus kReadySecondsPerGiB for each GiB of data.
// Measured on CloudNativePG 1.27 and PostgreSQL 15 (bench/realnode/replica_cost.sh): 23 s plus
// 11 s per GiB from /scale to streaming when the primary had just checkpointed. A primary that
// has been taking writes first makes the clone wait for its checkpoint, 62-65 s in realnode.cnpg
// before that test checkpointed; the base counts that wait too (23 + 65), since a database worth
// scaling is one taking writes.
constexpr int kReadyBaseSeconds = 88;
constexpr int kReadySecondsPerGiB = 11;

// The estimate from the primary's database sizes (CloudNativePG's default monitoring exports
// cnpg_pg_database_size_bytes{datname} on every instance; the primary's are what a clone copies).
// Grouped: the same for every target of the kind in the namespace, by the label that names it.
std::string ready_estimate(bool cnpg, bool grouped) {
  const std::string by = grouped ? " by (" + std::string(name_label(cnpg)) + ")" : "";
  return std::to_string(kReadyBaseSeconds) + " + " + std::to_string(kReadySecondsPerGiB) + " * sum" + by +
         R"(( cnpg_pg_database_size_bytes{namespace="${namespace}"})" + role_join(cnpg, "primary", grouped) +
         " ) / 1073741824";
}

}  // namespace

PostgresAdapter::PostgresAdapter(const sdk::Host&, const json::Value& config)
    : default_preset_(json::string_or(config, "defaultResourcesPreset", "t1.micro", "postgres configuration")) {}

std::vector<sdk::TargetKind> PostgresAdapter::targets() const {
  return {{"apps.cozystack.io", "v1alpha1", "Postgres", "postgreses", "builtin.merge-patch"},
          {"postgresql.cnpg.io", "v1", "Cluster", "clusters", "builtin.scale"}};
}

sdk::Topology PostgresAdapter::topology(const sdk::ObjectView& target) const {
  const std::string_view group = group_of(target.api_version());
  const std::string_view kind = target.kind();
  const std::string name(target.name());
  if (name.empty()) throw sdk::Error(DHA_INVALID_ARGUMENT, "postgres: the target has no metadata.name");
  const bool cnpg = is_cnpg_cluster(group, kind);
  if (!cnpg && !(group == kAppsGroup && kind == "Postgres")) {
    throw sdk::Error(DHA_INVALID_ARGUMENT, "postgres: cannot read a target of kind " + std::string(kind) +
                                               " in group \"" + std::string(group) + "\"");
  }
  const json::Value& spec = target.spec();
  sdk::Topology t;
  int32_t max_sync = 0;
  if (cnpg) {
    max_sync = values::read_int(spec, "maxSyncReplicas", 0);
    t.quorum_floor = cnpg_quorum_floor(max_sync, values::read_int(spec, "postgresql.synchronous.number", 0));
    t.replicas_path = "spec.instances";
    t.current_replicas = values::read_replicas(target.json(), t.replicas_path);
    t.release_name = name;
    t.health = sdk::HealthSource::target();
    t.resources = values::read_resources(spec, "resources.requests.cpu", "resources.requests.memory");
    t.resources_preset = "";  // a bare Cluster has no preset; without requests there is no quota ceiling
    if (!t.current_replicas) {
      t.scalable = false;
      t.reason = sdk::kNoReplicasValueReason;
    }
  } else {
    // A cozystack Application like the others, with the quorum CloudNativePG derives.
    t = sdk::cozystack_application_topology(target, {"postgres", "Postgres", "postgres", default_preset_});
    max_sync = values::read_int(spec, "quorum.maxSyncReplicas", 0);
    t.quorum_floor = cnpg_quorum_floor(max_sync, 0);
  }
  if (max_sync < 0) {
    t.scalable = false;
    t.reason = std::string(cnpg ? "invalid maxSyncReplicas " : "invalid quorum.maxSyncReplicas ") +
               std::to_string(max_sync) + " (must be >= 0)";
  }
  return t;
}

sdk::Queries PostgresAdapter::queries(const sdk::QueryRequest& request) const {
  const bool cnpg = is_cnpg_cluster(request.api_group, request.kind);
  const Shapes one = shapes(cnpg, false);
  const Shapes all = shapes(cnpg, true);
  sdk::Queries q;
  q.grouped = sdk::GroupedQueries{{{std::string(name_label(cnpg)), "${name}"}}, {}, all.lag, all.writes};
  for (const std::string& type : request.metric_types) {
    if (type == "ReadConnections") {
      q.driver[type] = one.connections;
      q.grouped->driver[type] = all.connections;
    } else if (type == "ReadCPUUtilization") {
      q.driver[type] = one.cpu;
      q.grouped->driver[type] = all.cpu;
    }
  }
  q.lag_query = one.lag;
  q.lag_unit = "seconds";
  q.write_activity = one.writes;
  q.ready_estimate = ready_estimate(cnpg, false);
  q.grouped_ready_estimate = ready_estimate(cnpg, true);
  return q;
}

sdk::Health PostgresAdapter::health(const sdk::HealthRequest& request) const {
  const sdk::ObjectView target(*request.target);
  if (is_cnpg_cluster(group_of(target.api_version()), target.kind())) return read_cnpg_cluster_health(*request.object);
  return sdk::read_workload_monitor_health(*request.object);
}

}  // namespace dha::plugins
