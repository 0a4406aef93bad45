#pragma once
// Structural openAPIV3Schema as kube-apiextensions uses it: compiled once at CRD registration,
// then used to default, prune and validate custom objects with kube-style field errors.

#include "api_error.hpp"
#include "cel_expression.hpp"
#include "json_util.hpp"

#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

namespace dha::testing::apiserver {

// A schema the test kit cannot honour faithfully (unsupported CEL, bad regex...): the CRD is
// rejected at registration with this message rather than silently half-validated.
class SchemaError : public std::runtime_error {
 public:
  SchemaError(std::string field, const std::string& message) : std::runtime_error(message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// `self.<path> <op> self.<path>|<literal>`: the only CEL shape supported (see README).
struct CelOperand {
  bool is_self_path = false;
  std::vector<std::string> path;  // after "self"
  std::shared_ptr<JsonDoc> literal;
};
struct CelRule {
  std::string rule, message, field_path, reason;
  CelOperand left, right;
  std::string op;                                   // >= <= > < == !=
  std::shared_ptr<const CelExpression> expression;  // set instead for the larger subset
};

struct SchemaNode {
  std::string type;  // "" means any
  bool nullable = false;
  bool preserve_unknown_fields = false;
  bool int_or_string = false;
  bool embedded_resource = false;
  std::map<std::string, std::unique_ptr<SchemaNode>> properties;
  std::unique_ptr<SchemaNode> items;
  std::unique_ptr<SchemaNode> additional_properties;  // schema for map values
  std::vector<std::string> required;
  std::vector<std::shared_ptr<JsonDoc>> enum_values;
  std::optional<double> minimum, maximum;
  bool exclusive_minimum = false, exclusive_maximum = false;
  std::optional<int64_t> min_length, max_length, min_items, max_items, min_properties, max_properties;
  std::optional<std::string> pattern;
  std::optional<std::regex> pattern_regex;
  std::shared_ptr<JsonDoc> default_value;
  std::vector<std::unique_ptr<SchemaNode>> any_of, all_of, one_of;
  std::vector<CelRule> rules;
};

// Compiles an openAPIV3Schema; throws SchemaError naming the offending field.
std::unique_ptr<SchemaNode> compile_schema(const Json& schema, const std::string& field_path);

// Fills in `default`s of absent properties (recursively), as the apiserver does on write.
void apply_defaults(const SchemaNode& schema, Json& value, Alloc& alloc);

// Drops fields the schema does not know (unless x-kubernetes-preserve-unknown-fields) and
// records their paths ("spec.foo") in `unknown`. Root apiVersion/kind/metadata are kept.
void prune_unknown(const SchemaNode& schema, Json& value, const std::string& path, std::vector<std::string>& unknown,
                   bool is_root = true);

// Validates `value` and appends kube-style causes ("spec.minReplicas", "Required value", ...).
void validate_value(const SchemaNode& schema, const Json& value, const std::string& path,
                    std::vector<StatusCause>& causes, bool is_root = true);

// Renders causes as kube's aggregated message: "a: x" or "[a: x, b: y]".
std::string aggregate_causes(const std::vector<StatusCause>& causes);

}  // namespace dha::testing::apiserver
