#pragma once

#include <chrono>
#include <string_view>

#include "dha/kube/clock.hpp"

// When a DHA's next periodic reconcile comes due. Every DHA of a namespace has the same phase in
// the sync period (a stable hash of the namespace), so they come due together: the first of them
// asks a grouped metric query and the others read its fresh answer, instead of each reading an
// answer up to a period old or asking its own (docs/behaviour.md#reconcile-phase).
namespace dha::pipeline {

// The namespace's offset into every sync period, in [0, period): the same on every replica and
// every version (the wall clock's epoch is the reference).
std::chrono::milliseconds namespace_phase(std::string_view namespace_name, std::chrono::seconds period);

// Time from `wall_now` to the namespace's next phase instant, in (slack, period + slack] with
// slack = min(1 s, period / 10): a reconcile that ends a moment before its phase instant (the
// queue's monotonic clock and the wall clock drift apart by milliseconds) is not run again at
// once but at the next one.
kube::Duration until_next_phase(std::string_view namespace_name, std::chrono::system_clock::time_point wall_now,
                                std::chrono::seconds period);

}  // namespace dha::pipeline
