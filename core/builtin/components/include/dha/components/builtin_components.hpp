#pragma once

#include "dha/abi.h"

// Descriptors for the host's built-in components that are not capabilities a plugin could
// offer (the replicas-ownership admission webhook and the status writer). They register through
// the same entry path as every plugin so that a plugin listing shows the whole host; their
// instances carry no capability tables (the host drives them directly).
//   builtin.admission-webhook   capability "dha.host.admission-webhook/1" (on with --enable-webhook)
//   builtin.status-writer       capability "dha.host.status-writer/1"     (always on)
namespace dha::op {

const dha_plugin_entry* builtin_components_entry(void);

}  // namespace dha::op
