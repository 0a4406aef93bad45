#pragma once
// Server-side validation of the built-in kinds whose rules clients get wrong most often:
// Events (core/v1 and events.k8s.io/v1) and Leases. The real server refuses these writes, so
// a client that only ever ran here must be refused here too.

#include "server_state.hpp"

namespace dha::testing::apiserver {

// Throws ApiError: 400 when a timestamp or number cannot be decoded (kube refuses the body
// before validation), 422 Invalid with causes when a rule is broken. `creating` selects the
// create rules; updates get the rules every stored Event or Lease must keep.
void validate_builtin(const ResourceRequest& rr, const Json& object, bool creating);

}  // namespace dha::testing::apiserver
