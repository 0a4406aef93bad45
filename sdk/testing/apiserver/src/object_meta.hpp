#pragma once
// ObjectMeta rules shared by create/update/delete: names, system fields, generation,
// finalizers, uid, and the kube-style "<Kind> is invalid" error.

#include "server_state.hpp"

#include <string>
#include <vector>

namespace dha::testing::apiserver {

ApiError invalid_object(const ResourceType& type, const std::string& name, std::vector<StatusCause> causes);

// RFC 1123 subdomain (most kinds) or label (namespaces); appends a cause if invalid.
void validate_name(const ResourceType& type, const std::string& name, std::vector<StatusCause>& causes);

std::string new_uid();
std::string random_suffix(std::size_t n);

// metadata.resourceVersion as a number (0 when absent or malformed).
uint64_t resource_version_of(const Json& object);
void set_resource_version(JsonDoc& object, uint64_t rv);

std::vector<std::string> finalizers_of(const Json& object);

// Equal ignoring metadata.resourceVersion and metadata.managedFields.
bool same_content(const Json& a, const Json& b);
// Equal ignoring metadata (and status when `ignore_status`): decides generation bumps.
bool same_spec(const Json& a, const Json& b, bool ignore_status);

}  // namespace dha::testing::apiserver
