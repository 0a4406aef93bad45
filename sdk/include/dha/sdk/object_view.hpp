#pragma once

#include <string_view>

#include "dha/sdk/json.hpp"

namespace dha::sdk {

// A read-only view of a Kubernetes object as JSON (the target, a health object). Borrowed: valid
// while the document it points into lives — inside a plugin call, for the duration of the call.
class ObjectView {
 public:
  explicit ObjectView(const json::Value& object) noexcept : object_(&object) {}

  const json::Value& json() const noexcept { return *object_; }

  std::string_view api_version() const noexcept { return string_at("apiVersion"); }
  std::string_view kind() const noexcept { return string_at("kind"); }
  std::string_view name() const noexcept { return string_at("metadata.name"); }
  std::string_view namespace_name() const noexcept { return string_at("metadata.namespace"); }

  // `spec` / `status`, or an empty object when missing or not an object, so that the values
  // helpers (values.hpp) can read from it unconditionally.
  const json::Value& spec() const noexcept { return object_or_empty("spec"); }
  const json::Value& status() const noexcept { return object_or_empty("status"); }
  bool has_status() const noexcept {
    const json::Value* s = json::find(*object_, "status");
    return s != nullptr && s->IsObject();
  }

  // Any value by dot path from the root ("spec.instances"); nullptr when absent.
  const json::Value* at(std::string_view path) const noexcept { return json::find_path(*object_, path); }

 private:
  std::string_view string_at(std::string_view path) const noexcept {
    const json::Value* v = json::find_path(*object_, path);
    return v != nullptr && v->IsString() ? json::view(*v) : std::string_view{};
  }
  const json::Value& object_or_empty(std::string_view key) const noexcept {
    static const json::Value kEmpty(rapidjson::kObjectType);
    const json::Value* v = json::find(*object_, key);
    return v != nullptr && v->IsObject() ? *v : kEmpty;
  }

  const json::Value* object_;
};

}  // namespace dha::sdk
