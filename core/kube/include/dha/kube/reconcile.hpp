#pragma once
// What a reconcile returns, and the ONE place that turns it into queue actions
// (controller-runtime's reconcileHandler switch):
//
//   Done{}                    → forget the key's backoff; nothing scheduled (a watch event
//                               brings it back)
//   RequeueAfter{d}           → forget the backoff; run again after d (the sync period)
//   Error{msg}                → retry with per-key exponential backoff
//   Error{msg, .terminal=true}→ forget the backoff; no retry until the object changes
//
// A reconciler that throws is treated as Error{what()} (retried with backoff).

#include <string>
#include <variant>

#include "dha/kube/clock.hpp"
#include "dha/kube/work_queue.hpp"

namespace dha::kube {

struct Done {};
struct RequeueAfter {
  Duration after;
  // The reconcile could not finish (it decided on a version that is gone) and asks to run again
  // soon, rather than at its next periodic turn: the operator counts it as result="requeue".
  // The queue treats both alike.
  bool retry = false;
};
struct Error {
  std::string message;
  bool terminal = false;
};
using ReconcileResult = std::variant<Done, RequeueAfter, Error>;

enum class QueueAction { Forget, RequeueAfter, RetryWithBackoff, DropTerminal };

// Applies `result` for `key` to `queue` and says what it did (for logs and tests). Does not
// call queue.done(); the worker loop does that after this returns.
QueueAction apply_result(WorkQueue& queue, const std::string& key, const ReconcileResult& result);

}  // namespace dha::kube
