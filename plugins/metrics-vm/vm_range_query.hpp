#pragma once

#include <string>
#include <string_view>

#include "dha/sdk/range_query_types.hpp"

namespace dha::plugins {

// "<base>/api/v1/query_range?query=...&extra_label=namespace=...&start=S&end=E&step=Ns": the
// instant query's URL, with the same escaping and the same server-side namespace scope, plus
// the range. Throws sdk::Error(DHA_INVALID_ARGUMENT) for an empty namespace, as the instant
// query does.
std::string range_query_url(std::string_view base, const sdk::RangeQuery& query);

}  // namespace dha::plugins
