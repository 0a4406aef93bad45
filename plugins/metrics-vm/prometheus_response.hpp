#pragma once

#include <string_view>

#include "dha/sdk/metrics_types.hpp"

namespace dha::plugins {

// Reads a Prometheus HTTP API /api/v1/query answer into samples, or throws the typed error of
// ext/metrics.h — never a zero:
//   not JSON, not an API document, a matrix/string result, a non-string or unparsable value
//                                               → DHA_DATA_LOSS
//   "status": "error"                           → DHA_FAILED_PRECONDITION (errorType: error)
//   an empty vector                             → DHA_NOT_FOUND
//   a NaN or ±Inf value                         → DHA_OUT_OF_RANGE
// A scalar result is one sample without labels.
sdk::Samples parse_instant_query_response(std::string_view body);

}  // namespace dha::plugins
