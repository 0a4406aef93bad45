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

}  // namespace

bool update_status(kube::Client& client, op::SelfMetrics& metrics, const rapidjson::Value& dha,
                   const model::DhaStatus& previous, const model::DhaStatus& next,
                   const std::vector<model::UnreadableField>& keep_as_stored) {
  if (previous == next) return false;
  const kube::ResourceRef ref = kube::resources::dhas(kube::namespace_of(dha)).named(kube::name_of(dha));
  rapidjson::Document object = kube::copy_json(dha);
  constexpr int kAttempts = 4;
  for (int attempt = 1;; ++attempt) {
    auto& a = object.GetAllocator();
    rapidjson::Value status = model::status_to_json(next, a);
    if (const auto* stored = kube::find_path(object, {"status"}); stored != nullptr && stored->IsObject()) {
      for (const auto& field : keep_as_stored) {
        const auto it = stored->FindMember(field.name.c_str());
        if (it == stored->MemberEnd()) continue;
        status.RemoveMember(field.name.c_str());
        status.AddMember(rapidjson::Value(field.name.c_str(), a), rapidjson::Value(it->value, a), a);
      }
    }
    object.RemoveMember("status");
    object.AddMember("status", status, a);
    try {
      op::counted_api_call(metrics, "update", [&] { return client.update_status(ref, object); });
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
    object = std::move(*fresh);
  }
}

}  // namespace dha::status
