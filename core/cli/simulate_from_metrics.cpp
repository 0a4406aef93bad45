#include "simulate_from_metrics.hpp"

#include <fmt/format.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include "exit.hpp"
#include "history/metric_history.hpp"

namespace dha::cli {
namespace {

// Every metric source takes "url"; metrics-vm also gets a longer timeout and a larger response cap
// than the operator's instant reads need. Other sources are given only the URL, since the host
// refuses configuration keys a plugin does not declare.
std::string plugin_config(const HistoryRequest& r) {
  rapidjson::StringBuffer buf;
  sdk::json::Writer w(buf);
  w.StartObject();
  w.Key(r.metrics_plugin.c_str());
  w.StartObject();
  w.Key("url");
  w.String(r.url.c_str());
  if (r.metrics_plugin == "metrics-vm") {
    w.Key("timeoutSeconds");
    w.Double(r.timeout_seconds);
    // A week of one series at one-minute steps is about 250 KB; leave room for a few series.
    w.Key("maxResponseBytes");
    w.Int64(INT64_C(64) << 20);
  }
  w.EndObject();
  w.EndObject();
  return buf.GetString();
}

const op::EngineBinding& find_engine(const op::PluginSet& set, const HistoryRequest& r) {
  for (const auto& e : set.engines()) {
    if (e.target.kind == r.kind && (r.api_group.empty() || e.target.api_group == r.api_group)) return e;
  }
  throw Exit(kExitBadInput, fmt::format("no loaded adapter handles kind {}{} (loaded: {}); name one with --plugins",
                                        r.kind, r.api_group.empty() ? "" : " in group " + r.api_group,
                                        set.handled_kinds()));
}

// The target as the operator would read it: the file, or the identity alone (which is all the
// release name depends on; a floor from the spec then is the adapter's default).
rapidjson::Document target_object(const op::EngineBinding& engine, const HistoryRequest& r) {
  if (!r.target_file.empty()) {
    rapidjson::Document object = read_target_object(r.target_file);
    const auto* meta = object.HasMember("metadata") && object["metadata"].IsObject() ? &object["metadata"] : nullptr;
    const auto field = [&](const char* key) {
      return meta != nullptr && meta->HasMember(key) && (*meta)[key].IsString() ? std::string((*meta)[key].GetString())
                                                                                  : std::string();
    };
    if (object["kind"].GetString() != r.kind || field("name") != r.name ||
        (!field("namespace").empty() && field("namespace") != r.namespace_name))
      throw Exit(kExitBadInput, fmt::format("{} is {} {}/{}, not the {} {}/{} named on the command line",
                                            r.target_file, object["kind"].GetString(), field("namespace"),
                                            field("name"), r.kind, r.namespace_name, r.name));
    return object;
  }
  rapidjson::Document object(rapidjson::kObjectType);
  auto& a = object.GetAllocator();
  const std::string api_version = engine.target.api_group + "/" + engine.target.version;
  object.AddMember("apiVersion", rapidjson::Value(api_version.c_str(), a), a);
  object.AddMember("kind", rapidjson::Value(r.kind.c_str(), a), a);
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("name", rapidjson::Value(r.name.c_str(), a), a);
  meta.AddMember("namespace", rapidjson::Value(r.namespace_name.c_str(), a), a);
  object.AddMember("metadata", meta, a);
  object.AddMember("spec", rapidjson::Value(rapidjson::kObjectType), a);
  return object;
}

std::int64_t now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::int64_t parse_duration_seconds(const std::string& text, const std::string& flag) {
  const auto bad = [&] {
    return Exit(kExitBadInput, fmt::format("{}: \"{}\" is not a duration (e.g. 7d, 12h, 90m, 60s)", flag, text));
  };
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text.front()))) throw bad();
  errno = 0;
  char* end = nullptr;
  const long long n = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE || n <= 0 || n > 10LL * 365 * 86400) throw bad();
  const std::string unit(end);
  const std::int64_t scale =
      unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : unit == "d" ? 86400 : 0;
  if (scale == 0 || n > 10LL * 365 * 86400 / scale) throw bad();
  return n * scale;
}

History read_history(const HistoryRequest& r) {
  if (r.metric_types.empty()) throw Exit(kExitBadInput, "the DHA names no metrics to read");
  std::unique_ptr<op::PluginSet> set;
  try {
    // The metric source's URL, as configuration text (as the operator's --plugin-config file holds).
    set = op::PluginSet::load({r.plugin_dirs, r.plugins, plugin_config(r), "the metric source's configuration"});
  } catch (const std::exception& e) {
    throw Exit(kExitBadInput, std::string("--plugins: ") + e.what());
  }
  const plugin_host::PluginInstance* source = set->metric_source();
  if (source == nullptr || source->info().id != r.metrics_plugin)
    throw Exit(kExitBadInput, "the metric source \"" + r.metrics_plugin + "\" is not loaded; name it in --plugins");
  const op::EngineBinding& engine = find_engine(*set, r);
  const rapidjson::Document object = target_object(engine, r);
  const std::string what = r.target_file.empty() ? r.kind + " " + r.namespace_name + "/" + r.name : r.target_file;
  const sdk::Topology topology = topology_of(engine, object, what);

  History h;
  h.shape = shape_of(topology);
  const sdk::QueryRequest request{r.namespace_name, r.name, topology.release_name, engine.target.api_group, r.kind,
                                  r.metric_types};
  const std::int64_t until = r.until > 0 ? r.until : now_seconds();
  const history::Grid grid = history::grid_ending_at(until, r.since_seconds, r.step_seconds);
  h.start = grid.start;
  h.rows = grid.rows();
  try {
    const sdk::Queries queries = history::engine_queries(*engine.instance, request);
    history::Trace trace = history::read_trace({*source, queries, {r.namespace_name, r.name, topology.release_name},
                                                std::nullopt, r.metric_types, grid, r.timeout_seconds, true});
    h.csv = std::move(trace.csv);
    h.notes = std::move(trace.notes);
  } catch (const history::HistoryError& e) {
    throw Exit(e.bad_input() ? kExitBadInput : kExitFailure, e.what());
  }
  return h;
}

}  // namespace dha::cli
