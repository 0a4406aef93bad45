#include "crd_defaults.hpp"

#include <string>

#include "dha/model/input_error.hpp"
#include "dha/model/yaml_to_json.hpp"

namespace dha::cli {
namespace {

using rapidjson::Value;

const Value* member(const Value& v, const char* name) {
  if (!v.IsObject()) return nullptr;
  const auto it = v.FindMember(name);
  return it == v.MemberEnd() ? nullptr : &it->value;
}

// spec.versions[0].schema.openAPIV3Schema.properties.spec of the embedded CRD.
const Value& spec_schema() {
  static const rapidjson::Document crd = model::yaml_to_json(dha_crd_text(), "embedded DHA CRD");
  static const Value* schema = [] {
    const Value* versions = member(crd, "spec") ? member(*member(crd, "spec"), "versions") : nullptr;
    if (versions == nullptr || !versions->IsArray() || versions->Empty())
      throw model::InputError("embedded DHA CRD", "has no versions");
    const Value* s = member((*versions)[0], "schema");
    for (const char* key : {"openAPIV3Schema", "properties", "spec"}) s = s ? member(*s, key) : nullptr;
    if (s == nullptr) throw model::InputError("embedded DHA CRD", "has no spec schema");
    return s;
  }();
  return *schema;
}

void default_value(const Value& schema, Value& value, rapidjson::Document::AllocatorType& alloc) {
  if (value.IsObject()) {
    const Value* props = member(schema, "properties");
    if (props == nullptr || !props->IsObject()) return;
    for (auto p = props->MemberBegin(); p != props->MemberEnd(); ++p) {
      auto field = value.FindMember(p->name);
      if (field == value.MemberEnd()) {
        const Value* d = member(p->value, "default");
        if (d == nullptr) continue;
        value.AddMember(Value(p->name, alloc), Value(*d, alloc), alloc);
        field = value.FindMember(p->name);
      }
      default_value(p->value, field->value, alloc);
    }
  } else if (value.IsArray()) {
    const Value* items = member(schema, "items");
    if (items == nullptr) return;
    for (auto& item : value.GetArray()) default_value(*items, item, alloc);
  }
}

}  // namespace

void apply_crd_defaults(Value& spec, rapidjson::Document::AllocatorType& alloc) {
  default_value(spec_schema(), spec, alloc);
}

}  // namespace dha::cli
