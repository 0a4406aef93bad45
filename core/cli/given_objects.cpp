#include "given_objects.hpp"

namespace dha::cli {
namespace {

std::string key_of(const kube::ResourceRef& ref) {
  return ref.group + "/" + ref.plural + "/" + ref.namespace_ + "/" + ref.name;
}

}  // namespace

void GivenObjects::add(const kube::ResourceRef& ref, rapidjson::Document object) {
  objects_[key_of(ref)] = std::make_shared<const rapidjson::Document>(std::move(object));
}

kube::ObjectPtr GivenObjects::get(const kube::ResourceRef& ref) const {
  const auto it = objects_.find(key_of(ref));
  return it == objects_.end() ? nullptr : it->second;
}

rapidjson::Document identity_object(const op::EngineBinding& engine, const std::string& ns, const std::string& name) {
  rapidjson::Document object(rapidjson::kObjectType);
  auto& a = object.GetAllocator();
  const std::string api_version = engine.target.api_group + "/" + engine.target.version;
  object.AddMember("apiVersion", rapidjson::Value(api_version.c_str(), a), a);
  object.AddMember("kind", rapidjson::Value(engine.target.kind.c_str(), a), a);
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("name", rapidjson::Value(name.c_str(), a), a);
  meta.AddMember("namespace", rapidjson::Value(ns.c_str(), a), a);
  object.AddMember("metadata", meta, a);
  object.AddMember("spec", rapidjson::Value(rapidjson::kObjectType), a);
  return object;
}

}  // namespace dha::cli
