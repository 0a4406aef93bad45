#include "host/plugin_set.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <spdlog/spdlog.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "dha/actuators/builtin_actuators.hpp"
#include "dha/components/builtin_components.hpp"
#include "dha/gates/external_gate.hpp"

namespace dha::op {
namespace {

using plugin_host::PluginInstance;

// A dha.gate/1 plugin as a link of the decision chain (fails closed through PluginGate).
class PluginGateAdapter final : public gates::ExternalGate {
 public:
  explicit PluginGateAdapter(const PluginInstance& instance) : instance_(instance) {}
  std::string_view name() const override { return instance_.info().id; }
  gates::ExternalGateResult evaluate(std::string_view request_json) const override {
    const auto result = instance_.call(instance_.gate()->evaluate, std::string(request_json));
    if (!result.ok()) return {false, {}, result.error.empty() ? "gate failed without a message" : result.error};
    return {true, result.output, {}};
  }

 private:
  const PluginInstance& instance_;
};

// {"<plugin id>": {...}} → the configuration text of each plugin.
std::map<std::string, std::string> split_config(const std::string& text, const std::string& origin) {
  std::map<std::string, std::string> out;
  if (text.empty()) return out;
  rapidjson::Document doc;
  doc.Parse(text.c_str());
  if (doc.HasParseError())
    throw std::runtime_error(origin + ": not JSON (" + rapidjson::GetParseError_En(doc.GetParseError()) +
                             " at offset " + std::to_string(doc.GetErrorOffset()) + ")");
  if (!doc.IsObject()) throw std::runtime_error(origin + ": expected an object {\"<plugin>\": {...}}");
  for (auto it = doc.MemberBegin(); it != doc.MemberEnd(); ++it) {
    const std::string name(it->name.GetString(), it->name.GetStringLength());
    if (!it->value.IsObject())
      throw std::runtime_error(origin + ": the configuration of \"" + name + "\" must be an object");
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
    it->value.Accept(w);
    out[name] = buffer.GetString();
  }
  return out;
}

}  // namespace

std::string read_plugin_config_text(const std::string& path) {
  if (path.empty()) return {};
  std::ifstream in(path);
  if (!in) throw std::runtime_error("--plugin-config " + path + ": cannot read the file");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::map<std::string, std::string> read_plugin_config_file(const std::string& path) {
  return split_config(read_plugin_config_text(path), "--plugin-config " + path);
}

std::vector<std::string> split_plugin_names(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const auto& value : values) {
    std::size_t start = 0;
    while (start <= value.size()) {
      const std::size_t comma = value.find(',', start);
      std::string item = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      const auto first = item.find_first_not_of(" \t");
      const auto last = item.find_last_not_of(" \t");
      if (first != std::string::npos) out.push_back(item.substr(first, last - first + 1));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

std::unique_ptr<PluginSet> PluginSet::load(const PluginSetOptions& options) {
  std::unique_ptr<PluginSet> set(new PluginSet());
  set->registry_.load_builtin(actuators::builtin_actuators_entry(), "actuators");
  set->registry_.load_builtin(builtin_components_entry(), "components");
  set->registry_.load_named(options.dirs, options.names);

  auto configs = split_config(options.config_json, options.config_origin);
  for (const auto& info : set->registry_.plugins()) {
    auto config = configs.find(info.id);
    const std::string text = config == configs.end() ? std::string() : config->second;
    set->instances_[info.id] = set->registry_.create(info.id, text);
    if (config != configs.end()) configs.erase(config);
  }
  for (const auto& [name, unused] : configs)
    spdlog::warn("{} has a configuration for \"{}\", which is not loaded; ignored", options.config_origin, name);

  set->chain_ = gates::GateChain::builtin();
  std::vector<std::string> metric_sources;
  for (const auto& info : set->registry_.plugins()) {
    const PluginInstance& instance = *set->instances_.at(info.id);
    if (instance.engine() != nullptr) {
      const auto result = instance.call(instance.engine()->targets);
      if (!result.ok()) throw std::runtime_error("plugin \"" + info.id + "\": targets() failed: " + result.error);
      std::vector<sdk::TargetKind> kinds;
      try {
        kinds = sdk::targets_from_json(sdk::json::parse(result.output, "targets"));
      } catch (const std::exception& e) {
        throw std::runtime_error("plugin \"" + info.id + "\": targets(): " + e.what());
      }
      for (auto& kind : kinds) {
        if (const EngineBinding* other = set->engine_for(kind.api_group, kind.kind))
          throw std::runtime_error("plugins \"" + other->instance->info().id + "\" and \"" + info.id +
                                   "\" both handle " + kind.api_group + "/" + kind.kind);
        set->engines_.push_back({&instance, std::move(kind)});
      }
    }
    if (instance.metrics() != nullptr) {
      metric_sources.push_back(info.id);
      set->metric_source_ = &instance;
    }
  }
  if (metric_sources.size() > 1)
    throw std::runtime_error("more than one metric source is loaded (" + metric_sources[0] + ", " + metric_sources[1] +
                             "); load exactly one");
  // Plugin gates run after the built-ins in the order --plugins names them.
  for (const auto& name : options.names) {
    for (const auto& info : set->registry_.plugins()) {
      const PluginInstance& instance = *set->instances_.at(info.id);
      if (instance.gate() == nullptr) continue;
      if (info.id != name && info.origin.find("/" + name + ".so") == std::string::npos) continue;
      set->chain_.add(std::make_shared<gates::PluginGate>(std::make_shared<PluginGateAdapter>(instance)));
      ++set->gate_plugins_;
    }
  }
  for (const auto& engine : set->engines_)
    if (set->actuator(engine.target.actuator) == nullptr)
      throw std::runtime_error("plugin \"" + engine.instance->info().id + "\" scales " + engine.target.api_group + "/" +
                               engine.target.kind + " with actuator \"" + engine.target.actuator +
                               "\", which is not loaded");
  if (set->metric_source_ == nullptr)
    spdlog::warn("no metric source plugin is loaded: every DHA will freeze with MetricUnavailable");
  return set;
}

const EngineBinding* PluginSet::engine_for(const std::string& api_group, const std::string& kind) const {
  const std::string group = api_group.empty() ? "apps.cozystack.io" : api_group;
  for (const auto& e : engines_)
    if (e.target.api_group == group && e.target.kind == kind) return &e;
  return nullptr;
}

std::string PluginSet::handled_kinds() const {
  std::string out;
  for (const auto& e : engines_) out += (out.empty() ? "" : ", ") + e.target.api_group + "/" + e.target.kind;
  return out.empty() ? "none" : out;
}

const plugin_host::PluginInstance* PluginSet::actuator(const std::string& id) const {
  auto it = instances_.find(id);
  if (it == instances_.end() || it->second->actuator() == nullptr) return nullptr;
  return it->second.get();
}

}  // namespace dha::op
