#pragma once

// Small RapidJSON helpers shared by plugins and the host: strict parsing with readable errors,
// typed field access that names the offending field, and writing. Every failure is a
// dha::sdk::Error, so inside a trampoline it becomes a status with a message.

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dha/sdk/error.hpp"

namespace dha::sdk::json {

using Value = rapidjson::Value;
using Document = rapidjson::Document;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// Deeper documents are refused before parsing: RapidJSON's writer and copy are recursive, and
// no document of ours nests anywhere near this.
inline constexpr int kMaxDepth = 128;

// Nesting depth of JSON text, counting brackets outside strings. Linear, no recursion.
inline int nesting_depth(std::string_view text) noexcept {
  int depth = 0;
  int deepest = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

// Parses one JSON document. `what` names it in the error ("topology input", "config", ...).
// Malformed text, trailing garbage and excessive nesting are DHA_INVALID_ARGUMENT.
inline Document parse(std::string_view text, std::string_view what) {
  if (nesting_depth(text) > kMaxDepth) {
    throw Error(DHA_INVALID_ARGUMENT,
                std::string(what) + ": JSON nested deeper than " + std::to_string(kMaxDepth) + " levels");
  }
  Document doc;
  // Full precision: a double the SDK wrote (shortest form) reads back as the same double. The
  // default, faster reading can be one unit in the last place off, so a sample crossing the
  // plugin boundary could change on the way (the prometheus_response fuzzer found 2.4e28).
  doc.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseFullPrecisionFlag>(text.data(), text.size());
  if (doc.HasParseError()) {
    throw Error(DHA_INVALID_ARGUMENT, std::string(what) + ": malformed JSON at offset " +
                                          std::to_string(doc.GetErrorOffset()) + ": " +
                                          rapidjson::GetParseError_En(doc.GetParseError()));
  }
  return doc;
}

// Like parse(), and the root must be an object.
inline Document parse_object(std::string_view text, std::string_view what) {
  Document doc = parse(text, what);
  if (!doc.IsObject()) throw Error(DHA_INVALID_ARGUMENT, std::string(what) + ": expected a JSON object");
  return doc;
}

inline std::string stringify(const Value& value) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

inline std::string_view view(const Value& string_value) noexcept {
  return {string_value.GetString(), string_value.GetStringLength()};
}

inline void write_string(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}
inline void write_key(Writer& w, std::string_view s) { w.Key(s.data(), static_cast<rapidjson::SizeType>(s.size())); }

// Member `key` of `object`, or nullptr when `object` is not an object or lacks the key.
inline const Value* find(const Value& object, std::string_view key) noexcept {
  if (!object.IsObject()) return nullptr;
  for (auto it = object.MemberBegin(); it != object.MemberEnd(); ++it) {
    if (view(it->name) == key) return &it->value;
  }
  return nullptr;
}

// The steps of a dot path: "spec.quorum.maxSyncReplicas" → {"spec", "quorum", "maxSyncReplicas"};
// an empty path has none. The views point into `path`.
inline std::vector<std::string_view> path_steps(std::string_view path) {
  std::vector<std::string_view> steps;
  while (!path.empty()) {
    const size_t dot = path.find('.');
    steps.push_back(path.substr(0, dot));
    path = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
  }
  return steps;
}

// Follows a dot path ("spec.quorum.maxSyncReplicas") through nested objects; nullptr when any
// step is missing or not an object. An empty path is the value itself.
inline const Value* find_path(const Value& root, std::string_view path) noexcept {
  const Value* current = &root;
  while (!path.empty()) {
    const size_t dot = path.find('.');
    const std::string_view step = path.substr(0, dot);
    current = find(*current, step);
    if (current == nullptr) return nullptr;
    path = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
  }
  return current;
}

// The value of annotation `key` on a Kubernetes object; "" when absent or not a string. (An
// annotation key has dots and slashes in it, so a dot path reaches only the annotations object.)
inline std::string_view annotation(const Value& object, std::string_view key) noexcept {
  const Value* annotations = find_path(object, "metadata.annotations");
  const Value* value = annotations == nullptr ? nullptr : find(*annotations, key);
  return value != nullptr && value->IsString() ? view(*value) : std::string_view{};
}

// Saturating conversion of a JSON number to int64, truncating toward zero.
inline int64_t truncate_to_int64(const Value& number) noexcept {
  if (number.IsInt64()) return number.GetInt64();
  if (number.IsUint64()) return std::numeric_limits<int64_t>::max();
  const double d = number.GetDouble();
  if (std::isnan(d)) return 0;
  if (d >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  if (d <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

// --- Field readers for documents crossing the ABI. `what` prefixes errors, e.g. "topology". ---

inline Error field_error(std::string_view what, std::string_view key, std::string_view expected) {
  return Error(DHA_INVALID_ARGUMENT,
               std::string(what) + ": field '" + std::string(key) + "' must be " + std::string(expected));
}

inline std::optional<std::string> optional_string(const Value& object, std::string_view key, std::string_view what) {
  const Value* v = find(object, key);
  if (v == nullptr || v->IsNull()) return std::nullopt;
  if (!v->IsString()) throw field_error(what, key, "a string");
  return std::string(view(*v));
}

inline std::string string_or(const Value& object, std::string_view key, std::string_view fallback,
                             std::string_view what) {
  return optional_string(object, key, what).value_or(std::string(fallback));
}

inline std::string require_string(const Value& object, std::string_view key, std::string_view what) {
  auto s = optional_string(object, key, what);
  if (!s) throw field_error(what, key, "present (a string)");
  return *s;
}

// An integer field: a JSON integer, or a number with no fractional part.
inline std::optional<int64_t> optional_integer(const Value& object, std::string_view key, std::string_view what) {
  const Value* v = find(object, key);
  if (v == nullptr || v->IsNull()) return std::nullopt;
  if (v->IsInt64()) return v->GetInt64();
  if (v->IsDouble()) {
    const double d = v->GetDouble();
    if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 9.0e18) return static_cast<int64_t>(d);
  }
  throw field_error(what, key, "an integer");
}

inline int64_t integer_or(const Value& object, std::string_view key, int64_t fallback, std::string_view what) {
  return optional_integer(object, key, what).value_or(fallback);
}

inline int64_t require_integer(const Value& object, std::string_view key, std::string_view what) {
  auto i = optional_integer(object, key, what);
  if (!i) throw field_error(what, key, "present (an integer)");
  return *i;
}

inline std::optional<double> optional_number(const Value& object, std::string_view key, std::string_view what) {
  const Value* v = find(object, key);
  if (v == nullptr || v->IsNull()) return std::nullopt;
  if (!v->IsNumber()) throw field_error(what, key, "a number");
  return v->GetDouble();
}

inline double number_or(const Value& object, std::string_view key, double fallback, std::string_view what) {
  return optional_number(object, key, what).value_or(fallback);
}

inline std::optional<bool> optional_bool(const Value& object, std::string_view key, std::string_view what) {
  const Value* v = find(object, key);
  if (v == nullptr || v->IsNull()) return std::nullopt;
  if (!v->IsBool()) throw field_error(what, key, "a boolean");
  return v->GetBool();
}

inline bool bool_or(const Value& object, std::string_view key, bool fallback, std::string_view what) {
  return optional_bool(object, key, what).value_or(fallback);
}

// An object (or null / missing) member; throws if present with another type.
inline const Value* optional_object(const Value& object, std::string_view key, std::string_view what) {
  const Value* v = find(object, key);
  if (v == nullptr || v->IsNull()) return nullptr;
  if (!v->IsObject()) throw field_error(what, key, "an object");
  return v;
}

inline const Value& require_object(const Value& object, std::string_view key, std::string_view what) {
  const Value* v = optional_object(object, key, what);
  if (v == nullptr) throw field_error(what, key, "present (an object)");
  return *v;
}

inline const Value* optional_array(const Value& object, std::string_view key, std::string_view what) {
  const Value* v = find(object, key);
  if (v == nullptr || v->IsNull()) return nullptr;
  if (!v->IsArray()) throw field_error(what, key, "an array");
  return v;
}

}  // namespace dha::sdk::json
