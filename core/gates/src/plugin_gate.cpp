#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <regex>

#include "dha/gates/external_gate.hpp"
#include "dha/gates/reasons.hpp"

namespace dha::gates {
namespace {

// The metav1.Condition reason pattern: what a plugin reason must look like to reach status.
bool valid_reason(const std::string& reason) {
  static const std::regex kPattern("^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$");
  return reason.size() <= 1024 && std::regex_match(reason, kPattern);
}

std::string member_string(const rapidjson::Value& v, const char* name) {
  auto it = v.FindMember(name);
  if (it == v.MemberEnd() || !it->value.IsString()) return {};
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

const char* proposal_kind(const Proposal& p, std::int32_t current) {
  if (p.kind == ProposalKind::Rollback) return "Rollback";
  return p.replicas == current ? "NoChange" : "Scale";
}

}  // namespace

PluginGate::PluginGate(std::shared_ptr<const ExternalGate> gate)
    : gate_(std::move(gate)), name_("plugin:" + std::string(gate_->name())) {}

std::string PluginGate::build_request(const Proposal& p, const GateContext& ctx) {
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  using rapidjson::Value;
  doc.AddMember("now", ctx.now, a);
  Value dha(rapidjson::kObjectType);
  dha.AddMember("namespace", Value(ctx.dha_namespace, a), a);
  dha.AddMember("name", Value(ctx.dha_name, a), a);
  doc.AddMember("dha", dha, a);
  doc.AddMember("spec", model::spec_to_json(ctx.spec, a), a);
  doc.AddMember("observation", model::observation_to_json(ctx.observation, a), a);
  doc.AddMember("state", model::decision_state_to_json(ctx.state, a), a);
  Value proposal(rapidjson::kObjectType);
  proposal.AddMember("kind", Value(proposal_kind(p, ctx.current()), a), a);
  proposal.AddMember("currentReplicas", ctx.current(), a);
  proposal.AddMember("replicas", p.replicas, a);
  doc.AddMember("proposal", proposal, a);
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  doc.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

ReadVerdict read_verdict(std::string_view response_json, std::int32_t current, std::int32_t proposed) {
  ReadVerdict out;
  rapidjson::Document doc;
  doc.Parse(response_json.data(), response_json.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    out.refusal = "response is not a JSON object";
    return out;
  }
  out.verdict = member_string(doc, "verdict");
  out.reason = member_string(doc, "reason");
  out.message = member_string(doc, "message");
  if (out.verdict == "pass") return out;
  if (out.verdict != "clamp" && out.verdict != "freeze") {
    out.refusal = "unknown verdict \"" + out.verdict + "\"";
  } else if (!valid_reason(out.reason)) {
    out.refusal = "invalid reason \"" + out.reason + "\"";
  } else if (out.verdict == "clamp") {
    auto replicas = doc.FindMember("replicas");
    if (replicas == doc.MemberEnd() || !replicas->value.IsInt()) {
      out.refusal = "clamp without an integer replicas";
      return out;
    }
    out.replicas = replicas->value.GetInt();
    const std::int32_t lo = std::min(current, proposed);
    const std::int32_t hi = std::max(current, proposed);
    if (out.replicas < lo || out.replicas > hi)
      out.refusal =
          "clamp to " + std::to_string(out.replicas) + " moves away from currentReplicas " + std::to_string(current);
  }
  return out;
}

GateNote PluginGate::apply(Proposal& p, const GateContext& ctx) const {
  auto fail = [&](const std::string& why) {
    std::string msg = "gate " + name_ + " failed: " + why + "; freezing (fail closed)";
    freeze(p, ctx, reasons::kGateError, msg);
    return GateNote{reasons::kGateError, msg};
  };
  ExternalGateResult result;
  try {
    result = gate_->evaluate(build_request(p, ctx));
  } catch (const std::exception& e) {
    return fail(e.what());
  } catch (...) {
    return fail("unknown exception");
  }
  if (!result.ok) return fail(result.error.empty() ? "error without a message" : result.error);

  const std::int32_t current = ctx.current();
  const ReadVerdict v = read_verdict(result.response_json, current, p.replicas);
  if (!v.refusal.empty()) return fail(v.refusal);
  if (v.verdict == "pass") return {reasons::kPass, v.message.empty() ? "pass" : v.message};
  if (v.verdict == "freeze" || (p.kind == ProposalKind::Rollback && v.replicas == current)) {
    freeze(p, ctx, v.reason, v.message);
    return {v.reason, v.message};
  }
  p.replicas = v.replicas;
  mark_limited(p, v.reason, v.message);
  return {v.reason, v.message};
}

}  // namespace dha::gates
