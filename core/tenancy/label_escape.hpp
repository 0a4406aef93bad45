#pragma once

#include <string>
#include <string_view>

namespace dha::tenancy {

// Escapes a value for use inside a double-quoted PromQL string: backslash, double quote and
// newline (the characters that could end the string or break the line). Everything else is
// taken literally by PromQL's and MetricsQL's string syntax.
std::string escape_label_value(std::string_view value);

}  // namespace dha::tenancy
