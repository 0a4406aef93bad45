#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dha/gates/gate.hpp"
#include "dha/model/status.hpp"

namespace dha::gates {

// An ordered list of gates. The built-in order is fixed (docs/decide.md); plugin gates are added
// after it. Copying a chain shares the (immutable) gates.
class GateChain {
 public:
  // FailSafe, QuorumVsQuota, Convergence, Health, LagBrake, Stabilization, Bounds, StepLimit,
  // Backoff, Ownership, DryRun.
  static GateChain builtin();

  void add(std::shared_ptr<const Gate> gate);
  // The same chain without the named gate (tests prove each gate matters this way).
  GateChain without(std::string_view gate_name) const;
  std::vector<std::string> names() const;

  // Runs each gate that sees the proposal, in order; returns one trace entry per gate run.
  std::vector<model::TraceEntry> run(Proposal& proposal, const GateContext& ctx) const;

 private:
  std::vector<std::shared_ptr<const Gate>> gates_;
};

}  // namespace dha::gates
