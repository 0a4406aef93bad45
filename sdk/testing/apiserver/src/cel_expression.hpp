#pragma once
// A second, slightly larger CEL subset for x-kubernetes-validations rules, for rules beyond the
// single comparison schema.cpp understands by itself:
//
//   expr    := or ('?' expr ':' expr)?
//   or      := and ('||' and)*          and := unary ('&&' unary)*
//   unary   := '!' unary | compare      compare := primary (op primary)?   op: == != >= <= > <
//   primary := '(' expr ')' | literal | self[.field...] | has(self.field...)
//            | string(primary) | isQuantity(primary)
//            | quantity(primary).isGreaterThan(quantity(primary))   (or isLessThan)
//   literal := integer | 'text' | "text" | true | false
//
// Semantics follow CEL where the subset reaches: && and || absorb errors when the other side
// decides, has() needs a field selection, a missing field is "no such key", and quantity() is
// Kubernetes' resource quantity library (values compared approximately). Anything else is refused when the
// CRD is registered, so no rule is silently half-checked.

#include "json_util.hpp"

#include <memory>
#include <string>

namespace dha::testing::apiserver {

class CelExpression {
 public:
  // nullptr when the rule is outside the subset.
  static std::shared_ptr<const CelExpression> compile(const std::string& rule);

  // "" when the rule holds, "false" when it does not, "error: ..." when evaluation failed.
  std::string evaluate(const Json& self) const;

  struct Node;
  explicit CelExpression(std::shared_ptr<const Node> root) : root_(std::move(root)) {}

 private:
  std::shared_ptr<const Node> root_;
};

}  // namespace dha::testing::apiserver
