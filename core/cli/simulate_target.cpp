#include "simulate_target.hpp"

#include <fmt/format.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "dha/model/input_error.hpp"
#include "dha/model/yaml_to_json.hpp"
#include "dha/sdk/engine_types.hpp"
#include "exit.hpp"
#include "operator/plugin_set.hpp"

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
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  object.Accept(w);
  const auto result = engine.instance->call(engine.instance->engine()->topology, buf.GetString());
  if (!result.ok()) throw Exit(kExitBadInput, fmt::format("{}: the adapter refused it: {}", what, result.error));
  try {
    return sdk::Topology::from_json(sdk::json::parse(result.output, "topology"));
  } catch (const std::exception& e) {
    throw Exit(kExitFailure, fmt::format("{}: the adapter's topology is invalid: {}", what, e.what()));
  }
}

TargetShape shape_of(const sdk::Topology& topology) {
  return {std::max(to_int32(topology.quorum_floor), 1), to_int32(topology.primary_count)};
}

TargetShape target_shape(const std::string& target_file, const std::vector<std::string>& plugin_dirs,
                         const std::vector<std::string>& plugins) {
  const rapidjson::Document object = read_target_object(target_file);
  const std::string api_version = object["apiVersion"].GetString();
  const auto slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  const std::string kind = object["kind"].GetString();

  std::unique_ptr<op::PluginSet> set;
  try {
    set = op::PluginSet::load({plugin_dirs, plugins, ""});
  } catch (const std::exception& e) {
    throw Exit(kExitBadInput, std::string("--plugins: ") + e.what());
  }
  const op::EngineBinding* engine = set->engine_for(group, kind);
  if (engine == nullptr)
    throw Exit(kExitBadInput, fmt::format("{}: no loaded adapter handles {}/{} (loaded: {}); name one with --plugins",
                                          target_file, group, kind, set->handled_kinds()));
  return shape_of(topology_of(*engine, object, target_file));
}

}  // namespace dha::cli
