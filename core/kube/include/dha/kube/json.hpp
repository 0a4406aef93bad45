#pragma once
// Objects are RapidJSON documents: the client returns rapidjson::Document by value, the
// informer cache hands out ObjectPtr (shared, immutable — copy before changing).
// These helpers read the few metadata fields every controller needs.

#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "dha/kube/label_selector.hpp"

namespace dha::kube {

using ObjectPtr = std::shared_ptr<const rapidjson::Document>;

class JsonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws JsonError with RapidJSON's message and offset.
rapidjson::Document parse_json(std::string_view text);
std::string to_json(const rapidjson::Value& value);
rapidjson::Document copy_json(const rapidjson::Value& value);

// Member lookup along a path of object keys; nullptr when any step is missing or not an object.
const rapidjson::Value* find_path(const rapidjson::Value& value, std::initializer_list<std::string_view> path);
// The string at `path`, or "" when absent or not a string.
std::string string_at(const rapidjson::Value& value, std::initializer_list<std::string_view> path);

std::string name_of(const rapidjson::Value& obj);
std::string namespace_of(const rapidjson::Value& obj);
std::string resource_version_of(const rapidjson::Value& obj);
std::string uid_of(const rapidjson::Value& obj);
Labels labels_of(const rapidjson::Value& obj);
// "ns/name" or "name", the same key as ResourceRef::key().
std::string key_of(const rapidjson::Value& obj);

}  // namespace dha::kube
