#include "simulate_from_metrics.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>

#include "exit.hpp"
#include "given_objects.hpp"
#include "pipeline/metric_history.hpp"
#include "pipeline/observe.hpp"

namespace dha::cli {
namespace {

// The target as given: the file (which must be the object named on the command line), or the
// identity alone (which is all the release name depends on; a floor from the spec then is the
// adapter's default).
rapidjson::Document given_target(const op::EngineBinding& engine, const HistoryRequest& r) {
  if (r.target_file.empty()) return identity_object(engine, r.namespace_name, r.name);
  rapidjson::Document object = read_target_object(r.target_file);
  const auto* meta = object.HasMember("metadata") && object["metadata"].IsObject() ? &object["metadata"] : nullptr;
  const auto field = [&](const char* key) {
    return meta != nullptr && meta->HasMember(key) && (*meta)[key].IsString() ? std::string((*meta)[key].GetString())
                                                                              : std::string();
  };
  if (object["kind"].GetString() != r.kind || field("name") != r.name ||
      (!field("namespace").empty() && field("namespace") != r.namespace_name))
    throw Exit(kExitBadInput, fmt::format("{} is {} {}/{}, not the {} {}/{} named on the command line", r.target_file,
                                          object["kind"].GetString(), field("namespace"), field("name"), r.kind,
                                          r.namespace_name, r.name));
  return object;
}

// A spec reading each driver column once, in the unit its target compares.
model::DhaSpec history_spec(const HistoryRequest& r) {
  model::DhaSpec spec;
  spec.target_ref = model::TargetRef{r.api_group.empty() ? model::kDefaultApiGroup : r.api_group, r.kind, r.name};
  spec.metrics = r.metrics;
  return spec;
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
  const std::int64_t scale = unit.empty() || unit == "s" ? 1
                             : unit == "m"               ? 60
                             : unit == "h"               ? 3600
                             : unit == "d"               ? 86400
                                                         : 0;
  if (scale == 0 || n > 10LL * 365 * 86400 / scale) throw bad();
  return n * scale;
}

History read_history(const HistoryRequest& r) {
  if (r.metrics.empty()) throw Exit(kExitBadInput, "the DHA names no metrics to read");
  ToolPlugins plugins = r.plugins;
  plugins.history_timeout_seconds = r.timeout_seconds;
  const auto set = load_tool_plugins(plugins);
  const model::DhaSpec spec = history_spec(r);
  const op::EngineBinding& engine = tool_engine(*set, spec.target_ref->api_group, r.kind, plugins);
  GivenObjects given;
  if (r.cluster == nullptr || !r.target_file.empty())
    given.add({engine.target.api_group, engine.target.version, engine.target.plural, r.namespace_name, r.name},
              given_target(engine, r));
  const kube::ObjectReader& reader = r.cluster != nullptr && r.target_file.empty() ? *r.cluster : given;

  const pipeline::Observe observe(reader, *set);
  auto read = observe.target(r.namespace_name, spec);
  if (const auto* stop = std::get_if<pipeline::Stop>(&read))
    throw Exit(stop->reason == pipeline::kNoAdapter ? kExitBadInput : kExitFailure, stop->message);
  const auto& observed = std::get<pipeline::Observed>(read);
  const std::int64_t until = r.until > 0 ? r.until : now_seconds();
  const history::Grid grid = history::grid_ending_at(until, r.since_seconds, r.step_seconds);
  History h;
  h.shape = shape_of(observed.topology);
  h.start = grid.start;
  h.rows = grid.rows();
  try {
    pipeline::ObservedHistory read_back =
        observe.history({r.namespace_name, "", spec, engine, *observed.target.object, observed.topology}, grid, true,
                        r.timeout_seconds);
    h.trace = std::move(read_back.trace);
    h.notes = std::move(read_back.notes);
    h.monitoring_namespace = std::move(read_back.monitoring_namespace);
  } catch (const history::HistoryError& e) {
    throw Exit(e.bad_input() ? kExitBadInput : kExitFailure, e.what());
  }
  return h;
}

}  // namespace dha::cli
