#pragma once
// Kubernetes label selectors: parsed once, matched against an object's labels in the local
// cache, and printed back for the `labelSelector` query parameter. Grammar (as kubectl):
//   key=value  key==value  key!=value  key in (a,b)  key notin (a,b)  key  !key
// joined by commas. Keys are [prefix/]name (prefix a DNS subdomain up to 253 chars, name up to
// 63 of [A-Za-z0-9_.-] starting and ending alphanumeric); values up to 63 of the same, may be empty.

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dha::kube {

class SelectorError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

using Labels = std::map<std::string, std::string>;

class LabelSelector {
 public:
  enum class Op { Equals, NotEquals, In, NotIn, Exists, DoesNotExist };
  struct Requirement {
    std::string key;
    Op op;
    std::vector<std::string> values;  // sorted, one for Equals/NotEquals
  };

  LabelSelector() = default;  // matches everything
  // Throws SelectorError naming the offending position and text.
  static LabelSelector parse(std::string_view text);
  // matchLabels-style: every key equals its value.
  static LabelSelector from_map(const Labels& labels);

  bool matches(const Labels& labels) const;
  bool empty() const { return requirements_.empty(); }
  const std::vector<Requirement>& requirements() const { return requirements_; }
  // Canonical text: requirements sorted by key, values sorted.
  std::string to_string() const;

 private:
  std::vector<Requirement> requirements_;
};

// Validators shared with other code that writes labels.
bool is_valid_label_key(std::string_view key);
bool is_valid_label_value(std::string_view value);

}  // namespace dha::kube
