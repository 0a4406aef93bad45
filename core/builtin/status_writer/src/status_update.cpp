#include "dha/status_writer/status_update.hpp"

#include "dha/kube/json.hpp"
#include "host/api_calls.hpp"

namespace dha::status {
namespace {

bool same_status(const rapidjson::Value& read, const rapidjson::Value& fresh) {
  const auto* a = kube::find_path(read, {"status"});
  const auto* b = kube::find_path(fresh, {"status"});
  if (a == nullptr || b == nullptr) return a == b;
  return *a == *b;
}

// A JSON merge patch turning status `from` into `to`, field by top-level field: a field `to`
// lacks becomes null, a changed one is sent whole (so each write reads on its own in an audit
// log), an unchanged one is left out.
rapidjson::Value merge_diff(const rapidjson::Value& from, const rapidjson::Value& to,
                            rapidjson::Document::AllocatorType& a) {
  if (!from.IsObject() || !to.IsObject()) return rapidjson::Value(to, a);
  rapidjson::Value patch(rapidjson::kObjectType);
  for (const auto& m : from.GetObject())
    if (!to.HasMember(m.name)) patch.AddMember(rapidjson::Value(m.name, a), rapidjson::Value(), a);
  for (const auto& m : to.GetObject()) {
    const auto old = from.FindMember(m.name);
    if (old != from.MemberEnd() && old->value == m.value) continue;
    patch.AddMember(rapidjson::Value(m.name, a), rapidjson::Value(m.value, a), a);
  }
  return patch;
}

// The status to write: `next`, with the fields that could not be read kept as `stored` has them.
rapidjson::Value status_to_write(const model::DhaStatus& next, const rapidjson::Value* stored,
                                 const std::vector<model::UnreadableField>& keep_as_stored,
                                 rapidjson::Document::AllocatorType& a) {
  rapidjson::Value status = model::status_to_json(next, a);
  if (stored == nullptr || !stored->IsObject()) return status;
  for (const auto& field : keep_as_stored) {
    const auto it = stored->FindMember(field.name.c_str());
    if (it == stored->MemberEnd()) continue;
    status.RemoveMember(field.name.c_str());
    status.AddMember(rapidjson::Value(field.name.c_str(), a), rapidjson::Value(it->value, a), a);
  }
  return status;
}

}  // namespace

std::string status_patch(const rapidjson::Value& dha, const model::DhaStatus& next,
                         const std::vector<model::UnreadableField>& keep_as_stored) {
  rapidjson::Document patch(rapidjson::kObjectType);
  auto& a = patch.GetAllocator();
  const auto* stored = kube::find_path(dha, {"status"});
  rapidjson::Value status = status_to_write(next, stored, keep_as_stored, a);
  const rapidjson::Value empty(rapidjson::kObjectType);
  rapidjson::Value metadata(rapidjson::kObjectType);
  metadata.AddMember("resourceVersion", rapidjson::Value(kube::resource_version_of(dha).c_str(), a), a);
  patch.AddMember("metadata", metadata, a);
  patch.AddMember("status", merge_diff(stored != nullptr && stored->IsObject() ? *stored : empty, status, a), a);
  return kube::to_json(patch);
}

bool update_status(kube::Client& client, op::SelfMetrics& metrics, const rapidjson::Value& dha,
                   const model::DhaStatus& previous, const model::DhaStatus& next,
                   const std::vector<model::UnreadableField>& keep_as_stored) {
  if (previous == next) return false;
  const kube::ResourceRef ref = kube::resources::dhas(kube::namespace_of(dha)).named(kube::name_of(dha));
  rapidjson::Document base = kube::copy_json(dha);
  constexpr int kAttempts = 4;
  for (int attempt = 1;; ++attempt) {
    try {
      const std::string patch = status_patch(base, next, keep_as_stored);
      op::counted_api_call(metrics, "patch", [&] { return client.patch_status(ref, patch); });
      return true;
    } catch (const kube::ApiError& e) {
      if (kube::is_not_found(e)) return false;
      if (!kube::is_conflict(e) || attempt == kAttempts) throw;
    }
    auto fresh = op::counted_api_call(metrics, "get", [&] { return client.get_if_exists(ref); });
    if (!fresh) return false;
    // Someone else wrote the status meanwhile (another leader, before this one was fenced):
    // what this reconcile decided rests on the status it read, so it is not sent over theirs.
    // The next reconcile starts from the fresh one. A change of spec or metadata alone leaves
    // the status ours to write.
    if (!same_status(dha, *fresh)) return false;
    base = std::move(*fresh);
  }
}

}  // namespace dha::status
