#include "dha/testing/world/engine_exporter.hpp"

#include <cstdio>
#include <utility>

namespace dha::testing::world {
namespace {

std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.10g", value);
  return buffer;
}

bool selected(PodSelection pods, const SimulatedDatabase::Instance& i) {
  switch (pods) {
    case PodSelection::kAll:
      return true;
    case PodSelection::kAvailable:
      return i.available;
    case PodSelection::kPrimary:
      return i.available && i.primary;
    case PodSelection::kReplicas:
      return i.available && !i.primary;
  }
  return false;
}

// The gauges that carry load: a removed pod must not keep them in a store's lookback.
bool is_load_gauge(SeriesValue value) {
  return value == SeriesValue::kReadConnections || value == SeriesValue::kLagSeconds;
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

EngineExporter::EngineExporter(EngineDescription engine, std::string namespace_name, std::string app_name)
    : engine_(std::move(engine)), namespace_(std::move(namespace_name)), app_(std::move(app_name)) {}

void EngineExporter::add_sample(std::string& out, const SeriesDescription& series, const std::string& pod, bool primary,
                                double value, int64_t timestamp_ms) const {
  const std::string& role = primary ? engine_.primary_role : engine_.replica_role;
  out += series.metric;
  out += '{';
  for (size_t i = 0; i < series.labels.size(); ++i) {
    if (i) out += ',';
    out += series.labels[i].first + "=\"" +
           escape_label_value(fill_placeholders(series.labels[i].second, namespace_, app_, pod, role)) + "\"";
  }
  out += "} " + number(value) + " " + std::to_string(timestamp_ms) + "\n";
}

std::string EngineExporter::scrape(const std::vector<SimulatedDatabase::Instance>& instances, const LoadPoint& load,
                                   const std::vector<std::string>& removed_pods, double elapsed_seconds,
                                   int64_t timestamp_ms) {
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
  // Writes land on the primary; with no primary up nothing is written.
  if (primary_available) written_bytes_total_ += load.write_bytes_per_second.value_or(0) * elapsed;
  for (const auto& i : instances)
    if (load.read_cpu_millicores && takes_reads(i)) cpu_seconds_total_[i.pod] += cpu_cores_each * elapsed;

  std::string out;
  for (const auto& i : instances) {
    for (const auto& series : engine_.series) {
      if (!selected(series.pods, i)) continue;
      switch (series.value) {
        case SeriesValue::kConstant:
          add_sample(out, series, i.pod, i.primary, series.constant, timestamp_ms);
          break;
        case SeriesValue::kReadConnections:
          add_sample(out, series, i.pod, i.primary, takes_reads(i) ? connections_each : 0, timestamp_ms);
          break;
        case SeriesValue::kReadCpuSeconds:
          if (load.read_cpu_millicores)
            add_sample(out, series, i.pod, i.primary, cpu_seconds_total_[i.pod], timestamp_ms);
          break;
        case SeriesValue::kLagSeconds:
          add_sample(out, series, i.pod, i.primary, i.primary ? 0 : load.lag_seconds.value_or(0), timestamp_ms);
          break;
        case SeriesValue::kWrittenBytes:
          add_sample(out, series, i.pod, i.primary, written_bytes_total_, timestamp_ms);
          break;
      }
    }
  }
  for (const auto& pod : removed_pods) {
    for (const auto& series : engine_.series)
      if (is_load_gauge(series.value) && series.pods != PodSelection::kPrimary)
        add_sample(out, series, pod, false, 0, timestamp_ms);
    cpu_seconds_total_.erase(pod);
  }
  return out;
}

}  // namespace dha::testing::world
