#pragma once
// Label selectors (=, ==, !=, in, notin, exists, !exists) and field selectors (=, ==, !=
// on the fields a kind supports, e.g. metadata.name or an Event's involvedObject.uid) as
// list/watch filters.

#include "json_util.hpp"
#include "resource_types.hpp"

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
  // Throws ApiError 400 for syntax errors and for fields `type` does not support, worded as
  // kube-apiserver words them.
  static FieldSelector parse(const std::string& text, const ResourceType& type);
  bool matches(const Json& object) const;
  bool empty() const { return requirements_.empty(); }

 private:
  std::vector<Requirement> requirements_;
};

}  // namespace dha::testing::apiserver
