#include "operator/status_writer.hpp"

#include "dha/kube/json.hpp"
#include "operator/api_calls.hpp"

namespace dha::op {

void keep_decision_time(const model::DhaStatus& previous, model::DhaStatus& next) {
  if (!previous.last_decision || !next.last_decision) return;
  model::LastDecision prev = *previous.last_decision;
  prev.time = next.last_decision->time;
  if (prev == *next.last_decision) next.last_decision->time = previous.last_decision->time;
}

bool StatusWriter::write(const rapidjson::Value& dha, const model::DhaStatus& previous, const model::DhaStatus& next) {
  if (previous == next) return false;
  const kube::ResourceRef ref = kube::resources::dhas(kube::namespace_of(dha)).named(kube::name_of(dha));
  rapidjson::Document object = kube::copy_json(dha);
  constexpr int kAttempts = 4;
  for (int attempt = 1;; ++attempt) {
    auto& a = object.GetAllocator();
    object.RemoveMember("status");
    object.AddMember("status", model::status_to_json(next, a), a);
    try {
      counted_api_call(metrics_, "update", [&] { return client_.update_status(ref, object); });
      return true;
    } catch (const kube::ApiError& e) {
      if (kube::is_not_found(e)) return false;
      if (!kube::is_conflict(e) || attempt == kAttempts) throw;
    }
    auto fresh = counted_api_call(metrics_, "get", [&] { return client_.get_if_exists(ref); });
    if (!fresh) return false;
    object = std::move(*fresh);
  }
}

}  // namespace dha::op
