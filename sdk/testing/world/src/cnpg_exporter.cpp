#include "dha/testing/world/cnpg_exporter.hpp"

#include <cstdio>
#include <utility>

namespace dha::testing::world {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.10g", value);
  return buffer;
}

void add_sample(std::string& out, const std::string& name, const Labels& labels, double value, int64_t timestamp_ms) {
  out += name;
  out += '{';
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i) out += ',';
    out += labels[i].first + "=\"" + escape_label_value(labels[i].second) + "\"";
  }
  out += "} " + number(value) + " " + std::to_string(timestamp_ms) + "\n";
}

}  // namespace

std::string escape_label_value(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

CnpgExporter::CnpgExporter(std::string namespace_name, std::string app_name)
    : namespace_(std::move(namespace_name)), app_(std::move(app_name)) {}

std::string CnpgExporter::scrape(const std::vector<SimulatedDatabase::Instance>& instances, const LoadPoint& load,
                                 const std::vector<std::string>& removed_pods, double elapsed_seconds,
                                 int64_t timestamp_ms) {
  const std::string cluster = "postgres-" + app_;
  int serving_replicas = 0;
  bool primary_available = false;
  for (const auto& i : instances) {
    if (i.available && !i.primary) ++serving_replicas;
    if (i.available && i.primary) primary_available = true;
  }
  // Who takes the read load: every available read replica, or else the primary alone.
  const auto takes_reads = [&](const SimulatedDatabase::Instance& i) {
    return i.available && (serving_replicas > 0 ? !i.primary : i.primary);
  };
  const int readers = serving_replicas > 0 ? serving_replicas : (primary_available ? 1 : 0);
  const double connections_each = readers > 0 ? load.read_connections / readers : 0;
  const double cpu_cores_each = readers > 0 ? load.read_cpu_millicores.value_or(0) / 1000.0 / readers : 0;
  const double elapsed = elapsed_seconds > 0 ? elapsed_seconds : 0;

  std::string out;
  for (const auto& i : instances) {
    const Labels pod{{"namespace", namespace_}, {"pod", i.pod}};
    add_sample(out, "kube_pod_labels",
               {{"namespace", namespace_},
                {"pod", i.pod},
                {"label_cnpg_io_cluster", cluster},
                {"label_cnpg_io_instance_name", i.pod},
                {"label_cnpg_io_instance_role", i.primary ? "primary" : "replica"},
                {"label_apps_cozystack_io_application_name", app_},
                {"label_apps_cozystack_io_application_kind", "Postgres"}},
               1, timestamp_ms);
    if (!i.available) continue;  // no exporter until the instance is up
    const auto backends = [&](const char* state, double value) {
      add_sample(out, "cnpg_backends_total",
                 {{"namespace", namespace_},
                  {"pod", i.pod},
                  {"datname", "app"},
                  {"usename", "app"},
                  {"application_name", ""},
                  {"state", state}},
                 value, timestamp_ms);
    };
    backends("active", takes_reads(i) ? connections_each : 0);
    backends("idle", kIdleBackends);
    add_sample(out, "cnpg_pg_replication_lag", pod, i.primary ? 0 : load.lag_seconds.value_or(0), timestamp_ms);
    if (i.primary) {
      write_bytes_total_ += load.write_bytes_per_second.value_or(0) * elapsed;
      add_sample(out, "cnpg_pg_stat_replication_sent_diff_bytes", pod, write_bytes_total_, timestamp_ms);
    }
    if (load.read_cpu_millicores) {
      double& cpu = cpu_seconds_total_[i.pod];
      if (takes_reads(i)) cpu += cpu_cores_each * elapsed;
      add_sample(out, "container_cpu_usage_seconds_total",
                 {{"namespace", namespace_}, {"pod", i.pod}, {"container", "postgres"}}, cpu, timestamp_ms);
    }
  }
  // A removed pod's gauges go to zero once, so a metric store's lookback window does not keep
  // counting its connections or lag after it is gone.
  for (const auto& pod : removed_pods) {
    add_sample(out, "cnpg_backends_total",
               {{"namespace", namespace_},
                {"pod", pod},
                {"datname", "app"},
                {"usename", "app"},
                {"application_name", ""},
                {"state", "active"}},
               0, timestamp_ms);
    add_sample(out, "cnpg_pg_replication_lag", {{"namespace", namespace_}, {"pod", pod}}, 0, timestamp_ms);
    cpu_seconds_total_.erase(pod);
  }
  return out;
}

}  // namespace dha::testing::world
