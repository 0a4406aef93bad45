#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>

// Typed reads of JSON fields that name the offending field on error (InputError). Absent and
// null are the same thing for optional fields, as in Kubernetes objects.
namespace dha::model::json {

// The member `name` of `object`, or nullptr when absent or null.
const rapidjson::Value* find(const rapidjson::Value& object, const char* name);

void require_object(const rapidjson::Value& value, const std::string& path);
void require_array(const rapidjson::Value& value, const std::string& path);

// A whole number in [min, max]; 3.0 is accepted as 3, 3.5 is not.
std::int64_t to_integer(const rapidjson::Value& value, const std::string& path, std::int64_t min, std::int64_t max);
std::int32_t to_int32(const rapidjson::Value& value, const std::string& path, std::int32_t min = INT32_MIN,
                      std::int32_t max = INT32_MAX);
// Any number, including NaN and +-Inf when the parser allowed them; strings "NaN", "+Inf",
// "-Inf", "Inf" are accepted too because PromQL renders sample values that way.
double to_number(const rapidjson::Value& value, const std::string& path);
bool to_bool(const rapidjson::Value& value, const std::string& path);
std::string to_string(const rapidjson::Value& value, const std::string& path);

std::optional<std::int32_t> optional_int32(const rapidjson::Value& object, const char* name, const std::string& path,
                                           std::int32_t min = INT32_MIN, std::int32_t max = INT32_MAX);
std::optional<std::int64_t> optional_int64(const rapidjson::Value& object, const char* name, const std::string& path);
std::optional<double> optional_number(const rapidjson::Value& object, const char* name, const std::string& path);
std::optional<bool> optional_bool(const rapidjson::Value& object, const char* name, const std::string& path);

// "a.b" + "c" -> "a.b.c"; index(path, 2) -> "path[2]".
std::string child(const std::string& path, const char* name);
std::string index(const std::string& path, std::size_t i);

}  // namespace dha::model::json
