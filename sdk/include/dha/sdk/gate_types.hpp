#pragma once

// Typed views of the dha.gate/1 documents (sdk/include/dha/ext/gate.h).

#include <cstdint>
#include <string>

#include "dha/sdk/engine_types.hpp"
#include "dha/sdk/json.hpp"

namespace dha::sdk {

// The DHA a call is about.
struct DhaRef {
  std::string namespace_name;
  std::string name;

  void write(json::Writer& w) const {
    w.StartObject();
    json::write_key(w, "namespace");
    json::write_string(w, namespace_name);
    json::write_key(w, "name");
    json::write_string(w, name);
    w.EndObject();
  }
  static DhaRef from_json(const json::Value& v, std::string_view what) {
    return DhaRef{json::require_string(v, "namespace", what), json::require_string(v, "name", what)};
  }
  bool operator==(const DhaRef&) const = default;
};

struct Proposal {
  std::string kind;  // "Scale", ...
  int64_t current_replicas = 0;
  int64_t replicas = 0;
  bool operator==(const Proposal&) const = default;
};

// evaluate() input. spec / observation / state are borrowed views into the request document,
// passed through as `db-autoscaler decide` shows them.
struct GateRequest {
  int64_t now = 0;
  DhaRef dha;
  const json::Value* spec = nullptr;
  const json::Value* observation = nullptr;
  const json::Value* state = nullptr;
  Proposal proposal;

  void write(json::Writer& w) const {
    w.StartObject();
    json::write_key(w, "now");
    w.Int64(now);
    json::write_key(w, "dha");
    dha.write(w);
    json::write_key(w, "spec");
    if (spec)
      spec->Accept(w);
    else
      w.Null();
    json::write_key(w, "observation");
    if (observation)
      observation->Accept(w);
    else
      w.Null();
    json::write_key(w, "state");
    if (state)
      state->Accept(w);
    else
      w.Null();
    json::write_key(w, "proposal");
    w.StartObject();
    json::write_key(w, "kind");
    json::write_string(w, proposal.kind);
    json::write_key(w, "currentReplicas");
    w.Int64(proposal.current_replicas);
    json::write_key(w, "replicas");
    w.Int64(proposal.replicas);
    w.EndObject();
    w.EndObject();
  }
  std::string to_json() const { return detail::to_json_text(*this); }
  static GateRequest from_json(const json::Value& v) {
    constexpr std::string_view what = "gate input";
    if (!v.IsObject()) throw Error(DHA_INVALID_ARGUMENT, "gate input: expected a JSON object");
    GateRequest r;
    r.now = json::require_integer(v, "now", what);
    r.dha = DhaRef::from_json(json::require_object(v, "dha", what), "gate input.dha");
    r.spec = json::optional_object(v, "spec", what);
    r.observation = json::optional_object(v, "observation", what);
    r.state = json::optional_object(v, "state", what);
    const json::Value& p = json::require_object(v, "proposal", what);
    r.proposal = Proposal{json::string_or(p, "kind", "", "gate input.proposal"),
                          json::require_integer(p, "currentReplicas", "gate input.proposal"),
                          json::require_integer(p, "replicas", "gate input.proposal")};
    return r;
  }
};

struct Verdict {
  enum class Kind { kPass, kClamp, kFreeze };
  Kind kind = Kind::kPass;
  int64_t replicas = 0;  // clamp only
  std::string reason;
  std::string message;

  static Verdict pass() { return Verdict{}; }
  static Verdict clamp(int64_t replicas, std::string reason, std::string message) {
    return Verdict{Kind::kClamp, replicas, std::move(reason), std::move(message)};
  }
  static Verdict freeze(std::string reason, std::string message) {
    return Verdict{Kind::kFreeze, 0, std::move(reason), std::move(message)};
  }

  void write(json::Writer& w) const {
    w.StartObject();
    json::write_key(w, "verdict");
    switch (kind) {
      case Kind::kPass:
        json::write_string(w, "pass");
        break;
      case Kind::kClamp:
        json::write_string(w, "clamp");
        json::write_key(w, "replicas");
        w.Int64(replicas);
        break;
      case Kind::kFreeze:
        json::write_string(w, "freeze");
        break;
    }
    if (kind != Kind::kPass) {
      json::write_key(w, "reason");
      json::write_string(w, reason);
      json::write_key(w, "message");
      json::write_string(w, message);
    }
    w.EndObject();
  }
  std::string to_json() const { return detail::to_json_text(*this); }
  static Verdict from_json(const json::Value& v) {
    constexpr std::string_view what = "verdict";
    if (!v.IsObject()) throw Error(DHA_INVALID_ARGUMENT, "verdict: expected a JSON object");
    const std::string verdict = json::require_string(v, "verdict", what);
    if (verdict == "pass") return pass();
    if (verdict == "clamp") {
      return clamp(json::require_integer(v, "replicas", what), json::require_string(v, "reason", what),
                   json::string_or(v, "message", "", what));
    }
    if (verdict == "freeze") {
      return freeze(json::require_string(v, "reason", what), json::string_or(v, "message", "", what));
    }
    throw Error(DHA_INVALID_ARGUMENT, "verdict: must be \"pass\", \"clamp\" or \"freeze\", got \"" + verdict + "\"");
  }
  bool operator==(const Verdict&) const = default;
};

}  // namespace dha::sdk
