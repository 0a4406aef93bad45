#pragma once

#include <string_view>

#include "dha/sdk/metrics_types.hpp"
#include "dha/sdk/range_query_types.hpp"

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

// Reads a Prometheus HTTP API /api/v1/query_range answer ("resultType": "matrix") into series,
// or throws the typed error of ext/metrics.h — never a zero:
//   not JSON, not an API document, a non-matrix result, a malformed point → DHA_DATA_LOSS
//   "status": "error"                                                   → DHA_FAILED_PRECONDITION
//   no series with a point                                              → DHA_NOT_FOUND
// A NaN or ±Inf point is left out: that step had no reading (the simulator's outage).
//   more points than `max_points` in one series (a server that ignored the step)
//                                                                       → DHA_RESOURCE_EXHAUSTED
sdk::RangeResult parse_range_query_response(std::string_view body, std::int64_t max_points);

}  // namespace dha::plugins
