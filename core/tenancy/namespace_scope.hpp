#pragma once

#include <string>
#include <string_view>

namespace dha::tenancy {

// Checks that every series selector in `query` is pinned to `namespace_name`: each selector
// (`metric{...}`, `{...}`, and each `or` branch of a MetricsQL `{a="1" or b="2"}` filter) must
// carry the matcher namespace="<namespace_name>", and no namespace matcher of another kind
// (!=, =~, !~) or value. A bare `metric` without braces is refused, as is anything the lexer
// cannot read. Returns "" when the query is scoped, else the reason it is refused.
//
// This is a check of what PromQL/MetricsQL would treat as a selector, not a full parser: any
// identifier that is not a keyword, a function call or an aggregation counts as a selector,
// so an unknown construct errs toward refusal.
std::string namespace_scope_violation(std::string_view query, std::string_view namespace_name);

}  // namespace dha::tenancy
