#pragma once
// Validating admission webhooks: match the registered ValidatingWebhookConfigurations' rules
// against a write, then POST an admission.k8s.io/v1 AdmissionReview to each over HTTPS.

#include "server_state.hpp"

#include <memory>
#include <string>
#include <vector>

namespace dha::testing::apiserver {

struct AdmissionAttributes {
  std::string operation;  // CREATE, UPDATE, DELETE
  std::shared_ptr<const ResourceType> type;
  std::string version, subresource, ns, name;
  ObjectPtr object;      // null for DELETE
  ObjectPtr old_object;  // null for CREATE
  // The kind of `object` when it is not the resource's own kind: autoscaling/v1 Scale for
  // /scale, as kube-apiserver sends it. Empty = the resource's kind.
  std::string object_group, object_version, object_kind;
  Identity user;
  bool dry_run = false;
};

struct MatchedWebhook {
  std::shared_ptr<JsonDoc> webhook;  // one entry of .webhooks[]
};

// Call with state.mu held.
std::vector<MatchedWebhook> match_webhooks(const ServerState& state, const AdmissionAttributes& attrs);

// Call WITHOUT the lock. Throws ApiError when a webhook denies, or fails under failurePolicy Fail.
// `warnings` collects response.warnings for the client's Warning headers.
void call_webhooks(const std::vector<MatchedWebhook>& hooks, const AdmissionAttributes& attrs,
                   const ApiServerOptions& options, std::vector<std::string>& warnings);

}  // namespace dha::testing::apiserver
