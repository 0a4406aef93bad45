#include "dha/server/http.hpp"

#include <exception>
#include <stdexcept>

namespace dha::server {

namespace {

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace

std::string_view Request::header(std::string_view name) const {
  for (const auto& [key, value] : headers)
    if (iequals(key, name)) return value;
  return {};
}

std::string_view Request::bearer_token() const {
  std::string_view value = header("Authorization");
  constexpr std::string_view scheme = "Bearer ";
  if (value.size() <= scheme.size() || !iequals(value.substr(0, scheme.size()), scheme)) return {};
  value.remove_prefix(scheme.size());
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  return value;
}

Response Response::text(int status, std::string body) {
  Response response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

void Router::handle(std::string path, Handler handler, std::optional<std::size_t> max_body_bytes) {
  if (path.empty() || path.front() != '/') throw std::invalid_argument("route path must start with '/': " + path);
  if (!handler) throw std::invalid_argument("route " + path + " has no handler");
  if (!routes_.emplace(path, Route{std::move(handler), max_body_bytes}).second)
    throw std::invalid_argument("route registered twice: " + path);
}

bool Router::has(std::string_view path) const { return routes_.find(path) != routes_.end(); }

std::optional<std::size_t> Router::body_limit(std::string_view path) const {
  auto it = routes_.find(path);
  return it == routes_.end() ? std::optional<std::size_t>(0) : it->second.max_body_bytes;
}

Response Router::dispatch(const Request& request) const {
  auto it = routes_.find(request.path);
  if (it == routes_.end()) return Response::text(404, "404 page not found\n");
  try {
    return it->second.handler(request);
  } catch (const std::exception& e) {
    return Response::text(500, std::string("internal error: ") + e.what() + "\n");
  } catch (...) {
    return Response::text(500, "internal error\n");
  }
}

}  // namespace dha::server
