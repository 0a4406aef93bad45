#pragma once

#include "checks.hpp"

// The checks that need more than one sample call: a gate's holds, and a metric source against a
// live store.
namespace dha::plugin_check {

CheckOutcome check_gate_holds(const Options& options);
CheckOutcome check_metrics_instant(const Options& options);
CheckOutcome check_metrics_range(const Options& options);
CheckOutcome check_metrics_errors(const Options& options);

}  // namespace dha::plugin_check
