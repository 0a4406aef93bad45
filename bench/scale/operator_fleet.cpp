#include "operator_fleet.hpp"

#include <fmt/format.h>

#include <chrono>
#include <stdexcept>

#include "dha/kube/json.hpp"
#include "dha/kube/resource.hpp"
#include "dha/testing/victoria_metrics.hpp"
#include "operator_probe.hpp"

namespace dha::scalebench {
namespace {

using namespace std::chrono_literals;

// One replica keeps the benchmark's original token and user; sharded replicas get one each.
std::string token_of(int k, int shards) { return shards > 1 ? fmt::format("operator-token-{}", k) : "operator-token"; }
std::string user_of(int k, int shards) {
  return shards > 1 ? fmt::format("{}-{}", kOperatorUser, k) : std::string(kOperatorUser);
}

const std::string kShardLeasePrefix = "db-autoscaler.autoscaling.cozystack.io-shard-";

}  // namespace

std::map<std::string, testing::Identity> fleet_tokens(int shards) {
  std::map<std::string, testing::Identity> out;
  for (int k = 0; k < shards; ++k)
    out[token_of(k, shards)] = {user_of(k, shards), {"system:serviceaccounts"}, fmt::format("uid-op-{}", k)};
  return out;
}

OperatorFleet::OperatorFleet(const testing::ApiServer& api, const FleetOptions& options) : options_(options) {
  const int count = std::max(1, options.shards);
  for (int k = 0; k < count; ++k) {
    Member m;
    m.username = user_of(k, count);
    m.metrics_port = testing::free_loopback_port();
    const std::string kubeconfig = fmt::format("{}/kubeconfig-operator-{}", options.dir, k);
    api.write_kubeconfig(kubeconfig, token_of(k, count));
    std::vector<std::string> argv{"/usr/bin/taskset",
                                  "-c",
                                  std::to_string(options.cpu),
                                  options.binary,
                                  "run",
                                  "--plugin-dir",
                                  DHA_POSTGRES_PLUGIN_DIR,
                                  "--plugin-dir",
                                  DHA_METRICS_VM_PLUGIN_DIR,
                                  "--plugins=postgres,metrics-vm",
                                  "--plugin-config=" + options.plugin_config,
                                  "--kubeconfig=" + kubeconfig,
                                  fmt::format("--sync-period={}s", options.sync_period),
                                  "--enable-webhook=false",
                                  "--health-probe-bind-address=127.0.0.1:0",
                                  fmt::format("--metrics-bind-address=127.0.0.1:{}", m.metrics_port),
                                  "--metrics-secure=false",
                                  "--operator-username=" + m.username,
                                  "--log-format=json",
                                  "--log-level=" + options.log_level};
    if (count > 1) {
      argv.insert(argv.end(), {"--leader-elect", fmt::format("--shards={}", count),
                               std::string("--leader-election-namespace=") + kLeaseNamespace});
    } else if (options.leader_elect) {
      argv.push_back("--leader-elect");
    }
    argv.insert(argv.end(), options.extra_flags.begin(), options.extra_flags.end());
    const std::string log =
        count > 1 ? fmt::format("{}/operator-{}.log", options.dir, k) : options.dir + "/operator.log";
    m.process = std::make_unique<testing::ChildProcess>(argv, log, options.env);
    members_.push_back(std::move(m));
  }
}

OperatorFleet::~OperatorFleet() { stop(); }

void OperatorFleet::check_running() {
  for (std::size_t k = 0; k < members_.size(); ++k)
    if (!members_[k].process->running())
      throw std::runtime_error(fmt::format("operator {} exited:\n{}", k, members_[k].process->log_tail()));
}

std::string OperatorFleet::metrics(std::size_t k) const {
  auto r = testing::http_request("GET", fmt::format("http://127.0.0.1:{}/metrics", members_[k].metrics_port), {}, 30s);
  return r.status == 200 ? r.body : std::string();
}

std::set<std::string> OperatorFleet::series_union(const std::string& name) const {
  std::set<std::string> out;
  for (std::size_t k = 0; k < members_.size(); ++k)
    for (auto& labels : series_labels(metrics(k), name)) out.insert(std::move(labels));
  return out;
}

std::vector<std::vector<int>> OperatorFleet::shards_held(kube::Client& admin) const {
  std::vector<std::vector<int>> held(members_.size());
  if (options_.shards <= 1) return held;
  const auto page = admin.list_all(kube::resources::leases(kLeaseNamespace));
  const auto* items = kube::find_path(page.list, {"items"});
  if (items == nullptr || !items->IsArray()) return held;
  for (const auto& lease : items->GetArray()) {
    const std::string name = kube::string_at(lease, {"metadata", "name"});
    if (name.rfind(kShardLeasePrefix, 0) != 0) continue;
    const std::string holder = kube::string_at(lease, {"spec", "holderIdentity"});
    const int shard = std::stoi(name.substr(kShardLeasePrefix.size()));
    // The identity is <host>_<pid>_<random>; taskset execs the operator, so the pid is ours.
    const auto last = holder.rfind('_');
    const auto before = last == std::string::npos || last == 0 ? std::string::npos : holder.rfind('_', last - 1);
    if (before == std::string::npos) continue;
    const std::string pid = holder.substr(before + 1, last - before - 1);
    for (std::size_t k = 0; k < members_.size(); ++k)
      if (std::to_string(members_[k].process->pid()) == pid) held[k].push_back(shard);
  }
  return held;
}

void OperatorFleet::stop() {
  for (auto& m : members_)
    if (m.process) m.process->stop();
}

}  // namespace dha::scalebench
