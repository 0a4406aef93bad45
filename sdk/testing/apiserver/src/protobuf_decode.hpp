#pragma once
// Decodes the Kubernetes protobuf envelope ("k8s\0" + runtime.Unknown) for the few built-in
// kinds kubectl's typed generators send (`kubectl create namespace|configmap|secret|
// serviceaccount|quota`) and the SelfSubjectAccessReview of `kubectl auth can-i`. Anything
// else gets 415 like an unsupported media type.

#include "json_util.hpp"

#include <string_view>

namespace dha::testing::apiserver {

JsonDoc decode_kubernetes_protobuf(std::string_view body);

}  // namespace dha::testing::apiserver
