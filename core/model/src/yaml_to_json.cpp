#include "dha/model/yaml_to_json.hpp"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "dha/model/input_error.hpp"

namespace dha::model {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Counts the digits at s[i...], advancing i.
std::size_t digits(const std::string& s, std::size_t& i) {
  const std::size_t start = i;
  while (i < s.size() && is_digit(s[i])) ++i;
  return i - start;
}

// [-+]?[0-9]+ — by hand: std::regex recurses per character and overflows the stack on long input.
bool is_yaml_int(const std::string& s) {
  std::size_t i = s.empty() || (s[0] != '-' && s[0] != '+') ? 0 : 1;
  return digits(s, i) > 0 && i == s.size();
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool is_yaml_float(const std::string& s) {
  std::size_t i = s.empty() || (s[0] != '-' && s[0] != '+') ? 0 : 1;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits(s, i) == 0) return false;
  } else {
    if (digits(s, i) == 0) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits(s, i);
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits(s, i) == 0) return false;
  }
  return i == s.size();
}

rapidjson::Value scalar(const YAML::Node& node, rapidjson::Document::AllocatorType& a) {
  const std::string& s = node.Scalar();
  // A quoted scalar has the non-specific tag "!"; only plain scalars are typed.
  if (node.Tag() != "!") {
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL")
      return rapidjson::Value(rapidjson::kNullType);
    if (s == "true" || s == "True" || s == "TRUE") return rapidjson::Value(true);
    if (s == "false" || s == "False" || s == "FALSE") return rapidjson::Value(false);
    if (is_yaml_int(s)) {
      errno = 0;
      const long long v = std::strtoll(s.c_str(), nullptr, 10);
      if (errno == 0) return rapidjson::Value(static_cast<std::int64_t>(v));
    }
    if (is_yaml_float(s)) return rapidjson::Value(std::strtod(s.c_str(), nullptr));
    if (s == ".inf" || s == "+.inf" || s == ".Inf") return rapidjson::Value(std::numeric_limits<double>::infinity());
    if (s == "-.inf" || s == "-.Inf") return rapidjson::Value(-std::numeric_limits<double>::infinity());
    if (s == ".nan" || s == ".NaN") return rapidjson::Value(std::numeric_limits<double>::quiet_NaN());
  }
  return rapidjson::Value(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), a);
}

// `budget` counts the values still allowed: aliases share nodes, so a few lines of anchors can
// expand to billions of values ("billion laughs"); the budget stops that instead of hanging.
rapidjson::Value convert(const YAML::Node& node, rapidjson::Document::AllocatorType& a, int depth,
                         std::size_t& budget) {
  if (depth > 64) throw InputError("yaml", "nested too deeply");
  if (budget == 0) throw InputError("yaml", "expands to too many values (aliases of aliases?)");
  --budget;
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return rapidjson::Value(rapidjson::kNullType);
    case YAML::NodeType::Scalar:
      return scalar(node, a);
    case YAML::NodeType::Sequence: {
      rapidjson::Value arr(rapidjson::kArrayType);
      for (const auto& item : node) arr.PushBack(convert(item, a, depth + 1, budget), a);
      return arr;
    }
    case YAML::NodeType::Map: {
      rapidjson::Value obj(rapidjson::kObjectType);
      for (const auto& kv : node) {
        const std::string key = kv.first.Scalar();
        rapidjson::Value value = convert(kv.second, a, depth + 1, budget);
        auto it = obj.FindMember(key);  // the whole key: "a\0b" is not "a"
        if (it != obj.MemberEnd()) {
          it->value = value;  // last key wins, as in most YAML loaders
        } else {
          obj.AddMember(rapidjson::Value(key, a), value, a);
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
    // Without aliases a document has fewer values than bytes; this leaves room for honest use.
    std::size_t budget = 100000 + text.size();
    rapidjson::Value v = convert(root, doc.GetAllocator(), 0, budget);
    static_cast<rapidjson::Value&>(doc) = v;
  } catch (const InputError& e) {
    throw InputError(source, e.what());
  }
  return doc;
}

}  // namespace dha::model
