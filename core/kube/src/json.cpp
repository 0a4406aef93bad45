#include "dha/kube/json.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fmt/format.h>

#include "dha/sdk/json.hpp"

namespace dha::kube {

rapidjson::Document parse_json(std::string_view text) {
  // Iterative, and bounded in depth: the recursive parser, CopyFrom and the writer would
  // overflow the stack on a deeply nested object from the API server (10 000 is the API
  // server's own limit for JSON it accepts).
  constexpr int kMaxDepth = 10000;
  if (dha::sdk::json::nesting_depth(text) > kMaxDepth)
    throw JsonError(fmt::format("invalid JSON: nested deeper than {} levels", kMaxDepth));
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
  if (doc.HasParseError())
    throw JsonError(fmt::format("invalid JSON at offset {}: {}", doc.GetErrorOffset(),
                                rapidjson::GetParseError_En(doc.GetParseError())));
  return doc;
}

std::string to_json(const rapidjson::Value& value) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buf);
  value.Accept(writer);
  return {buf.GetString(), buf.GetSize()};
}

rapidjson::Document copy_json(const rapidjson::Value& value) {
  rapidjson::Document doc;
  doc.CopyFrom(value, doc.GetAllocator());
  return doc;
}

const rapidjson::Value* find_path(const rapidjson::Value& value, std::initializer_list<std::string_view> path) {
  const rapidjson::Value* cur = &value;
  for (std::string_view key : path) {
    if (!cur->IsObject()) return nullptr;
    auto it = cur->FindMember(rapidjson::Value(rapidjson::StringRef(key.data(), key.size())));
    if (it == cur->MemberEnd()) return nullptr;
    cur = &it->value;
  }
  return cur;
}

std::string string_at(const rapidjson::Value& value, std::initializer_list<std::string_view> path) {
  const rapidjson::Value* v = find_path(value, path);
  if (v == nullptr || !v->IsString()) return {};
  return {v->GetString(), v->GetStringLength()};
}

std::string name_of(const rapidjson::Value& obj) { return string_at(obj, {"metadata", "name"}); }
std::string namespace_of(const rapidjson::Value& obj) { return string_at(obj, {"metadata", "namespace"}); }
std::string resource_version_of(const rapidjson::Value& obj) { return string_at(obj, {"metadata", "resourceVersion"}); }
std::string uid_of(const rapidjson::Value& obj) { return string_at(obj, {"metadata", "uid"}); }

Labels labels_of(const rapidjson::Value& obj) {
  Labels out;
  const rapidjson::Value* labels = find_path(obj, {"metadata", "labels"});
  if (labels == nullptr || !labels->IsObject()) return out;
  for (const auto& m : labels->GetObject()) {
    if (m.value.IsString()) out.emplace(m.name.GetString(), m.value.GetString());
  }
  return out;
}

std::string key_of(const rapidjson::Value& obj) {
  const std::string ns = namespace_of(obj);
  return ns.empty() ? name_of(obj) : ns + "/" + name_of(obj);
}

}  // namespace dha::kube
