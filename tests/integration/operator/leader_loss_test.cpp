// A leader that loses the Lease while a reconcile is blocked in a plugin call: it stops leading,
// drops its queued work and is gone within its drain limit (the renew deadline), without waiting
// for the call, and no request of it reaches the API server after the takeover.
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

#include "dha/kube/json.hpp"
#include "dha/kube/leader_election.hpp"
#include "operator_world.hpp"

namespace dha::optest {
namespace {

using LeaderLossTest = OperatorWorld;

// A metric source that never answers: it listens, and the kernel takes connections and requests
// into its backlog, but nobody reads them. Every query waits for the plugin's whole timeout.
class SilentEndpoint {
 public:
  SilentEndpoint() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd_, 64) != 0)
      throw std::runtime_error("cannot listen on 127.0.0.1");
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~SilentEndpoint() { ::close(fd_); }
  std::string url() const { return fmt::format("http://127.0.0.1:{}", port_); }

 private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
};

TEST_F(LeaderLossTest, AReconcileBlockedInAMetricQueryDoesNotKeepALeaderThatLostTheLease) {
  create_postgres(2);
  create_workload_monitor(2);
  create_dha({});
  SilentEndpoint silent;
  const std::string config = dir_ + "/plugin-config-silent.json";
  std::ofstream(config) << R"({"metrics-vm": {"url": ")" << silent.url() << R"(", "timeoutSeconds": 40}})";
  auto& a = start_operator('a',
                           {{"--leader-election-namespace", kReleaseNamespace},
                            {"--leader-elect-lease-duration", "6s"},
                            {"--leader-elect-renew-deadline", "4s"},
                            {"--leader-elect-retry-period", "1s"},
                            {"--plugin-config", config}},
                           {"--leader-elect"});
  ASSERT_TRUE(eventually(
      [&] {
        const auto m = metrics_text('a');
        return m.find("db_autoscaler_leader 1") != std::string::npos &&
               m.find("controller_runtime_active_workers{controller=\"dha\"} 1") != std::string::npos;
      },
      30s))
      << "no reconcile blocked in the metric query";

  // Another replica takes the Lease (as after a partition): A sees it at its next renewal.
  const auto lease_ref = kube::resources::leases(kReleaseNamespace).named("db-autoscaler.autoscaling.cozystack.io");
  auto lease = admin_->get(lease_ref);
  auto& spec = lease["spec"];
  const std::string now = kube::format_micro_time(std::chrono::system_clock::now());
  spec["holderIdentity"].SetString("another-replica", lease.GetAllocator());
  spec["renewTime"].SetString(now.c_str(), lease.GetAllocator());
  spec["leaseDurationSeconds"].SetInt(600);
  admin_->update(lease_ref, lease);
  const auto taken_over = std::chrono::system_clock::now();
  const auto taken_over_steady = std::chrono::steady_clock::now();

  // Bound: noticed within a retry period (plus its request), then the 4 s drain. The blocked
  // query has 40 s left: a leader that waited for it would still be running.
  ASSERT_TRUE(eventually([&] { return !a.running(); }, 12s))
      << "the old leader is still running "
      << std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - taken_over_steady).count()
      << " s after losing the Lease\n"
      << a.log();
  EXPECT_NE(a.stop(), 0) << "a leader that lost the Lease exits non-zero (the kubelet restarts it)";
  const std::string log = a.log();
  EXPECT_NE(log.find("leader election lost: stopped leading; queued reconciles dropped, 1 in flight"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("1 reconcile(s) still running after 4.0 s"), std::string::npos) << log;

  // From the API server's side: nothing of A arrived after the takeover, the Lease included
  // (A did not release what it no longer held).
  for (const auto& e : cluster_->audit()) {
    if (e.username != kOperatorA || e.received < taken_over) continue;
    EXPECT_TRUE(e.method == "GET") << "A sent " << e.method << " " << e.path << " after the takeover";
  }
  EXPECT_EQ(kube::string_at(admin_->get(lease_ref), {"spec", "holderIdentity"}), "another-replica");
}

}  // namespace
}  // namespace dha::optest
