#pragma once
// The OpenAPI documents beside discovery (discovery.cpp: v3; openapi_v2.cpp: v2).

#include "server_state.hpp"

#include <string>

namespace dha::testing::apiserver {

// The name kube gives a CRD version's schema in the OpenAPI documents
// (io.cozystack.apps.v1alpha1.Postgres).
std::string openapi_definition_name(const std::string& group, const std::string& version, const std::string& kind);

// /openapi/v2 in JSON, and a refusal naming the client for protobuf; false for other paths.
bool handle_openapi_v2(ServerState& state, const HttpRequest& request, HttpResponse& response);

}  // namespace dha::testing::apiserver
