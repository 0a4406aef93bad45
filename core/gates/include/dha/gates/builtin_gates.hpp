#pragma once

#include "dha/gates/gate.hpp"

// The built-in guardrails, one class each, in chain order (see GateChain::builtin and
// docs/decide.md). Names are what the trace shows.
namespace dha::gates {

// 1. Invalid metric target, then metric outage: refuse to scale blind.
class FailSafeGate final : public Gate {
 public:
  std::string_view name() const override { return "FailSafe"; }
  GateNote apply(Proposal& p, const GateContext& ctx) const override;
};

// 2. The effective quorum floor above the tenant quota ceiling cannot be satisfied: freeze.
class QuorumVsQuotaGate final : public Gate {
 public:
  std::string_view name() const override { return "QuorumVsQuota"; }
  GateNote apply(Proposal& p, const GateContext& ctx) const override;
};

// 3. Single-flight: wait for our own scale to converge, roll back a stuck scale-up after the
// deadline (strictly greater), freeze on a stuck scale-down or on an unconverged target we did
// not scale (docs/behaviour.md#guardrail-single-flight).
class ConvergenceGate final : public Gate {
 public:
  std::string_view name() const override { return "Convergence"; }
  GateNote apply(Proposal& p, const GateContext& ctx) const override;
};

// 4. Health object unknown or target not operational: freeze (docs/behaviour.md#guardrail-operational-health).
class HealthGate final : public Gate {
 public:
  std::string_view name() const override { return "Health"; }
  GateNote apply(Proposal& p, const GateContext& ctx) const override;
};

// 5. Replication lag above the threshold while writes are active (or unknown): freeze.
class LagBrakeGate final : public Gate {
 public:
  std::string_view name() const override { return "LagBrake"; }
  GateNote apply(Proposal& p, const GateContext& ctx) const override;
};

// 6. HPA stabilization windows over the recommendation history.
class StabilizationGate final : public Gate {
 public:
  std::string_view name() const override { return "Stabilization"; }
  GateNote apply(Proposal& p, const GateContext& ctx) const override;
};

// 7. min, max, quorum floor, quota ceiling; precedence quota > floor > max > min.
class BoundsGate final : public Gate {
 public:
  std::string_view name() const override { return "Bounds"; }
  GateNote apply(Proposal& p, const GateContext& ctx) const override;
};

// 8. At most `step` per cycle, except a climb to the quorum floor.
class StepLimitGate final : public Gate {
 public:
  std::string_view name() const override { return "StepLimit"; }
  GateNote apply(Proposal& p, const GateContext& ctx) const override;
};

// 9. A scale to a size that recently failed waits until the backoff expires.
class BackoffGate final : public Gate {
 public:
  std::string_view name() const override { return "Backoff"; }
  GateNote apply(Proposal& p, const GateContext& ctx) const override;
};

// 10. Someone else changed replicas since our last write: do not enter a write war.
class OwnershipGate final : public Gate {
 public:
  std::string_view name() const override { return "Ownership"; }
  bool sees(const Proposal& p) const override { return p.kind != ProposalKind::Freeze; }
  GateNote apply(Proposal& p, const GateContext& ctx) const override;
};

// 11. dryRun: keep the would-be decision, apply nothing.
class DryRunGate final : public Gate {
 public:
  std::string_view name() const override { return "DryRun"; }
  bool sees(const Proposal& p) const override { return p.kind != ProposalKind::Freeze; }
  GateNote apply(Proposal& p, const GateContext& ctx) const override;
};

}  // namespace dha::gates
