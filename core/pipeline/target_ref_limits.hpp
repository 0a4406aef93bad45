#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "dha/model/spec.hpp"

// How long a targetRef field may be: a DNS subdomain (253) for the group and the name, a DNS
// label (63) for the kind, as the CRD's schema says. A cluster running an older CRD stores
// longer ones; the operator's DHA cache then keeps no target for that DHA, and the reconcile
// refuses it with InvalidSpec (a Warning on the DHA) instead of acting on a target the
// one-DHA-per-target webhook could not compare.
namespace dha::pipeline {

inline constexpr std::size_t kMaxTargetGroupOrName = 253;
inline constexpr std::size_t kMaxTargetKind = 63;

// Why `ref` is refused ("spec.targetRef.name is 300 characters long; at most 253"), or nullopt.
std::optional<std::string> oversized_target_field(const model::TargetRef& ref);

}  // namespace dha::pipeline
