#pragma once

// Pieces of the Prometheus text exposition format 0.0.4.

#include <string>
#include <string_view>
#include <vector>

namespace dha::telemetry::text {

// Shortest round-trip decimal; +Inf, -Inf, NaN spelled as the format wants.
void append_value(std::string& out, double value);
// HELP text escapes backslash and newline.
void append_help(std::string& out, std::string_view help);
// Label values also escape the double quote.
void append_label_value(std::string& out, std::string_view value);
// `{a="x",b="y"}`, plus one extra pair (used for `le`) when extra_name is not empty; nothing
// at all for an empty set.
void append_labels(std::string& out, const std::vector<std::string>& names, const std::vector<std::string>& values,
                   std::string_view extra_name = {}, std::string_view extra_value = {});

}  // namespace dha::telemetry::text
