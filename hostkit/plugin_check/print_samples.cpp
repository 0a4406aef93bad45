#include "print_samples.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include "declared_samples.hpp"
#include "plugin_calls.hpp"
#include "samples.hpp"

namespace dha::plugin_check {

namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

// A sample is JSON text; it is shown as the document it is.
void document(Writer& w, const std::string& text) {
  sdk::json::Document d;
  d.Parse(text.c_str());
  d.Accept(w);
}

void list(Writer& w, const char* key, const std::vector<std::string>& documents) {
  if (documents.empty()) return;
  w.Key(key);
  w.StartArray();
  for (const auto& d : documents) document(w, d);
  w.EndArray();
}

void plugin_samples(Writer& w, const plugin_host::PluginInstance& p, const Options& options) {
  w.StartObject();
  w.Key("id");
  w.String(p.info().id);
  w.Key("capabilities");
  w.StartArray();
  for (const auto& c : p.info().capabilities) w.String(c);
  w.EndArray();
  std::vector<std::string> topology, queries, health;
  if (p.engine()) {
    for (const auto& kind : targets_of(p)) {
      const CountPath path = count_path(p, kind, options);
      const auto samples = target_samples(kind, path, options);
      for (const auto& sample : samples) topology.push_back(sample.object);
      const std::string& target = samples.front().object;  // the generated one with a count
      const sdk::Topology t = topology_of(p, target);
      queries.push_back(sample_query_request(kind, kHostileName, t.release_name).to_json());
      queries.push_back(sample_query_request(kind, "db", "db").to_json());
      health.push_back(sample_health_request(target, t));
    }
  }
  list(w, "topology", topology);
  list(w, "queries", queries);
  list(w, "health", health);
  if (p.gate()) list(w, "evaluate", {sample_gate_request()});
  if (p.actuator()) list(w, "plan", {sample_plan_request()});
  w.EndObject();
}

}  // namespace

std::string samples_json(const Options& options) {
  const auto loaded = load_all(options);
  rapidjson::StringBuffer out;
  Writer w(out);
  w.StartObject();
  w.Key("file");
  w.String(options.file);
  w.Key("namespace");
  w.String(kNamespace);
  w.Key("plugins");
  w.StartArray();
  for (const auto& p : loaded->instances) plugin_samples(w, *p, options);
  w.EndArray();
  // Sent to every function that reads a document (topology, queries, health, instant_query,
  // evaluate, plan): each must be refused.
  w.Key("malformedInputs");
  w.StartArray();
  for (const auto& garbage : malformed_inputs()) w.String(garbage);
  w.EndArray();
  w.EndObject();
  return std::string(out.GetString()) + "\n";
}

}  // namespace dha::plugin_check
