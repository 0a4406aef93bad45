#include "object_meta.hpp"

#include <random>
#include <regex>

namespace dha::testing::apiserver {

ApiError invalid_object(const ResourceType& type, const std::string& name, std::vector<StatusCause> causes) {
  ApiError error(422, "Invalid", type.kind_with_group() + " \"" + name + "\" is invalid: " + aggregate_causes(causes));
  error.detail_name = name;
  error.detail_group = type.group;
  error.detail_kind = type.kind;
  error.causes = std::move(causes);
  return error;
}

void validate_name(const ResourceType& type, const std::string& name, std::vector<StatusCause>& causes) {
  static const std::regex kLabel("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
  static const std::regex kSubdomain("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
  if (name.empty()) {
    causes.push_back({"FieldValueRequired", "Required value: name or generateName is required", "metadata.name"});
    return;
  }
  bool label = type.group.empty() && type.plural == "namespaces";
  if (label && (name.size() > 63 || !std::regex_match(name, kLabel))) {
    causes.push_back({"FieldValueInvalid",
                      "Invalid value: \"" + name +
                          "\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                          "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
                          "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                      "metadata.name"});
  } else if (!label && (name.size() > 253 || !std::regex_match(name, kSubdomain))) {
    causes.push_back({"FieldValueInvalid",
                      "Invalid value: \"" + name +
                          "\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
                          "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
                          "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                      "metadata.name"});
  }
}

namespace {
std::mt19937_64& rng() {
  static thread_local std::mt19937_64 engine{std::random_device{}()};
  return engine;
}
}  // namespace

std::string new_uid() {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) out += '-';
    out += hex[rng()() % 16];
  }
  return out;
}

std::string random_suffix(std::size_t n) {
  // kube's generateName alphabet: no vowels, no confusable characters.
  static const char* alphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += alphabet[rng()() % 27];
  return out;
}

uint64_t resource_version_of(const Json& object) {
  std::string rv = string_at(object, {"metadata", "resourceVersion"});
  if (rv.empty() || rv.find_first_not_of("0123456789") != std::string::npos || rv.size() > 19) return 0;
  return std::stoull(rv);
}

void set_resource_version(JsonDoc& object, uint64_t rv) {
  set_string(ensure_object(object, "metadata", object.GetAllocator()), "resourceVersion", std::to_string(rv),
             object.GetAllocator());
}

std::vector<std::string> finalizers_of(const Json& object) {
  std::vector<std::string> out;
  if (const Json* f = at_path(object, {"metadata", "finalizers"}); f && f->IsArray())
    for (const auto& s : f->GetArray())
      if (s.IsString()) out.emplace_back(s.GetString(), s.GetStringLength());
  return out;
}

bool same_content(const Json& a, const Json& b) {
  JsonDoc x, y;
  x.CopyFrom(a, x.GetAllocator());
  y.CopyFrom(b, y.GetAllocator());
  for (JsonDoc* d : {&x, &y}) {
    if (Json* m = member(*d, "metadata")) {
      remove_member(*m, "resourceVersion");
      remove_member(*m, "managedFields");
    }
  }
  return x == y;
}

bool same_spec(const Json& a, const Json& b, bool ignore_status) {
  JsonDoc x, y;
  x.CopyFrom(a, x.GetAllocator());
  y.CopyFrom(b, y.GetAllocator());
  for (JsonDoc* d : {&x, &y}) {
    remove_member(*d, "metadata");
    if (ignore_status) remove_member(*d, "status");
    remove_member(*d, "apiVersion");
  }
  return x == y;
}

}  // namespace dha::testing::apiserver
