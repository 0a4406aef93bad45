#pragma once
// The HTTP exchange as the API layer sees it: no Beast types, so only http_server.cpp
// includes Beast (the slowest headers in the build).

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dha::testing::apiserver {

struct HttpRequest {
  std::string method;
  std::string path;                                // decoded path without query
  std::string query;                               // raw query string
  std::multimap<std::string, std::string> params;  // decoded query parameters
  std::map<std::string, std::string> headers;      // lower-case names
  std::string body;

  std::string param(const std::string& name, const std::string& fallback = "") const {
    auto it = params.find(name);
    return it == params.end() ? fallback : it->second;
  }
  // A boolean query parameter read as kube-apiserver reads one: absent, "0" or any case of
  // "false" is false; anything else (the Python client's "True" too) is true.
  bool flag(const std::string& name) const {
    auto it = params.find(name);
    if (it == params.end()) return false;
    std::string lower;
    for (char c : it->second) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return lower != "0" && lower != "false";
  }
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

// A long-lived streamed response (watch): next() blocks until a chunk is ready and returns
// false when the stream is over (timeout, server stopping, or an error event was sent).
// It returns true with an empty chunk at least every second while idle, so the server can
// notice a client that went away.
class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  virtual bool next(std::string& chunk) = 0;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  std::shared_ptr<ResponseStream> stream;  // set for watches: body is ignored
};

std::string url_decode(const std::string& text, bool plus_is_space);
std::multimap<std::string, std::string> parse_query(const std::string& query);

}  // namespace dha::testing::apiserver
