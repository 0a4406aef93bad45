#include "pipeline/tenant_metadata.hpp"

#include <string_view>

#include "pipeline/finalizer.hpp"

namespace dha::pipeline {

rapidjson::Document without_tenant_metadata(const rapidjson::Value& dha) {
  rapidjson::Document out;
  if (!dha.IsObject()) {
    out.CopyFrom(dha, out.GetAllocator());
    return out;
  }
  auto& a = out.GetAllocator();
  out.SetObject();
  for (const auto& member : dha.GetObject()) {
    const std::string_view name(member.name.GetString(), member.name.GetStringLength());
    if (name != "metadata" || !member.value.IsObject()) {
      out.AddMember(rapidjson::Value(member.name, a), rapidjson::Value(member.value, a), a);
      continue;
    }
    rapidjson::Value metadata(rapidjson::kObjectType);
    for (const auto& field : member.value.GetObject()) {
      const std::string_view key(field.name.GetString(), field.name.GetStringLength());
      if (key == "annotations" || key == "labels" || key == "managedFields" || key == "ownerReferences") continue;
      if (key == "finalizers" && field.value.IsArray()) {
        rapidjson::Value ours(rapidjson::kArrayType);
        for (const auto& f : field.value.GetArray())
          if (f.IsString() && std::string_view(f.GetString(), f.GetStringLength()) == kFinalizer)
            ours.PushBack(rapidjson::StringRef(kFinalizer), a);
        metadata.AddMember(rapidjson::Value(field.name, a), ours, a);
        continue;
      }
      metadata.AddMember(rapidjson::Value(field.name, a), rapidjson::Value(field.value, a), a);
    }
    out.AddMember(rapidjson::Value(member.name, a), metadata, a);
  }
  return out;
}

}  // namespace dha::pipeline
