#include "dha/testing/base/http_client.hpp"
#include "dha/testing/victoria_metrics.hpp"

namespace dha::testing {

HttpResult http_request(const std::string& method, const std::string& url, std::string_view body,
                        std::chrono::milliseconds timeout) {
  base::HttpRequest request(method, url);
  request.timeout = timeout;
  if (method == "POST" || method == "PUT") request.body = body;
  base::HttpReply reply = base::http_send(request);
  HttpResult result;
  result.status = reply.status;
  result.body = std::move(reply.body);
  result.error = std::move(reply.error);
  return result;
}

}  // namespace dha::testing
