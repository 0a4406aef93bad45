#pragma once

#include <string>
#include <type_traits>
#include <utility>

#include "dha/kube/errors.hpp"
#include "host/self_metrics.hpp"

namespace dha::op {

// Runs one Kubernetes API call and counts it in db_autoscaler_api_requests_total{verb,result}
// (result "ok" or the ApiError reason); the error, if any, propagates unchanged.
template <class Call>
auto counted_api_call(SelfMetrics& metrics, const char* verb, Call&& call) -> decltype(call()) {
  try {
    if constexpr (std::is_void_v<decltype(call())>) {
      call();
      metrics.count_api_request(verb, "ok");
    } else {
      auto result = call();
      metrics.count_api_request(verb, "ok");
      return result;
    }
  } catch (const kube::ApiError& e) {
    metrics.count_api_request(verb, std::string(kube::to_string(e.reason())));
    throw;
  }
}

}  // namespace dha::op
