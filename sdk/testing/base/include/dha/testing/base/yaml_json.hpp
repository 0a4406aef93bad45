#pragma once

#include <rapidjson/document.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace YAML {
class Node;
}

// The test kit's one YAML reader: YAML documents as JSON, their plain scalars typed the way
// kube-apiserver's YAML decoder types them. Not installed (see http_client.hpp).
namespace dha::testing::base {

// One YAML node as a JSON value. A plain scalar is null, a bool, an integer or a number when it
// reads as one (YAML 1.2's core schema: "3" is 3, "true" is true, "~" is null); a quoted one
// ("3", 'true') and any other stays a string. An integer too large for 64 bits is a number.
void yaml_to_json(const YAML::Node& node, rapidjson::Value& out, rapidjson::Document::AllocatorType& alloc);

// A YAML syntax error: what() is "invalid YAML: " and the parser's reason, reason() the latter.
class YamlError : public std::invalid_argument {
 public:
  explicit YamlError(const std::string& reason) : std::invalid_argument("invalid YAML: " + reason), reason_(reason) {}
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

// Every document of a YAML stream that is not empty, in order. Throws YamlError on a syntax
// error.
std::vector<rapidjson::Document> yaml_documents(std::string_view text);

}  // namespace dha::testing::base
