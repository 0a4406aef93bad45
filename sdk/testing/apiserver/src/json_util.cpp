#include "json_util.hpp"

#include "api_error.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace dha::testing::apiserver {

namespace {

// Everything downstream (copy, validate, serialise, destroy) recurses per nesting level, so
// absurd nesting is refused before parsing, as kube's decoder refuses it ("max depth").
constexpr int kMaxJsonDepth = 1000;

bool nesting_too_deep(std::string_view text) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxJsonDepth) return true;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return false;
}

int depth_of(const Json& v) {
  int deepest = 0;
  if (v.IsObject())
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) deepest = std::max(deepest, depth_of(it->value));
  else if (v.IsArray())
    for (const auto& item : v.GetArray()) deepest = std::max(deepest, depth_of(item));
  else
    return 0;
  return deepest + 1;
}

}  // namespace

JsonDoc parse_json(std::string_view text) {
  if (nesting_too_deep(text)) throw bad_request("couldn't get version/kind; json parse error: exceeded max depth");
  JsonDoc doc;
  doc.Parse(text.data(), text.size());
  if (doc.HasParseError()) {
    throw bad_request("couldn't get version/kind; json parse error: " +
                      std::string(rapidjson::GetParseError_En(doc.GetParseError())) + " at offset " +
                      std::to_string(doc.GetErrorOffset()));
  }
  return doc;
}

namespace {

// YAML scalars carry no type; resolve them the way YAML 1.1/1.2 core schemas do (as
// sigs.k8s.io/yaml does), so "3" is a number, "true" a bool, "'3'" a string.
void scalar_to_json(const YAML::Node& node, Json& out, Alloc& alloc) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str") {  // quoted
    out.SetString(text.c_str(), static_cast<rapidjson::SizeType>(text.size()), alloc);
    return;
  }
  if (text == "null" || text == "~" || text.empty() || text == "Null" || text == "NULL") {
    out.SetNull();
    return;
  }
  if (text == "true" || text == "True" || text == "TRUE") {
    out.SetBool(true);
    return;
  }
  if (text == "false" || text == "False" || text == "FALSE") {
    out.SetBool(false);
    return;
  }
  char* end = nullptr;
  errno = 0;
  long long integer = std::strtoll(text.c_str(), &end, 10);
  if (end && *end == '\0' && errno == 0 && text.find_first_not_of("+-0123456789") == std::string::npos) {
    out.SetInt64(integer);
    return;
  }
  if (text.find_first_not_of("+-0123456789.eE") == std::string::npos &&
      text.find_first_of("0123456789") != std::string::npos) {
    double number = std::strtod(text.c_str(), &end);
    if (end && *end == '\0') {
      out.SetDouble(number);
      return;
    }
  }
  out.SetString(text.c_str(), static_cast<rapidjson::SizeType>(text.size()), alloc);
}

void yaml_to_json(const YAML::Node& node, Json& out, Alloc& alloc) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      out.SetObject();
      for (const auto& item : node) {
        Json key;
        const std::string& k = item.first.Scalar();
        key.SetString(k.c_str(), static_cast<rapidjson::SizeType>(k.size()), alloc);
        Json value;
        yaml_to_json(item.second, value, alloc);
        out.AddMember(key, value, alloc);
      }
      break;
    case YAML::NodeType::Sequence:
      out.SetArray();
      for (const auto& item : node) {
        Json value;
        yaml_to_json(item, value, alloc);
        out.PushBack(value, alloc);
      }
      break;
    case YAML::NodeType::Scalar:
      scalar_to_json(node, out, alloc);
      break;
    default:
      out.SetNull();
  }
}

}  // namespace

JsonDoc parse_yaml(std::string_view text) {
  auto docs = parse_yaml_documents(text);
  if (docs.empty()) throw bad_request("empty YAML document");
  return std::move(docs.front());
}

std::vector<JsonDoc> parse_yaml_documents(std::string_view text) {
  std::vector<JsonDoc> out;
  try {
    for (const auto& node : YAML::LoadAll(std::string(text))) {
      if (!node.IsDefined() || node.IsNull()) continue;
      JsonDoc doc;
      yaml_to_json(node, doc, doc.GetAllocator());  // yaml-cpp itself stops at its own depth limit
      if (depth_of(doc) > kMaxJsonDepth) throw bad_request("error converting YAML to JSON: exceeded max depth");
      out.push_back(std::move(doc));
    }
  } catch (const YAML::Exception& e) {
    throw bad_request(std::string("error converting YAML to JSON: ") + e.what());
  }
  return out;
}

std::string to_json(const Json& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::shared_ptr<JsonDoc> clone(const Json& value) {
  auto doc = std::make_shared<JsonDoc>();
  doc->CopyFrom(value, doc->GetAllocator());
  return doc;
}

const Json* member(const Json& object, std::string_view key) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(rapidjson::StringRef(key.data(), key.size()));
  return it == object.MemberEnd() ? nullptr : &it->value;
}

Json* member(Json& object, std::string_view key) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(rapidjson::StringRef(key.data(), key.size()));
  return it == object.MemberEnd() ? nullptr : &it->value;
}

const Json* at_path(const Json& root, const std::vector<std::string>& path) {
  const Json* cur = &root;
  for (const auto& key : path) {
    cur = member(*cur, key);
    if (!cur) return nullptr;
  }
  return cur;
}

std::string string_at(const Json& root, const std::vector<std::string>& path, const std::string& fallback) {
  const Json* v = at_path(root, path);
  return v && v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : fallback;
}

void set_member(Json& object, std::string_view key, Json value, Alloc& alloc) {
  if (!object.IsObject()) object.SetObject();
  if (Json* existing = member(object, key)) {
    *existing = value;
    return;
  }
  Json k;
  k.SetString(key.data(), static_cast<rapidjson::SizeType>(key.size()), alloc);
  object.AddMember(k, value, alloc);
}

void set_string(Json& object, std::string_view key, std::string_view value, Alloc& alloc) {
  Json v;
  v.SetString(value.data(), static_cast<rapidjson::SizeType>(value.size()), alloc);
  set_member(object, key, std::move(v), alloc);
}

void remove_member(Json& object, std::string_view key) {
  if (object.IsObject()) object.RemoveMember(rapidjson::StringRef(key.data(), key.size()));
}

Json& ensure_object(Json& object, std::string_view key, Alloc& alloc) {
  Json* existing = member(object, key);
  if (existing && existing->IsObject()) return *existing;
  set_member(object, key, Json(rapidjson::kObjectType), alloc);
  return *member(object, key);
}

std::vector<std::string> split_dotted(std::string_view path) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : path) {
    if (c == '.') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

namespace {
constexpr const char* kB64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
}

std::string base64_encode(std::string_view data) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    unsigned n = (static_cast<unsigned char>(data[i]) << 16) | (static_cast<unsigned char>(data[i + 1]) << 8) |
                 static_cast<unsigned char>(data[i + 2]);
    out += kB64[(n >> 18) & 63];
    out += kB64[(n >> 12) & 63];
    out += kB64[(n >> 6) & 63];
    out += kB64[n & 63];
  }
  if (i + 1 == data.size()) {
    unsigned n = static_cast<unsigned char>(data[i]) << 16;
    out += kB64[(n >> 18) & 63];
    out += kB64[(n >> 12) & 63];
    out += "==";
  } else if (i + 2 == data.size()) {
    unsigned n = (static_cast<unsigned char>(data[i]) << 16) | (static_cast<unsigned char>(data[i + 1]) << 8);
    out += kB64[(n >> 18) & 63];
    out += kB64[(n >> 12) & 63];
    out += kB64[(n >> 6) & 63];
    out += '=';
  }
  return out;
}

std::string base64_decode(std::string_view data) {
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (char c : data) {
    const char* p = std::strchr(kB64, c);
    if (c == '=' || c == '\0' || !p) continue;
    buffer = (buffer << 6) | static_cast<unsigned>(p - kB64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xFF);
    }
  }
  return out;
}

std::string now_rfc3339() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace dha::testing::apiserver
