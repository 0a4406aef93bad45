#pragma once

#include <string>
#include <string_view>

namespace dha::tenancy {

// The label values a plugin's query templates may refer to, as ${namespace}, ${name} and
// ${release}.
struct TargetLabels {
  std::string namespace_name;
  std::string name;
  std::string release;
};

// A query ready to run, or the reason it may not run (then `query` is empty).
struct ScopedQuery {
  std::string query;
  std::string refusal;
  bool ok() const { return refusal.empty(); }
};

// Turns a plugin's query template into a query for one target: every placeholder must sit
// inside a double-quoted string and is replaced by the PromQL-escaped value, so a value can
// never end the string; then the result must pass namespace_scope_violation() for the target's
// namespace. Unknown placeholders, placeholders outside double quotes, and unscoped selectors
// are refused with a reason fit for a log line and a status message.
ScopedQuery render_scoped_query(std::string_view query_template, const TargetLabels& target);

// Whether a template asks the same of every target in a namespace: ${namespace} is its only
// placeholder (a grouped query, asked once for all of them).
bool is_namespace_wide(std::string_view query_template);

}  // namespace dha::tenancy
