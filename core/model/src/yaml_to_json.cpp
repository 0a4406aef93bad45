#include "dha/model/yaml_to_json.hpp"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <regex>

#include "dha/model/input_error.hpp"

namespace dha::model {
namespace {

rapidjson::Value scalar(const YAML::Node& node, rapidjson::Document::AllocatorType& a) {
  const std::string& s = node.Scalar();
  // A quoted scalar has the non-specific tag "!"; only plain scalars are typed.
  if (node.Tag() != "!") {
    static const std::regex kInt("^[-+]?[0-9]+$");
    static const std::regex kFloat("^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$");
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return rapidjson::Value(rapidjson::kNullType);
    if (s == "true" || s == "True" || s == "TRUE") return rapidjson::Value(true);
    if (s == "false" || s == "False" || s == "FALSE") return rapidjson::Value(false);
    if (std::regex_match(s, kInt)) {
      errno = 0;
      const long long v = std::strtoll(s.c_str(), nullptr, 10);
      if (errno == 0) return rapidjson::Value(static_cast<std::int64_t>(v));
    }
    if (std::regex_match(s, kFloat)) return rapidjson::Value(std::strtod(s.c_str(), nullptr));
    if (s == ".inf" || s == "+.inf" || s == ".Inf") return rapidjson::Value(std::numeric_limits<double>::infinity());
    if (s == "-.inf" || s == "-.Inf") return rapidjson::Value(-std::numeric_limits<double>::infinity());
    if (s == ".nan" || s == ".NaN") return rapidjson::Value(std::numeric_limits<double>::quiet_NaN());
  }
  return rapidjson::Value(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), a);
}

rapidjson::Value convert(const YAML::Node& node, rapidjson::Document::AllocatorType& a, int depth) {
  if (depth > 64) throw InputError("yaml", "nested too deeply");
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: return rapidjson::Value(rapidjson::kNullType);
    case YAML::NodeType::Scalar: return scalar(node, a);
    case YAML::NodeType::Sequence: {
      rapidjson::Value arr(rapidjson::kArrayType);
      for (const auto& item : node) arr.PushBack(convert(item, a, depth + 1), a);
      return arr;
    }
    case YAML::NodeType::Map: {
      rapidjson::Value obj(rapidjson::kObjectType);
      for (const auto& kv : node) {
        const std::string key = kv.first.Scalar();
        rapidjson::Value value = convert(kv.second, a, depth + 1);
        auto it = obj.FindMember(key.c_str());
        if (it != obj.MemberEnd()) {
          it->value = value;  // last key wins, as in most YAML loaders
        } else {
          obj.AddMember(rapidjson::Value(key.c_str(), a), value, a);
        }
      }
      return obj;
    }
  }
  return rapidjson::Value(rapidjson::kNullType);
}

}  // namespace

rapidjson::Document yaml_to_json(std::string_view text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw InputError(source, std::string("not valid YAML: ") + e.what());
  }
  rapidjson::Document doc;
  try {
    rapidjson::Value v = convert(root, doc.GetAllocator(), 0);
    static_cast<rapidjson::Value&>(doc) = v;
  } catch (const InputError& e) {
    throw InputError(source, e.what());
  }
  return doc;
}

}  // namespace dha::model
