// A leader cut off from the API server while one of its writes is on the way: the write is
// abandoned when the lease it was sent under ends (the renew deadline), before another
// candidate can take the lease over, so the server never sees it — even when the hop that held
// it starts forwarding again after the takeover.
#include <atomic>
#include <thread>

#include "dha/kube/leader_election.hpp"
#include "kube_fixture.hpp"
#include "tcp_proxy.hpp"

namespace dha::kube::test {
namespace {

using namespace std::chrono_literals;

constexpr const char* kLease = "db-autoscaler.autoscaling.cozystack.io";

class LeaseBoundedWrites : public KubeTest {
 protected:
  std::unique_ptr<LeaderElector> elector(const std::string& identity, Config config) {
    LeaderElectionConfig le;
    le.lease_namespace = "kube-system";
    le.identity = identity;
    le.lease_duration = 3s;
    le.renew_deadline = 2s;
    le.retry_period = 200ms;
    return std::make_unique<LeaderElector>(config, le);
  }
  std::string holder() {
    auto lease = client_->get(resources::leases("kube-system").named(kLease));
    return string_at(lease, {"spec", "holderIdentity"});
  }
};

TEST_F(LeaseBoundedWrites, AWriteHeldAcrossTheTakeoverIsAbandonedAtTheRenewDeadlineAndNeverArrives) {
  // Everything of candidate A (its renewals and its writes) goes through one hop; B is direct.
  testsupport::TcpProxy hop(server_port());
  Config via_hop = config_via(hop.port());
  auto a = elector("pod-a", via_hop);
  a->start();
  ASSERT_TRUE(eventually([&] { return a->holds_lease(); }, 5s));
  Client writer(via_hop);  // request timeout 30 s: without the fence's deadline it would wait that long
  writer.set_write_fence([&] {
    const auto until = a->lease_valid_until();
    if (!until || *until <= std::chrono::steady_clock::now()) throw WriteFenced("pod-a does not hold the lease");
    return *until;
  });
  (void)writer.get_if_exists(configmaps().named("late"));  // a pooled connection, as a busy operator has
  auto b = elector("pod-b", config_for(kAdmin));
  b->start();

  hop.hold_from({""});  // from now on nothing A sends gets through
  const auto lease_end = a->lease_valid_until();
  ASSERT_TRUE(lease_end.has_value());
  std::atomic<bool> write_returned{false};
  std::string write_error;
  std::chrono::steady_clock::time_point returned_at;
  std::thread write([&] {
    try {
      writer.create(configmaps(), configmap("late"));
    } catch (const std::exception& e) {
      write_error = e.what();
    }
    returned_at = std::chrono::steady_clock::now();
    write_returned = true;
  });

  ASSERT_TRUE(eventually([&] { return holder() == "pod-b"; }, 10s)) << "B did not take the lease over";
  const auto taken_over = std::chrono::steady_clock::now();
  hop.release();  // the hop forwards again: what A still waits for goes on, what it gave up is dropped
  std::this_thread::sleep_for(500ms);

  ASSERT_TRUE(eventually([&] { return write_returned.load(); }, 30s));
  write.join();
  EXPECT_LE(returned_at, *lease_end + 500ms) << "the write outlived the lease it was sent under";
  EXPECT_LT(returned_at, taken_over);
  EXPECT_NE(write_error, "") << "the write cannot have succeeded";
  EXPECT_FALSE(client_->get_if_exists(configmaps().named("late"))) << "a write of A landed after B took over";
  for (const auto& e : cluster_->audit())
    EXPECT_FALSE(e.method == "POST" && e.path.find("/configmaps") != std::string::npos)
        << "the server received A's write: " << e.method << " " << e.path;
  EXPECT_GE(hop.dropped_connections(), 1) << "the held write was not the hop's to drop";
  EXPECT_FALSE(a->holds_lease());
  a->stop();
  b->stop();
}

// A fence that refuses sends nothing; a write past its deadline before it is sent (it waited
// for the client-side rate limit) is not sent either.
TEST_F(LeaseBoundedWrites, AWriteWhoseDeadlineHasPassedIsNotSent) {
  Client late(config_for(kAdmin));
  late.set_write_fence([] { return std::chrono::steady_clock::now() - 1ms; });
  cluster_->clear_audit();
  try {
    late.create(configmaps(), configmap("too-late"));
    ADD_FAILURE() << "a write past its deadline was sent";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.reason(), Reason::Timeout);
    EXPECT_NE(std::string(e.what()).find("deadline passed"), std::string::npos) << e.what();
  }
  for (const auto& e : cluster_->audit()) EXPECT_EQ(e.method, "GET") << e.path;
}

}  // namespace
}  // namespace dha::kube::test
