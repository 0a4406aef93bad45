#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "dha/kube/client.hpp"
#include "dha/testing/api_server.hpp"
#include "dha/testing/child_process.hpp"

// The operator processes the scale benchmark runs: one `db-autoscaler run`, or K of them with
// `--leader-elect --shards K`, all pinned to one CPU. Each sharded replica authenticates with
// its own token, so the API server's audit log tells whose request was whose.
namespace dha::scalebench {

inline constexpr const char* kOperatorUser = "system:serviceaccount:cozy-db-autoscaler:db-autoscaler";
inline constexpr const char* kLeaseNamespace = "cozy-db-autoscaler";

struct FleetOptions {
  std::string binary;
  int cpu = 1;
  int shards = 1;             // >1: that many replicas, each --leader-elect --shards <shards>
  bool leader_elect = false;  // single replica: --leader-elect on its own Lease
  int sync_period = 60;
  std::string log_level = "info";
  std::string plugin_config;  // path of the plugins' JSON configuration
  std::string dir;            // kubeconfigs and operator-<k>.log go here
  std::vector<std::string> env;
  std::vector<std::string> extra_flags;  // appended to every replica's command line
};

// Tokens and identities the API server must know before it starts: one per replica.
std::map<std::string, testing::Identity> fleet_tokens(int shards);

class OperatorFleet {
 public:
  OperatorFleet(const testing::ApiServer& api, const FleetOptions& options);
  ~OperatorFleet();

  std::size_t size() const { return members_.size(); }
  const std::string& username(std::size_t k) const { return members_[k].username; }
  pid_t pid(std::size_t k) const { return members_[k].process->pid(); }
  // Throws, with the log's tail, when a replica has exited.
  void check_running();
  // The replica's /metrics text ("" when it does not answer).
  std::string metrics(std::size_t k) const;
  // Distinct label sets of `name` over every replica: a DHA two replicas export counts once.
  std::set<std::string> series_union(const std::string& name) const;
  // Shards each replica holds, from the shard Leases' holderIdentity (<host>_<pid>_<random>).
  std::vector<std::vector<int>> shards_held(kube::Client& admin) const;
  void stop();

 private:
  struct Member {
    std::string username;
    std::uint16_t metrics_port = 0;
    std::unique_ptr<testing::ChildProcess> process;
  };
  FleetOptions options_;
  std::vector<Member> members_;
};

}  // namespace dha::scalebench
