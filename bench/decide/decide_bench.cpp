// Decisions per second through the whole decide() + gate chain, and through the JSON interface
// the `decide` command uses (parse input, decide, serialize output).

#include <benchmark/benchmark.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "dha/decide/decide.hpp"

namespace {

using namespace dha;

model::DhaSpec make_spec() {
  rapidjson::Document doc;
  doc.Parse(R"({"minReplicas":2,"maxReplicas":16,
      "metrics":[{"type":"ReadConnections","target":{"averageValue":"150"}},
                 {"type":"ReadCPUUtilization","target":{"averageValue":"500m"}}]})");
  return model::parse_spec(doc, model::SpecParseOptions{.require_target_ref = false});
}

model::Observation make_observation() {
  model::Observation obs;
  obs.current_replicas = 5;
  obs.available_replicas = 5;
  obs.quorum_floor = 2;
  obs.metrics = {{"ReadConnections", 900.0}, {"ReadCPUUtilization", 2500.0}};
  obs.lag_seconds = 1.0;
  obs.write_rate = 50.0;
  obs.quota_max_replicas = 12;
  return obs;
}

// A full history: 64 recommendations inside the windows (the status bound).
model::DecisionState full_state(std::int64_t now) {
  model::DecisionState s;
  for (int i = 0; i < 64; ++i) s.recommendations.push_back({now - 1800 + i * 28, 3 + (i * 7) % 9});
  s.last_converged_replicas = 5;
  s.last_applied_replicas = 5;
  return s;
}

void BM_DecideFullChain(benchmark::State& st) {
  const auto spec = make_spec();
  const auto obs = make_observation();
  const std::int64_t now = 1'700'000'000;
  const auto state = st.range(0) ? full_state(now) : model::DecisionState{};
  for (auto _ : st) {
    auto d = decide::decide(spec, obs, state, now);
    benchmark::DoNotOptimize(d);
  }
  st.SetItemsProcessed(st.iterations());
  st.SetLabel(st.range(0) ? "64-entry history" : "empty history");
}
BENCHMARK(BM_DecideFullChain)->Arg(0)->Arg(1);

void BM_DecideEarlyFreeze(benchmark::State& st) {
  const auto spec = make_spec();
  auto obs = make_observation();
  obs.metrics.clear();  // fail-safe freeze: the shortest path
  const std::int64_t now = 1'700'000'000;
  const auto state = full_state(now);
  for (auto _ : st) {
    auto d = decide::decide(spec, obs, state, now);
    benchmark::DoNotOptimize(d);
  }
  st.SetItemsProcessed(st.iterations());
}
BENCHMARK(BM_DecideEarlyFreeze);

void BM_DecideJsonRoundTrip(benchmark::State& st) {
  const std::int64_t now = 1'700'000'000;
  rapidjson::Document in(rapidjson::kObjectType);
  auto& a = in.GetAllocator();
  in.AddMember("now", now, a);
  in.AddMember("spec", model::spec_to_json(make_spec(), a), a);
  in.AddMember("observation", model::observation_to_json(make_observation(), a), a);
  in.AddMember("state", model::decision_state_to_json(full_state(now), a), a);
  rapidjson::StringBuffer text;
  rapidjson::Writer<rapidjson::StringBuffer> w(text);
  in.Accept(w);
  const std::string input(text.GetString(), text.GetSize());
  for (auto _ : st) {
    rapidjson::Document doc;
    doc.Parse(input.c_str(), input.size());
    const auto spec = model::parse_spec(doc["spec"], model::SpecParseOptions{.require_target_ref = false});
    const auto obs = model::parse_observation(doc["observation"]);
    const auto state = model::parse_decision_state(doc["state"]);
    const auto d = decide::decide(spec, obs, state, doc["now"].GetInt64());
    rapidjson::Document out;
    static_cast<rapidjson::Value&>(out) = decide::decision_to_json(d, out.GetAllocator());
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> ow(buf);
    out.Accept(ow);
    benchmark::DoNotOptimize(buf.GetString());
  }
  st.SetItemsProcessed(st.iterations());
  st.SetBytesProcessed(st.iterations() * static_cast<std::int64_t>(input.size()));
}
BENCHMARK(BM_DecideJsonRoundTrip);

}  // namespace

BENCHMARK_MAIN();
