#include "operator/dha_cache_entry.hpp"

#include <stdexcept>
#include <string_view>

#include "pipeline/finalizer.hpp"

namespace dha::op {
namespace {

using rapidjson::Value;

const Value* member(const Value& object, const char* name) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

void copy_member(const Value& from, Value& to, const char* name, rapidjson::Document::AllocatorType& a) {
  if (const Value* v = member(from, name); v != nullptr && !v->IsObject() && !v->IsArray())
    to.AddMember(rapidjson::StringRef(name), Value(*v, a), a);
}

Value kept_metadata(const Value& metadata, rapidjson::Document::AllocatorType& a) {
  Value out(rapidjson::kObjectType);
  for (const char* name : {"name", "namespace", "uid", "resourceVersion", "generation", "deletionTimestamp"})
    copy_member(metadata, out, name, a);
  if (const Value* finalizers = member(metadata, "finalizers"); finalizers != nullptr && finalizers->IsArray()) {
    for (const auto& f : finalizers->GetArray()) {
      if (!f.IsString() || std::string_view(f.GetString(), f.GetStringLength()) != pipeline::kFinalizer) continue;
      Value ours(rapidjson::kArrayType);
      ours.PushBack(rapidjson::StringRef(pipeline::kFinalizer), a);
      out.AddMember("finalizers", ours, a);
      break;
    }
  }
  return out;
}

// Absent when a field is not a string or is longer than its ceiling.
bool kept_target_ref(const Value& ref, Value& out, rapidjson::Document::AllocatorType& a) {
  const struct {
    const char* name;
    std::size_t limit;
  } fields[] = {{"apiGroup", pipeline::kMaxTargetGroupOrName},
                {"kind", pipeline::kMaxTargetKind},
                {"name", pipeline::kMaxTargetGroupOrName}};
  for (const auto& f : fields) {
    const Value* v = member(ref, f.name);
    if (v == nullptr) continue;
    if (!v->IsString() || v->GetStringLength() > f.limit) return false;
    out.AddMember(rapidjson::StringRef(f.name), Value(*v, a), a);
  }
  return true;
}

}  // namespace

void keep_what_the_operator_reads(rapidjson::Document& dha) {
  if (!dha.IsObject()) return;
  rapidjson::Document kept(rapidjson::kObjectType);
  auto& a = kept.GetAllocator();
  copy_member(dha, kept, "apiVersion", a);
  copy_member(dha, kept, "kind", a);
  if (const Value* metadata = member(dha, "metadata"); metadata != nullptr && metadata->IsObject())
    kept.AddMember("metadata", kept_metadata(*metadata, a), a);
  const Value* spec = member(dha, "spec");
  if (const Value* ref = spec != nullptr ? member(*spec, "targetRef") : nullptr; ref != nullptr && ref->IsObject()) {
    Value target(rapidjson::kObjectType);
    if (kept_target_ref(*ref, target, a)) {
      Value kept_spec(rapidjson::kObjectType);
      kept_spec.AddMember("targetRef", target, a);
      kept.AddMember("spec", kept_spec, a);
    }
  }
  dha.Swap(kept);
}

std::vector<admission::TargetClaim> claims_in_cache(const kube::Informer& dhas, const std::string& ns) {
  if (!dhas.has_synced()) throw std::runtime_error("the operator's DHA cache has not synced yet");
  std::vector<admission::TargetClaim> claims;
  for (const auto& dha : dhas.list(ns))
    if (auto claim = admission::claim_of(*dha)) claims.push_back(std::move(*claim));
  return claims;
}

}  // namespace dha::op
