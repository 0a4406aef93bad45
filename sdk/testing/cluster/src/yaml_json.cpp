#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <regex>
#include <stdexcept>

#include "dha/testing/test_cluster.hpp"

namespace dha::testing {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// A plain (unquoted) scalar typed as YAML 1.2's core schema does, the way kube-apiserver's
// YAML decoder reads it; a quoted one ("true", '3') stays a string.
void write_scalar(const YAML::Node& node, Writer& w) {
  const std::string& v = node.Scalar();
  if (node.Tag() != "?") {
    w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()), true);
    return;
  }
  static const std::regex integer("[-+]?[0-9]+");
  static const std::regex floating(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (v == "null" || v == "Null" || v == "NULL" || v == "~" || v.empty())
    w.Null();
  else if (v == "true" || v == "True" || v == "TRUE")
    w.Bool(true);
  else if (v == "false" || v == "False" || v == "FALSE")
    w.Bool(false);
  else if (std::regex_match(v, integer))
    w.Int64(std::stoll(v));
  else if (std::regex_match(v, floating))
    w.Double(std::stod(v));
  else
    w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()), true);
}

void write_node(const YAML::Node& node, Writer& w) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      w.StartObject();
      for (const auto& kv : node) {
        const std::string key = kv.first.as<std::string>();
        w.Key(key.c_str(), static_cast<rapidjson::SizeType>(key.size()), true);
        write_node(kv.second, w);
      }
      w.EndObject();
      break;
    case YAML::NodeType::Sequence:
      w.StartArray();
      for (const auto& item : node) write_node(item, w);
      w.EndArray();
      break;
    case YAML::NodeType::Scalar:
      write_scalar(node, w);
      break;
    default:
      w.Null();
  }
}

}  // namespace

std::vector<std::string> yaml_documents_as_json(const std::string& yaml) {
  std::vector<std::string> out;
  try {
    for (const auto& doc : YAML::LoadAll(yaml)) {
      if (!doc.IsMap()) continue;  // empty documents between separators
      rapidjson::StringBuffer buffer;
      Writer w(buffer);
      write_node(doc, w);
      out.emplace_back(buffer.GetString());
    }
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(std::string("invalid YAML: ") + e.what());
  }
  return out;
}

}  // namespace dha::testing
