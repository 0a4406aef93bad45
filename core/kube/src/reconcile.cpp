#include "dha/kube/reconcile.hpp"

namespace dha::kube {

namespace {
template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;
}  // namespace

QueueAction apply_result(WorkQueue& queue, const std::string& key, const ReconcileResult& result) {
  return std::visit(Overloaded{
                        [&](const Done&) {
                          queue.forget(key);
                          return QueueAction::Forget;
                        },
                        [&](const RequeueAfter& r) {
                          queue.forget(key);
                          queue.add_after(key, r.after);
                          return QueueAction::RequeueAfter;
                        },
                        [&](const Error& e) {
                          if (e.terminal) {
                            queue.forget(key);
                            return QueueAction::DropTerminal;
                          }
                          queue.add_rate_limited(key);
                          return QueueAction::RetryWithBackoff;
                        },
                    },
                    result);
}

}  // namespace dha::kube
