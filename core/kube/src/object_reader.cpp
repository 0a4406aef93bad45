#include "dha/kube/object_reader.hpp"

namespace dha::kube {

ObjectPtr ClientReader::get(const ResourceRef& ref) const {
  auto object = client_.get_if_exists(ref);
  if (!object) return nullptr;
  return std::make_shared<const rapidjson::Document>(std::move(*object));
}

std::vector<ObjectPtr> ClientReader::list(const ResourceRef& collection) const {
  const auto page = client_.list_all(collection);
  std::vector<ObjectPtr> out;
  if (const auto* items = find_path(page.list, {"items"}); items != nullptr && items->IsArray())
    for (const auto& item : items->GetArray())
      out.push_back(std::make_shared<const rapidjson::Document>(copy_json(item)));
  return out;
}

}  // namespace dha::kube
