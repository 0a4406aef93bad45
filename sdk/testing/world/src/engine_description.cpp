#include "dha/testing/world/engine_description.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <initializer_list>
#include <regex>
#include <stdexcept>

#include "text_file.hpp"

namespace dha::testing::world {
namespace {

constexpr std::string_view kPlaceholders[] = {"namespace", "app", "pod", "role"};

// Parsing context: every error names the file and the key it is about.
struct Reader {
  std::string source;

  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw std::invalid_argument(source + ": " + key + ": " + problem);
  }

  void only_keys(const YAML::Node& map, const std::string& where, std::initializer_list<std::string_view> keys) const {
    if (!map.IsMap()) fail(where, "must be a mapping");
    for (const auto& entry : map) {
      const auto key = entry.first.as<std::string>();
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
        std::string expected;
        for (const auto k : keys) expected += (expected.empty() ? "" : ", ") + std::string(k);
        fail(where.empty() ? key : where + "." + key, "unknown key (expected " + expected + ")");
      }
    }
  }

  std::string string(const YAML::Node& node, const std::string& key, bool required,
                     const std::string& fallback = "") const {
    if (!node || node.IsNull()) {
      if (required) fail(key, "is required");
      return fallback;
    }
    if (!node.IsScalar()) fail(key, "must be a string");
    return node.as<std::string>();
  }

  int integer(const YAML::Node& node, const std::string& key, int fallback, int minimum) const {
    if (!node) return fallback;
    int value = 0;
    if (!node.IsScalar() || !YAML::convert<int>::decode(node, value)) fail(key, "must be an integer");
    if (value < minimum) fail(key, "must be >= " + std::to_string(minimum));
    return value;
  }

  bool boolean(const YAML::Node& node, const std::string& key) const {
    if (!node) return false;
    bool value = false;
    if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value)) fail(key, "must be true or false");
    return value;
  }

  // Only the known placeholders, and only those `allowed` here.
  void check_placeholders(const std::string& text, const std::string& key,
                          std::initializer_list<std::string_view> allowed) const {
    static const std::regex placeholder(R"(\$\{([^}]*)\})");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), placeholder); it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[1];
      if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
        std::string known;
        for (const auto k : allowed) known += (known.empty() ? "" : ", ") + ("${" + std::string(k) + "}");
        fail(key, "unknown placeholder ${" + name + "} (known here: " + known + ")");
      }
    }
  }
};

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

bool valid_metric_name(const std::string& name) {
  static const std::regex pattern("[a-zA-Z_:][a-zA-Z0-9_:]*");
  return std::regex_match(name, pattern);
}

bool valid_label_name(const std::string& name) {
  static const std::regex pattern("[a-zA-Z_][a-zA-Z0-9_]*");
  return std::regex_match(name, pattern) && name.rfind("__", 0) != 0;
}

SeriesDescription read_series(const Reader& r, const YAML::Node& node, const std::string& where) {
  r.only_keys(node, where, {"metric", "labels", "value", "pods"});
  SeriesDescription s;
  s.metric = r.string(node["metric"], where + ".metric", true);
  if (!valid_metric_name(s.metric)) r.fail(where + ".metric", "\"" + s.metric + "\" is not a Prometheus metric name");
  if (const auto labels = node["labels"]) {
    if (!labels.IsMap()) r.fail(where + ".labels", "must be a mapping of label name to value");
    for (const auto& entry : labels) {
      const auto name = entry.first.as<std::string>();
      const std::string key = where + ".labels." + name;
      if (!valid_label_name(name)) r.fail(key, "is not a Prometheus label name");
      if (std::any_of(s.labels.begin(), s.labels.end(), [&](const auto& l) { return l.first == name; }))
        r.fail(key, "appears twice");
      const std::string value = entry.second.IsNull() ? "" : r.string(entry.second, key, true);
      r.check_placeholders(value, key, {"namespace", "app", "pod", "role"});
      s.labels.emplace_back(name, value);
    }
  }
  const std::string value = r.string(node["value"], where + ".value", true);
  static const std::pair<std::string_view, SeriesValue> kValues[] = {{"readConnections", SeriesValue::kReadConnections},
                                                                     {"readCpuSeconds", SeriesValue::kReadCpuSeconds},
                                                                     {"lagSeconds", SeriesValue::kLagSeconds},
                                                                     {"writtenBytes", SeriesValue::kWrittenBytes}};
  const auto known =
      std::find_if(std::begin(kValues), std::end(kValues), [&](const auto& v) { return v.first == value; });
  if (known != std::end(kValues)) {
    s.value = known->second;
  } else {
    double number = 0;
    if (!YAML::convert<double>::decode(node["value"], number) || !std::isfinite(number))
      r.fail(where + ".value", "\"" + value +
                                   "\" is neither a number nor one of readConnections, readCpuSeconds, lagSeconds, "
                                   "writtenBytes");
    s.value = SeriesValue::kConstant;
    s.constant = number;
  }
  const std::string pods = r.string(node["pods"], where + ".pods", false, "available");
  if (pods == "all")
    s.pods = PodSelection::kAll;
  else if (pods == "available")
    s.pods = PodSelection::kAvailable;
  else if (pods == "primary")
    s.pods = PodSelection::kPrimary;
  else if (pods == "replicas")
    s.pods = PodSelection::kReplicas;
  else
    r.fail(where + ".pods", "\"" + pods + "\" is not one of all, available, primary, replicas");
  if (s.pods == PodSelection::kAll && s.value != SeriesValue::kConstant)
    r.fail(where + ".pods", "\"all\" includes pods still provisioning, which export nothing but constants");
  return s;
}

}  // namespace

std::string fill_placeholders(const std::string& text, const std::string& namespace_name, const std::string& app,
                              const std::string& pod, const std::string& role) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    bool replaced = false;
    if (text.compare(i, 2, "${") == 0) {
      for (const auto name : kPlaceholders) {
        if (text.compare(i + 2, name.size(), name) != 0 || text.compare(i + 2 + name.size(), 1, "}") != 0) continue;
        out += name == "namespace" ? namespace_name : name == "app" ? app : name == "pod" ? pod : role;
        i += name.size() + 3;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

EngineDescription EngineDescription::parse(std::string_view yaml, const std::string& source) {
  const Reader r{source};
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(source + ": not YAML: " + e.what());
  }
  if (!root || root.IsNull()) throw std::invalid_argument(source + ": empty engine description");
  try {
    r.only_keys(root, "",
                {"kind", "group", "version", "plural", "replicas", "pods", "roles", "status", "health", "series"});
    EngineDescription e;
    e.kind = r.string(root["kind"], "kind", true);
    e.group = r.string(root["group"], "group", true);
    e.version = r.string(root["version"], "version", true);
    e.plural = r.string(root["plural"], "plural", true);
    for (const auto& [key, value] : {std::pair{"group", &e.group}, {"version", &e.version}, {"plural", &e.plural}})
      if (value->empty() || value->find_first_of("/?#% ") != std::string::npos)
        r.fail(key, "\"" + *value + "\" cannot be part of an API path");
    if (const auto replicas = root["replicas"]) {
      r.only_keys(replicas, "replicas", {"path", "default"});
      e.replicas_path = r.string(replicas["path"], "replicas.path", false, e.replicas_path);
      e.default_replicas = r.integer(replicas["default"], "replicas.default", e.default_replicas, 0);
    }
    if (e.replicas_path.empty() || e.replicas_path.front() == '.' || e.replicas_path.back() == '.')
      r.fail("replicas.path", "\"" + e.replicas_path + "\" is not a dotted path like spec.replicas");
    e.pods = r.string(root["pods"], "pods", false, lower(e.kind) + "-${app}");
    r.check_placeholders(e.pods, "pods", {"app"});
    if (const auto roles = root["roles"]) {
      r.only_keys(roles, "roles", {"primary", "replica"});
      e.primary_role = r.string(roles["primary"], "roles.primary", false, e.primary_role);
      e.replica_role = r.string(roles["replica"], "roles.replica", false, e.replica_role);
    }
    if (const auto status = root["status"]) {
      r.only_keys(status, "status", {"availablePath", "readyCondition", "fields"});
      if (status["availablePath"]) {
        e.available_path = r.string(status["availablePath"], "status.availablePath", true);
        if (e.available_path->rfind("status.", 0) != 0 || e.available_path->size() <= 7 ||
            e.available_path->back() == '.')
          r.fail("status.availablePath", "\"" + *e.available_path + "\" must be a dotted path under status.");
      }
      e.ready_condition = r.boolean(status["readyCondition"], "status.readyCondition");
      if (const auto fields = status["fields"]) {
        if (!fields.IsMap()) r.fail("status.fields", "must be a map of a path under status. to what it holds");
        for (const auto& field : fields) {
          const std::string path = field.first.as<std::string>();
          const std::string key = "status.fields." + path;
          if (path.empty() || path.front() == '.' || path.back() == '.' || path.find("..") != std::string::npos)
            r.fail(key, "\"" + path + "\" is not a dotted path (it is written under status.)");
          if (!field.second.IsScalar()) r.fail(key, "must be available, instances, ready or a constant");
          StatusField f;
          f.path = "status." + path;
          const std::string value = field.second.as<std::string>();
          double number = 0;
          if (value == "available")
            f.source = StatusField::Source::kAvailable;
          else if (value == "instances")
            f.source = StatusField::Source::kInstances;
          else if (value == "ready")
            f.source = StatusField::Source::kReady;
          else {
            f.constant = value;
            f.constant_is_number = field.second.Tag() != "!" && YAML::convert<double>::decode(field.second, number) &&
                                   std::isfinite(number);
          }
          e.status_fields.push_back(std::move(f));
        }
      }
    }
    if (const auto health = root["health"]) {
      r.only_keys(health, "health", {"workloadMonitor"});
      const auto monitor = health["workloadMonitor"];
      r.only_keys(monitor, "health.workloadMonitor", {"name", "kind", "minReplicas"});
      WorkloadMonitorDescription m;
      m.name = r.string(monitor["name"], "health.workloadMonitor.name", true);
      r.check_placeholders(m.name, "health.workloadMonitor.name", {"app"});
      m.kind = r.string(monitor["kind"], "health.workloadMonitor.kind", false, lower(e.kind));
      m.min_replicas = r.integer(monitor["minReplicas"], "health.workloadMonitor.minReplicas", 1, 0);
      e.workload_monitor = m;
    }
    const auto series = root["series"];
    if (!series || !series.IsSequence() || series.size() == 0)
      r.fail("series", "is required: a list of the exporter series (metric, labels, value, pods)");
    for (size_t i = 0; i < series.size(); ++i)
      e.series.push_back(read_series(r, series[i], "series[" + std::to_string(i) + "]"));
    return e;
  } catch (const YAML::Exception& ex) {
    throw std::invalid_argument(source + ": " + ex.what());
  }
}

EngineDescription EngineDescription::read_file(const std::string& path) {
  return parse(read_text_file(path, "engine description"), path);
}

std::string EngineDescription::collection_path(const std::string& namespace_name) const {
  const std::string base = "/apis/" + group + "/" + version;
  if (namespace_name.empty()) return base + "/" + plural;
  return base + "/namespaces/" + namespace_name + "/" + plural;
}

}  // namespace dha::testing::world
