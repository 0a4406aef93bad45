#include "kube_request.hpp"

#include "dha/testing/base/http_client.hpp"

namespace dha::testing::detail {

KubeResponse kube_request(const std::string& url, const std::string& ca_pem, const std::string& token,
                          const std::string& method, const std::string& body, const std::string& content_type,
                          std::chrono::milliseconds timeout) {
  base::HttpRequest request(method, url);
  request.ca_pem = ca_pem;
  request.timeout = timeout;
  request.headers.push_back("Accept: application/json");
  if (!token.empty()) request.headers.push_back("Authorization: Bearer " + token);
  if (!body.empty()) {
    request.headers.push_back("Content-Type: " + content_type);
    request.body = body;
  }
  base::HttpReply reply = base::http_send(request);
  KubeResponse result;
  result.status = reply.status;
  result.body = std::move(reply.body);
  if (!reply.error.empty()) result.error = reply.error + " (" + method + " " + url + ")";
  return result;
}

}  // namespace dha::testing::detail
