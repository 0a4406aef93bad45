// Cost of core/tenancy on real plugin queries: every query of every target passes through
// render_scoped_query once per reconcile, so this bounds the check's share of a cycle.
#include <benchmark/benchmark.h>

#include <string>

#include "tenancy/namespace_scope.hpp"
#include "tenancy/query_template.hpp"

namespace {

// The longest engine query in the repository (MongoDB write activity) and a short one.
const std::string kLong =
    R"(sum( rate(mongodb_ss_opcounters{namespace="${namespace}", legacy_op_type=~"insert|update|delete"}[5m]) and on(namespace,pod) (mongodb_mongod_replset_my_state{namespace="${namespace}"} == 1) * on(namespace,pod) group_left() kube_pod_labels{namespace="${namespace}", label_app_kubernetes_io_instance="mongodb-${name}"} ))";
const std::string kShort =
    R"(max( mysql_slave_status_seconds_behind_master{namespace="${namespace}", job="mariadb-${name}-metrics"} ))";
const dha::tenancy::TargetLabels kTarget{"tenant-a", "db", "mongodb-db"};

void BM_RenderScopedQueryLong(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(dha::tenancy::render_scoped_query(kLong, kTarget));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kLong.size()));
}
BENCHMARK(BM_RenderScopedQueryLong);

void BM_RenderScopedQueryShort(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(dha::tenancy::render_scoped_query(kShort, kTarget));
}
BENCHMARK(BM_RenderScopedQueryShort);

// A query made of many selectors, to show the check is linear in the query's length.
void BM_NamespaceScopeManySelectors(benchmark::State& state) {
  std::string q = R"(x{namespace="tenant-a"})";
  for (int64_t i = 1; i < state.range(0); ++i) q += R"( + x{namespace="tenant-a", pod="p"})";
  for (auto _ : state) benchmark::DoNotOptimize(dha::tenancy::namespace_scope_violation(q, "tenant-a"));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_NamespaceScopeManySelectors)->RangeMultiplier(4)->Range(1, 1024)->Complexity();

}  // namespace

BENCHMARK_MAIN();
