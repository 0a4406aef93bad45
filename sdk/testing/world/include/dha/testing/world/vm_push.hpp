#pragma once

// Pushes Prometheus exposition text into VictoriaMetrics the way an agent's remote write would
// land it, then asks a single-node server to make it searchable at once.

#include <string>
#include <string_view>

namespace dha::testing::world {

// POSTs to <vm_url>/api/v1/import/prometheus, then GETs <vm_url>/internal/force_flush (a failure of
// the flush alone is ignored: cluster vminsert has no such endpoint). Returns "" on success, else
// what went wrong.
std::string push_to_victoria_metrics(const std::string& vm_url, std::string_view exposition);

}  // namespace dha::testing::world
