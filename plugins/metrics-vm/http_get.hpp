#pragma once

#include <cstddef>
#include <string>

namespace dha::plugins {

struct HttpGetOptions {
  double timeout_seconds = 10;           // whole request: connect, send, receive
  size_t max_response_bytes = 4u << 20;  // body cap
  std::string bearer_token;              // "" = no Authorization header
  std::string ca_file;                   // "" = the system trust store
};

struct HttpResponse {
  long status = 0;
  std::string body;
};

// One GET with libcurl, on a fresh handle (so concurrent calls share nothing). Transport
// failures throw sdk::Error with the ext/metrics.h status: DHA_DEADLINE_EXCEEDED when the
// timeout passes, DHA_RESOURCE_EXHAUSTED when the body outgrows the cap, DHA_UNAVAILABLE for
// anything else (refused, reset, DNS, TLS). Any HTTP status is returned, not thrown. Redirects
// are not followed, and only http and https are spoken.
HttpResponse http_get(const std::string& url, const HttpGetOptions& options);

// curl_global_init, once per process, before the first request; call from the main thread.
void http_global_init();

}  // namespace dha::plugins
