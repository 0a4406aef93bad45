// The vendor's actuator: one RFC 6902 JSON patch that guards the count it read (a `test`
// operation), sets spec.topology.nodes and, on a scale-down, names the nodes to drain first
// (the highest ordinals) in spec.topology.<drainField>, where the vendor's operator looks.
#include <string>

#include "dha/sdk/sdk.hpp"

namespace keydb {

class KeyDbNodesActuator final : public dha::sdk::Actuator {
 public:
  static constexpr dha::sdk::PluginInfo info{
      .id = "keydb-nodes",
      .name = "KeyDB node count actuator",
      .version = "0.3.0",
      .vendor = "KeyDB Vendor Ltd.",
      .description = "Changes spec.topology.nodes with one guarded JSON patch and names the nodes to drain",
      .config_schema = R"({"keys": [
        {"name": "drainField", "type": "string", "default": "drain",
         "description": "Field of spec.topology that lists the nodes to drain on a scale-down"}]})"};

  KeyDbNodesActuator(const dha::sdk::Host&, const dha::sdk::json::Value& config)
      : drain_field_(config["drainField"].GetString()) {
    if (drain_field_.empty() || drain_field_.find_first_of("/~") != std::string::npos)
      throw dha::sdk::Error(DHA_INVALID_ARGUMENT, "drainField must be a plain field name");
  }

  dha::sdk::ActuatorPlan plan(const dha::sdk::ActuatorRequest& request) const override {
    dha::sdk::ActuatorPlan plan;
    if (request.action == dha::sdk::ActuatorRequest::Action::kRelease) return plan;
    const std::string pointer = "/" + pointer_of(request.replicas_path);
    const auto* name_value = dha::sdk::json::find_path(*request.target, "metadata.name");
    if (name_value == nullptr || !name_value->IsString() || name_value->GetStringLength() == 0)
      throw dha::sdk::Error(DHA_INVALID_ARGUMENT, "target object has no metadata.name");
    const std::string name(dha::sdk::json::view(*name_value));
    std::string ops = "[";
    if (request.current_replicas)
      ops += R"({"op": "test", "path": ")" + pointer + R"(", "value": )" + std::to_string(*request.current_replicas) +
             "}, ";
    ops +=
        R"({"op": "replace", "path": ")" + pointer + R"(", "value": )" + std::to_string(request.desired_replicas) + "}";
    if (request.current_replicas && request.desired_replicas < *request.current_replicas) {
      std::string drain;
      for (int64_t ordinal = *request.current_replicas - 1; ordinal >= request.desired_replicas; --ordinal)
        drain += (drain.empty() ? "\"" : ", \"") + name + "-" + std::to_string(ordinal) + "\"";
      ops += R"(, {"op": "add", "path": "/spec/topology/)" + drain_field_ + R"(", "value": [)" + drain + "]}";
    }
    plan.requests.emplace_back("", "json", ops + "]");
    return plan;
  }

 private:
  // "spec.topology.nodes" -> "spec/topology/nodes"
  static std::string pointer_of(const std::string& dotted) {
    std::string out = dotted;
    for (auto& c : out)
      if (c == '.') c = '/';
    return out;
  }
  std::string drain_field_;
};

}  // namespace keydb

DHA_EXPORT_PLUGINS(keydb::KeyDbNodesActuator)
