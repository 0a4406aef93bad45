#include "dha/telemetry/registry.hpp"

#include <stdexcept>

namespace dha::telemetry {

namespace {

bool name_char(char c, bool first, bool colon_ok) {
  bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon_ok && c == ':');
  return alpha || (!first && c >= '0' && c <= '9');
}

const char* type_name(MetricType type) {
  switch (type) {
    case MetricType::counter:
      return "counter";
    case MetricType::gauge:
      return "gauge";
    case MetricType::histogram:
      return "histogram";
  }
  return "unknown";
}

void validate(const std::string& name, MetricType type, const std::vector<std::string>& label_names) {
  if (!is_valid_metric_name(name)) throw std::invalid_argument("invalid metric name: \"" + name + "\"");
  for (std::size_t i = 0; i < label_names.size(); ++i) {
    const auto& label = label_names[i];
    if (!is_valid_label_name(label)) throw std::invalid_argument(name + ": invalid label name \"" + label + "\"");
    if (type == MetricType::histogram && label == "le")
      throw std::invalid_argument(name + ": a histogram cannot have a label named le");
    for (std::size_t j = 0; j < i; ++j)
      if (label_names[j] == label) throw std::invalid_argument(name + ": duplicate label name \"" + label + "\"");
  }
}

}  // namespace

bool is_valid_metric_name(std::string_view name) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i)
    if (!name_char(name[i], i == 0, true)) return false;
  return true;
}

bool is_valid_label_name(std::string_view name) {
  if (name.empty() || name.starts_with("__")) return false;
  for (std::size_t i = 0; i < name.size(); ++i)
    if (!name_char(name[i], i == 0, false)) return false;
  return true;
}

FamilyBase* Registry::find(const std::string& name, MetricType type, const std::vector<std::string>& label_names) {
  auto it = families_.find(name);
  if (it == families_.end()) return nullptr;
  if (it->second->type() != type || it->second->label_names() != label_names)
    throw std::invalid_argument(name + ": already registered as a " + type_name(it->second->type()) +
                                " with other label names");
  return it->second.get();
}

CounterFamily& Registry::counter(std::string name, std::string help, std::vector<std::string> label_names) {
  validate(name, MetricType::counter, label_names);
  std::lock_guard lock(mutex_);
  if (auto* existing = find(name, MetricType::counter, label_names)) return static_cast<CounterFamily&>(*existing);
  auto family = std::make_unique<CounterFamily>(name, std::move(help), MetricType::counter, std::move(label_names),
                                                [] { return std::make_shared<Counter>(); });
  auto& ref = *family;
  families_.emplace(std::move(name), std::move(family));
  return ref;
}

GaugeFamily& Registry::gauge(std::string name, std::string help, std::vector<std::string> label_names) {
  validate(name, MetricType::gauge, label_names);
  std::lock_guard lock(mutex_);
  if (auto* existing = find(name, MetricType::gauge, label_names)) return static_cast<GaugeFamily&>(*existing);
  auto family = std::make_unique<GaugeFamily>(name, std::move(help), MetricType::gauge, std::move(label_names),
                                              [] { return std::make_shared<Gauge>(); });
  auto& ref = *family;
  families_.emplace(std::move(name), std::move(family));
  return ref;
}

HistogramFamily& Registry::histogram(std::string name, std::string help, std::vector<std::string> label_names,
                                     std::vector<double> upper_bounds) {
  validate(name, MetricType::histogram, label_names);
  Histogram probe(upper_bounds);  // validates the buckets before anything is registered
  std::lock_guard lock(mutex_);
  if (auto* existing = find(name, MetricType::histogram, label_names)) return static_cast<HistogramFamily&>(*existing);
  auto family = std::make_unique<HistogramFamily>(
      name, std::move(help), MetricType::histogram, std::move(label_names),
      [bounds = std::move(upper_bounds)] { return std::make_shared<Histogram>(bounds); });
  auto& ref = *family;
  families_.emplace(std::move(name), std::move(family));
  return ref;
}

std::uint64_t Registry::add_collector(std::function<void()> collect) {
  std::lock_guard lock(mutex_);
  const std::uint64_t id = next_collector_id_++;
  collectors_.emplace(id, std::move(collect));
  return id;
}

void Registry::remove_collector(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  collectors_.erase(id);
}

std::string Registry::expose() const {
  std::string out;
  std::lock_guard lock(mutex_);
  // One allocation of about the last size instead of doubling up to it: with per-DHA series a
  // replica's text is ~600 bytes per DHA (15 MiB at 25 000), and each doubling held the old
  // and the new buffer at once.
  out.reserve(last_exposition_bytes_ + last_exposition_bytes_ / 16);
  for (const auto& [id, collect] : collectors_) collect();
  for (const auto& [name, family] : families_) family->write_text(out);
  last_exposition_bytes_ = out.size();
  return out;
}

}  // namespace dha::telemetry
