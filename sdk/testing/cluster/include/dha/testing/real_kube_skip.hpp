#pragma once

// Whether a test that needs the real kube-apiserver may skip when it is missing (the backend
// itself is in test_cluster.hpp; this header of its own keeps the tests that never ask from
// recompiling when it changes).
namespace dha::testing {

// Only with DHA_REAL_KUBE_MAY_SKIP=1 and not under CI=true: scripts/test sets it when the
// control plane did not build on a developer's machine. Anywhere else a missing control plane
// is a failure that says how to get it (real_kube_unavailable_reason()), not a suite reported as
// passed with every case skipped.
bool real_kube_may_be_skipped();

}  // namespace dha::testing
