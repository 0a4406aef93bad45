#include "dha/gates/gate_chain.hpp"

#include "dha/gates/builtin_gates.hpp"

namespace dha::gates {

GateChain GateChain::builtin() {
  GateChain chain;
  chain.add(std::make_shared<FailSafeGate>());
  chain.add(std::make_shared<QuorumVsQuotaGate>());
  chain.add(std::make_shared<ConvergenceGate>());
  chain.add(std::make_shared<HealthGate>());
  chain.add(std::make_shared<LagBrakeGate>());
  chain.add(std::make_shared<StabilizationGate>());
  chain.add(std::make_shared<BoundsGate>());
  chain.add(std::make_shared<StepLimitGate>());
  chain.add(std::make_shared<BackoffGate>());
  chain.add(std::make_shared<OwnershipGate>());
  chain.add(std::make_shared<DryRunGate>());
  return chain;
}

void GateChain::add(std::shared_ptr<const Gate> gate) { gates_.push_back(std::move(gate)); }

GateChain GateChain::without(std::string_view gate_name) const {
  GateChain out;
  for (const auto& g : gates_)
    if (g->name() != gate_name) out.gates_.push_back(g);
  return out;
}

std::vector<std::string> GateChain::names() const {
  std::vector<std::string> out;
  for (const auto& g : gates_) out.emplace_back(g->name());
  return out;
}

std::vector<model::TraceEntry> GateChain::run(Proposal& proposal, const GateContext& ctx) const {
  std::vector<model::TraceEntry> trace;
  trace.reserve(gates_.size());
  for (const auto& g : gates_) {
    if (!g->sees(proposal)) continue;
    const std::int32_t in = proposal.replicas;
    GateNote note = g->apply(proposal, ctx);
    trace.push_back({std::string(g->name()), in, proposal.replicas, std::move(note.reason), std::move(note.message)});
  }
  return trace;
}

}  // namespace dha::gates
