#pragma once
// Label selectors (=, ==, !=, in, notin, exists, !exists) and field selectors (=, ==, !=
// on any dotted path, e.g. metadata.name or involvedObject.uid) as list/watch filters.

#include "json_util.hpp"

#include <string>
#include <vector>

namespace dha::testing::apiserver {

struct Requirement {
  std::string key;
  std::string op;  // "=", "!=", "in", "notin", "exists", "!exists"
  std::vector<std::string> values;
};

class LabelSelector {
 public:
  // Throws ApiError 400 on syntax errors, with kube's "unable to parse requirement" wording.
  static LabelSelector parse(const std::string& text);
  // From a metav1.LabelSelector object ({matchLabels, matchExpressions}).
  static LabelSelector from_json(const Json& selector);
  bool matches(const Json* labels) const;
  bool empty() const { return requirements_.empty(); }

 private:
  std::vector<Requirement> requirements_;
};

class FieldSelector {
 public:
  static FieldSelector parse(const std::string& text);
  bool matches(const Json& object) const;

 private:
  std::vector<Requirement> requirements_;
};

}  // namespace dha::testing::apiserver
