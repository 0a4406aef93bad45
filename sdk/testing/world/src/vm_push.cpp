#include "dha/testing/world/vm_push.hpp"

#include "dha/testing/base/http_client.hpp"

namespace dha::testing::world {

std::string push_to_victoria_metrics(const std::string& vm_url, std::string_view exposition) {
  const base::HttpReply imported =
      base::http_send(base::HttpRequest("POST", vm_url + "/api/v1/import/prometheus", exposition));
  if (!imported.error.empty()) return "import to " + vm_url + " failed: " + imported.error;
  if (imported.status < 200 || imported.status > 299)
    return "import to " + vm_url + " answered HTTP " + std::to_string(imported.status) + ": " + imported.body;
  base::http_send(base::HttpRequest("GET", vm_url + "/internal/force_flush"));
  return {};
}

}  // namespace dha::testing::world
