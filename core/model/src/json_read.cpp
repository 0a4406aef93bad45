#include "dha/model/json_read.hpp"

#include <cmath>
#include <limits>

#include "dha/model/input_error.hpp"

namespace dha::model::json {

const rapidjson::Value* find(const rapidjson::Value& object, const char* name) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(name);
  if (it == object.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

void require_object(const rapidjson::Value& value, const std::string& path) {
  if (!value.IsObject()) throw InputError(path, "must be an object");
}

void require_array(const rapidjson::Value& value, const std::string& path) {
  if (!value.IsArray()) throw InputError(path, "must be an array");
}

std::int64_t to_integer(const rapidjson::Value& value, const std::string& path, std::int64_t min, std::int64_t max) {
  std::int64_t result = 0;
  if (value.IsInt64()) {
    result = value.GetInt64();
  } else if (value.IsUint64()) {
    throw InputError(path, "out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  } else if (value.IsDouble()) {
    const double d = value.GetDouble();
    if (!std::isfinite(d) || std::trunc(d) != d) throw InputError(path, "must be an integer");
    // 2^63 is exactly representable; anything at or beyond it does not fit.
    if (d >= 9223372036854775808.0 || d < -9223372036854775808.0)
      throw InputError(path, "out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    result = static_cast<std::int64_t>(d);
  } else {
    throw InputError(path, "must be an integer");
  }
  if (result < min || result > max)
    throw InputError(path, "out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return result;
}

std::int32_t to_int32(const rapidjson::Value& value, const std::string& path, std::int32_t min, std::int32_t max) {
  return static_cast<std::int32_t>(to_integer(value, path, min, max));
}

double to_number(const rapidjson::Value& value, const std::string& path) {
  if (value.IsNumber()) return value.GetDouble();
  if (value.IsString()) {
    const std::string s(value.GetString(), value.GetStringLength());
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "+Inf" || s == "Inf") return std::numeric_limits<double>::infinity();
    if (s == "-Inf") return -std::numeric_limits<double>::infinity();
  }
  throw InputError(path, "must be a number");
}

bool to_bool(const rapidjson::Value& value, const std::string& path) {
  if (!value.IsBool()) throw InputError(path, "must be true or false");
  return value.GetBool();
}

std::string to_string(const rapidjson::Value& value, const std::string& path) {
  if (!value.IsString()) throw InputError(path, "must be a string");
  return std::string(value.GetString(), value.GetStringLength());
}

std::optional<std::int32_t> optional_int32(const rapidjson::Value& object, const char* name, const std::string& path,
                                           std::int32_t min, std::int32_t max) {
  const rapidjson::Value* v = find(object, name);
  if (v == nullptr) return std::nullopt;
  return to_int32(*v, child(path, name), min, max);
}

std::optional<std::int64_t> optional_int64(const rapidjson::Value& object, const char* name, const std::string& path) {
  const rapidjson::Value* v = find(object, name);
  if (v == nullptr) return std::nullopt;
  return to_integer(*v, child(path, name), std::numeric_limits<std::int64_t>::min(),
                    std::numeric_limits<std::int64_t>::max());
}

std::optional<double> optional_number(const rapidjson::Value& object, const char* name, const std::string& path) {
  const rapidjson::Value* v = find(object, name);
  if (v == nullptr) return std::nullopt;
  return to_number(*v, child(path, name));
}

std::optional<bool> optional_bool(const rapidjson::Value& object, const char* name, const std::string& path) {
  const rapidjson::Value* v = find(object, name);
  if (v == nullptr) return std::nullopt;
  return to_bool(*v, child(path, name));
}

std::string child(const std::string& path, const char* name) {
  return path.empty() ? std::string(name) : path + "." + name;
}

std::string index(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

}  // namespace dha::model::json
