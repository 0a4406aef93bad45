#pragma once

#include <string_view>

namespace dha::tenancy {

// The PromQL and MetricsQL functions a scoped query may call, by lower-case name. None of
// them reads series except through the selectors passed to it, which the namespace check
// sees. A name not listed is refused rather than guessed at: VictoriaMetrics also expands
// WITH templates that look like calls, so an unknown call may stand for anything.
bool is_known_function(std::string_view lower_name);

// The aggregations (they take by/without modifiers).
bool is_aggregation(std::string_view lower_name);

}  // namespace dha::tenancy
