#include "pipeline/finalizer.hpp"

#include <string_view>

#include "dha/kube/json.hpp"
#include "host/api_calls.hpp"

namespace dha::pipeline {

bool has_finalizer(const rapidjson::Value& obj) {
  const auto* list = kube::find_path(obj, {"metadata", "finalizers"});
  if (list == nullptr || !list->IsArray()) return false;
  for (const auto& f : list->GetArray())
    if (f.IsString() && std::string_view(f.GetString(), f.GetStringLength()) == kFinalizer) return true;
  return false;
}

namespace {

bool add_to(rapidjson::Document& obj) {
  if (has_finalizer(obj)) return false;
  auto& a = obj.GetAllocator();
  auto& meta = obj["metadata"];
  if (!meta.HasMember("finalizers") || !meta["finalizers"].IsArray())
    meta.RemoveMember("finalizers"), meta.AddMember("finalizers", rapidjson::Value(rapidjson::kArrayType), a);
  meta["finalizers"].PushBack(rapidjson::Value(kFinalizer, a), a);
  return true;
}

}  // namespace

rapidjson::Document add_finalizer(kube::Client& client, op::SelfMetrics& metrics, const kube::ResourceRef& ref) {
  return op::counted_api_call(metrics, "update", [&] { return client.update_with_retry(ref, add_to); });
}

void remove_finalizer(kube::Client& client, op::SelfMetrics& metrics, const kube::ResourceRef& ref) {
  try {
    op::counted_api_call(metrics, "update", [&] {
      return client.update_with_retry(ref, [](rapidjson::Document& obj) {
        auto* list = obj["metadata"].HasMember("finalizers") ? &obj["metadata"]["finalizers"] : nullptr;
        if (list == nullptr || !list->IsArray()) return false;
        bool removed = false;
        for (auto it = list->Begin(); it != list->End();) {
          if (it->IsString() && std::string_view(it->GetString()) == kFinalizer) {
            it = list->Erase(it);
            removed = true;
          } else {
            ++it;
          }
        }
        return removed;
      });
    });
  } catch (const kube::ApiError& e) {
    if (!kube::is_not_found(e)) throw;
  }
}

}  // namespace dha::pipeline
