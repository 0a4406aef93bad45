#include "simulate_target.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>

#include "dha/model/input_error.hpp"
#include "dha/model/yaml_to_json.hpp"
#include "dha/sdk/engine_types.hpp"
#include "exit.hpp"
#include "host/plugin_set.hpp"
#include "pipeline/target.hpp"

namespace dha::cli {
namespace {

std::int32_t to_int32(std::int64_t v) { return static_cast<std::int32_t>(std::clamp<std::int64_t>(v, 0, INT32_MAX)); }

}  // namespace

rapidjson::Document read_target_object(const std::string& target_file) {
  std::ifstream in(target_file, std::ios::binary);
  if (!in) throw Exit(kExitBadInput, "--target: cannot read " + target_file);
  std::ostringstream text;
  text << in.rdbuf();
  rapidjson::Document object;
  try {
    object = model::yaml_to_json(text.str(), target_file);
  } catch (const model::InputError& e) {
    throw Exit(kExitBadInput, e.what());
  }
  if (!object.IsObject() || !object.HasMember("apiVersion") || !object["apiVersion"].IsString() ||
      !object.HasMember("kind") || !object["kind"].IsString())
    throw Exit(kExitBadInput, target_file + ": not a Kubernetes object (apiVersion and kind are required)");
  return object;
}

sdk::Topology topology_of(const op::EngineBinding& engine, const rapidjson::Value& object, const std::string& what) {
  // The operator's own reading of a target (pipeline::read_topology), so the simulator sees
  // the floor and primaries a reconcile would.
  pipeline::Target target{&engine, {}, nullptr};
  auto copy = std::make_shared<rapidjson::Document>();
  copy->CopyFrom(object, copy->GetAllocator());
  target.object = std::move(copy);
  auto topology = pipeline::read_topology(target);
  if (const auto* stop = std::get_if<pipeline::Stop>(&topology))
    throw Exit(kExitBadInput, fmt::format("{}: {}", what, stop->message));
  return std::get<sdk::Topology>(std::move(topology));
}

TargetShape shape_of(const sdk::Topology& topology) {
  return {std::max(to_int32(topology.quorum_floor), 1), to_int32(topology.primary_count)};
}

TargetShape target_shape(const std::string& target_file, const ToolPlugins& plugins) {
  const rapidjson::Document object = read_target_object(target_file);
  const std::string api_version = object["apiVersion"].GetString();
  const auto slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  ToolPlugins adapters = plugins;
  adapters.needs_metric_source = false;
  const auto set = load_tool_plugins(adapters);
  const op::EngineBinding& engine = tool_engine(*set, group, object["kind"].GetString(), adapters);
  return shape_of(topology_of(engine, object, target_file));
}

}  // namespace dha::cli
