#pragma once
// Namespace deletion as kube-apiserver and its namespace controller carry it out: the
// namespace turns Terminating, refuses new content, its objects are deleted (those with
// finalizers marked), and it goes once nothing is left in it. Call with state.mu held.

#include "server_state.hpp"

namespace dha::testing::apiserver {

bool is_namespace_type(const ResourceType& type);

// Throws 403 Forbidden when `rr.ns` is being terminated (creates only, as in kube).
void refuse_create_in_terminating_namespace(const ServerState& state, const ResourceRequest& rr,
                                            const std::string& name);

// Deletes what `ns` holds and removes the namespace once it is empty, if it is terminating;
// does nothing otherwise. Runs after a namespace's DELETE and after any object in it goes.
void run_namespace_controller(ServerState& state, const std::string& ns);

}  // namespace dha::testing::apiserver
