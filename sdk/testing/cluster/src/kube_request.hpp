#pragma once

#include <chrono>
#include <string>

#include "dha/testing/test_cluster.hpp"

namespace dha::testing::detail {

// One HTTPS request verified against `ca_pem`, with a bearer token when it is non-empty.
KubeResponse kube_request(const std::string& url, const std::string& ca_pem, const std::string& token,
                          const std::string& method, const std::string& body, const std::string& content_type,
                          std::chrono::milliseconds timeout);

}  // namespace dha::testing::detail
