#include "dha/kube/resource.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace dha::kube {

namespace {

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == ':' || c == '@';
}

void check_segment(std::string_view what, std::string_view value, bool required) {
  if (value.empty()) {
    if (required) throw std::invalid_argument(fmt::format("resource path: {} is empty", what));
    return;
  }
  if (value == "." || value == "..")
    throw std::invalid_argument(fmt::format("resource path: {} '{}' is not a name", what, value));
  for (char c : value) {
    if (!name_char(c))
      throw std::invalid_argument(
          fmt::format("resource path: {} '{}' contains '{}', which no Kubernetes name may", what, value, c));
  }
}

}  // namespace

std::string resource_path(const ResourceRef& ref, std::string_view subresource) {
  check_segment("group", ref.group, false);
  check_segment("version", ref.version, true);
  check_segment("resource", ref.plural, true);
  check_segment("namespace", ref.namespace_, false);
  check_segment("name", ref.name, false);
  check_segment("subresource", subresource, false);
  if (!subresource.empty() && ref.name.empty())
    throw std::invalid_argument("resource path: a subresource needs a name");

  std::string path =
      ref.group.empty() ? fmt::format("/api/{}", ref.version) : fmt::format("/apis/{}/{}", ref.group, ref.version);
  // A Namespace object lives at /api/v1/namespaces/<name>, never under a namespace.
  const bool is_namespace_kind = ref.group.empty() && ref.plural == "namespaces";
  if (!ref.namespace_.empty() && !is_namespace_kind) path += fmt::format("/namespaces/{}", ref.namespace_);
  path += "/" + ref.plural;
  if (!ref.name.empty()) path += "/" + ref.name;
  if (!subresource.empty()) path += fmt::format("/{}", subresource);
  return path;
}

std::pair<std::string, std::string> split_key(std::string_view key) {
  const auto slash = key.find('/');
  if (slash == std::string_view::npos) return {"", std::string(key)};
  return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

std::string percent_encode(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (unsigned char c : value) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~') {
      out.push_back(char(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    }
  }
  return out;
}

std::string list_query(const ListOptions& opts, bool watch) {
  std::string q;
  auto add = [&](std::string_view key, std::string_view value) {
    q += q.empty() ? '?' : '&';
    q += key;
    q += '=';
    q += percent_encode(value);
  };
  if (watch) add("watch", "true");
  if (!opts.label_selector.empty()) add("labelSelector", opts.label_selector);
  if (!opts.field_selector.empty()) add("fieldSelector", opts.field_selector);
  if (opts.limit > 0 && !watch) add("limit", std::to_string(opts.limit));
  if (!opts.continue_token.empty() && !watch) add("continue", opts.continue_token);
  if (!opts.resource_version.empty()) add("resourceVersion", opts.resource_version);
  if (watch && opts.allow_watch_bookmarks) add("allowWatchBookmarks", "true");
  if (watch && opts.timeout_seconds > 0) add("timeoutSeconds", std::to_string(opts.timeout_seconds));
  return q;
}

}  // namespace dha::kube
