#include "dha/testing/base/yaml_json.hpp"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

namespace dha::testing::base {
namespace {

using Value = rapidjson::Value;
using Alloc = rapidjson::Document::AllocatorType;

void set_string(Value& out, const std::string& text, Alloc& alloc) {
  out.SetString(text.c_str(), static_cast<rapidjson::SizeType>(text.size()), alloc);
}

// yaml-cpp tags a plain scalar "?" and a quoted one "!"; an explicit tag other than !!str is
// left to the plain rules, as kube-apiserver's decoder mostly does.
bool quoted(const YAML::Node& node) { return node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str"; }

void scalar_to_json(const YAML::Node& node, Value& out, Alloc& alloc) {
  const std::string& text = node.Scalar();
  if (quoted(node)) return set_string(out, text, alloc);
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") return out.SetNull(), void();
  if (text == "true" || text == "True" || text == "TRUE") return out.SetBool(true), void();
  if (text == "false" || text == "False" || text == "FALSE") return out.SetBool(false), void();
  char* end = nullptr;
  if (text.find_first_not_of("+-0123456789") == std::string::npos) {
    errno = 0;
    const long long integer = std::strtoll(text.c_str(), &end, 10);
    if (end != nullptr && *end == '\0' && errno == 0) return out.SetInt64(integer), void();
  }
  if (text.find_first_not_of("+-0123456789.eE") == std::string::npos &&
      text.find_first_of("0123456789") != std::string::npos) {
    const double number = std::strtod(text.c_str(), &end);
    if (end != nullptr && *end == '\0') return out.SetDouble(number), void();
  }
  set_string(out, text, alloc);
}

}  // namespace

void yaml_to_json(const YAML::Node& node, Value& out, Alloc& alloc) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      out.SetObject();
      for (const auto& item : node) {
        Value key;
        set_string(key, item.first.Scalar(), alloc);
        Value value;
        yaml_to_json(item.second, value, alloc);
        out.AddMember(key, value, alloc);
      }
      break;
    case YAML::NodeType::Sequence:
      out.SetArray();
      for (const auto& item : node) {
        Value value;
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

std::vector<rapidjson::Document> yaml_documents(std::string_view text) {
  std::vector<rapidjson::Document> out;
  try {
    for (const auto& node : YAML::LoadAll(std::string(text))) {
      if (!node.IsDefined() || node.IsNull()) continue;  // empty documents between separators
      rapidjson::Document doc;
      yaml_to_json(node, doc, doc.GetAllocator());
      out.push_back(std::move(doc));
    }
  } catch (const YAML::Exception& e) {
    throw YamlError(e.what());
  }
  return out;
}

}  // namespace dha::testing::base
