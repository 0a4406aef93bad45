#pragma once
// Small helpers over RapidJSON for the object shapes Kubernetes uses.

#include <rapidjson/document.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace dha::testing::apiserver {

using Json = rapidjson::Value;
using JsonDoc = rapidjson::Document;
using Alloc = rapidjson::Document::AllocatorType;
using ObjectPtr = std::shared_ptr<const JsonDoc>;

// Parses JSON; throws ApiError 400 with the parser's complaint on malformed input.
JsonDoc parse_json(std::string_view text);
// Parses YAML (single document) into JSON; throws ApiError 400 on bad YAML.
JsonDoc parse_yaml(std::string_view text);
// Splits a multi-document YAML stream and converts each non-empty document.
std::vector<JsonDoc> parse_yaml_documents(std::string_view text);

std::string to_json(const Json& value);
std::shared_ptr<JsonDoc> clone(const Json& value);

// Member lookups that tolerate absent or wrongly-typed parents.
const Json* member(const Json& object, std::string_view key);
Json* member(Json& object, std::string_view key);
const Json* at_path(const Json& root, const std::vector<std::string>& path);
std::string string_at(const Json& root, const std::vector<std::string>& path, const std::string& fallback = "");

// Sets object[key] = value (replacing), creating `object` as {} if it is not an object.
void set_member(Json& object, std::string_view key, Json value, Alloc& alloc);
void set_string(Json& object, std::string_view key, std::string_view value, Alloc& alloc);
void remove_member(Json& object, std::string_view key);
// Returns object[key], creating an empty object there if missing or not an object.
Json& ensure_object(Json& object, std::string_view key, Alloc& alloc);

// Splits ".a.b.c" or "a.b.c" into segments.
std::vector<std::string> split_dotted(std::string_view path);

std::string base64_encode(std::string_view data);
std::string base64_decode(std::string_view data);

// RFC 3339 timestamp in UTC, seconds precision, like metav1.Time.
std::string now_rfc3339();

}  // namespace dha::testing::apiserver
