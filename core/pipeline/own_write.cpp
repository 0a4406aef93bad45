#include "pipeline/own_write.hpp"

#include <rapidjson/pointer.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <optional>
#include <set>
#include <vector>

namespace dha::pipeline {
namespace {

using rapidjson::Pointer;
using rapidjson::Value;

// One place a request writes: the value there afterwards, or nullptr for "absent".
struct Leaf {
  Pointer where;
  const Value* value = nullptr;
};

std::string text_of(const Pointer& p) {
  rapidjson::StringBuffer buffer;
  p.Stringify(buffer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string text_of(const Leaf& leaf) {
  std::string out = text_of(leaf.where) + "=";
  if (leaf.value == nullptr) return out + "<absent>";
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  leaf.value->Accept(w);
  return out + std::string(buffer.GetString(), buffer.GetSize());
}

// A merge patch (RFC 7386): objects merge member by member, null deletes, anything else replaces.
void merge_leaves(const Value& patch, const Pointer& at, std::vector<Leaf>& out) {
  if (!patch.IsObject()) {
    out.push_back({at, patch.IsNull() ? nullptr : &patch});
    return;
  }
  for (const auto& m : patch.GetObject())
    merge_leaves(m.value, at.Append(m.name.GetString(), m.name.GetStringLength()), out);
}

// A JSON patch (RFC 6902); nullopt for an operation whose effect is not a value at a path.
std::optional<std::vector<Leaf>> json_patch_leaves(const Value& ops) {
  std::vector<Leaf> out;
  for (const auto& op : ops.GetArray()) {
    if (!op.IsObject() || !op.HasMember("op") || !op["op"].IsString() || !op.HasMember("path") ||
        !op["path"].IsString())
      return std::nullopt;
    Pointer where(op["path"].GetString(), op["path"].GetStringLength());
    if (!where.IsValid()) return std::nullopt;
    const std::string kind = op["op"].GetString();
    if (kind == "remove") {
      out.push_back({where, nullptr});
    } else if ((kind == "test" || kind == "add" || kind == "replace") && op.HasMember("value")) {
      out.push_back({where, &op["value"]});
    } else {
      return std::nullopt;
    }
  }
  return out;
}

// Every leaf the plan writes on the object itself; nullopt when one cannot be stated.
std::optional<std::vector<Leaf>> leaves_of(const sdk::ActuatorPlan& plan) {
  std::vector<Leaf> out;
  for (const auto& request : plan.requests) {
    if (request.subresource == "scale") continue;
    if (request.patch_type == "json") {
      auto ops = json_patch_leaves(request.body);
      if (!ops) return std::nullopt;
      out.insert(out.end(), ops->begin(), ops->end());
    } else {
      merge_leaves(request.body, Pointer(), out);
    }
  }
  return out;
}

bool in_effect(const Leaf& leaf, const Value& target) {
  const Value* now = leaf.where.Get(target);
  if (leaf.value == nullptr) return now == nullptr;
  return now != nullptr && *now == *leaf.value;
}

std::set<std::string> texts_of(const sdk::ActuatorPlan& plan) {
  std::set<std::string> out;
  if (auto leaves = leaves_of(plan))
    for (const auto& leaf : *leaves) out.insert(text_of(leaf));
  return out;
}

// "spec.replicas" → "/spec/replicas".
std::string pointer_of_dot_path(const std::string& dot_path) {
  Pointer p;
  for (const auto step : sdk::json::path_steps(dot_path))
    p = p.Append(step.data(), static_cast<rapidjson::SizeType>(step.size()));
  return text_of(p);
}

}  // namespace

bool plan_in_effect(const sdk::ActuatorPlan& plan, const rapidjson::Value& target) {
  const auto leaves = leaves_of(plan);
  if (!leaves) return false;
  for (const auto& leaf : *leaves)
    if (!in_effect(leaf, target)) return false;
  return true;
}

bool target_shows_our_write(const sdk::ActuatorPlan& ours, const sdk::ActuatorPlan& other_dha,
                            const sdk::ActuatorPlan& other_count, const rapidjson::Value& target,
                            const std::string& replicas_path) {
  const auto leaves = leaves_of(ours);
  if (!leaves || !plan_in_effect(ours, target)) return false;
  const auto for_other_dha = texts_of(other_dha);
  const auto for_other_count = texts_of(other_count);
  const std::string replicas = pointer_of_dot_path(replicas_path);
  bool names_us = false;
  bool counts = false;
  for (const auto& leaf : *leaves) {
    const std::string text = text_of(leaf);
    names_us = names_us || !for_other_dha.count(text);
    counts = counts || (!for_other_count.count(text) && text_of(leaf.where) != replicas);
  }
  return names_us && counts;
}

bool adopt_if_ours(model::DecisionState& state, std::int32_t current, std::int64_t now, bool ours) {
  if (!state.last_applied_replicas || *state.last_applied_replicas == current || !ours) return false;
  // Our write whose status never landed: it is in flight from now (its time is unknown), so the
  // convergence deadline and the single-flight rule apply to it as to any patch of ours.
  state.last_applied_replicas = current;
  state.last_scale_time = now;
  state.in_flight_since = now;
  return true;
}

}  // namespace dha::pipeline
