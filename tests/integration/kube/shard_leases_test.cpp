// Shard Leases on the embedded API server: replicas share the shards fairly, take over a
// crashed one's after its Leases expire, stop holding at the renew deadline when cut off, and
// leave a shard's Lease to expire rather than clear it while its work still runs.
#include <atomic>
#include <cctype>
#include <mutex>
#include <set>
#include <thread>

#include "dha/kube/shard_leases.hpp"
#include "kube_fixture.hpp"
#include "tcp_proxy.hpp"

namespace dha::kube::test {
namespace {

using std::chrono::milliseconds;

struct Replica {
  std::mutex mu;
  std::vector<int> gained, lost;
  std::atomic<bool> work_done{true};  // what on_lost answers
  std::unique_ptr<ShardLeases> leases;
};

class KubeShardLeases : public KubeTest {
 protected:
  // Its own Lease names per test: the suite shares one API server, and a crashed replica's Leases
  // outlive the test that made them.
  std::string prefix() const {
    std::string name = std::string("shards-") + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return name;  // a Lease name is lowercase
  }
  std::unique_ptr<Replica> replica(const std::string& identity, int shards, std::uint16_t via_port = 0) {
    auto r = std::make_unique<Replica>();
    ShardLeaseConfig c;
    c.lease_namespace = "kube-system";
    c.lease_name = prefix();
    c.identity = identity;
    c.shards = shards;
    c.lease_duration = std::chrono::seconds(2);
    c.renew_deadline = milliseconds(1500);
    c.retry_period = milliseconds(200);
    Replica* raw = r.get();
    c.on_gained = [raw](int s) {
      std::lock_guard lock(raw->mu);
      raw->gained.push_back(s);
    };
    c.on_lost = [raw](int s) {
      std::lock_guard lock(raw->mu);
      raw->lost.push_back(s);
      return raw->work_done.load();
    };
    r->leases = std::make_unique<ShardLeases>(via_port == 0 ? config_for(kAdmin) : config_via(via_port), c);
    return r;
  }
  std::string holder(int shard) {
    auto lease = client_->get_if_exists(resources::leases("kube-system").named(shard_lease_name(prefix(), shard)));
    return lease ? string_at(*lease, {"spec", "holderIdentity"}) : std::string();
  }
  // Every shard held by exactly one of `rs`, each holding `per` of them.
  static bool spread(const std::vector<Replica*>& rs, int shards, std::size_t per) {
    std::set<int> all;
    for (auto* r : rs) {
      const auto h = r->leases->held();
      if (h.size() != per) return false;
      for (int s : h)
        if (!all.insert(s).second) return false;
    }
    return static_cast<int>(all.size()) == shards;
  }
};

TEST_F(KubeShardLeases, TwoReplicasSplitFourShardsAndTheSurvivorTakesAllAfterACrash) {
  auto a = replica("pod-a", 4);
  auto b = replica("pod-b", 4);
  a->leases->start();
  ASSERT_TRUE(eventually([&] { return a->leases->held().size() == 4; }, std::chrono::seconds(5)))
      << "alone, a takes all";
  b->leases->start();
  ASSERT_TRUE(eventually(
      [&] {
        return spread({a.get(), b.get()}, 4, 2);
      },
      std::chrono::seconds(8)))
      << "b joining makes a hand over half";
  for (int s : b->leases->held()) {
    EXPECT_EQ(holder(s), "pod-b");
    EXPECT_FALSE(a->leases->holds(s)) << "shard " << s << " held by both";
  }

  // b crashes: a stopped thread renews nothing, and nothing is released.
  const auto b_shards = b->leases->held();
  const auto crashed_at = std::chrono::steady_clock::now();
  b->work_done = false;  // so stop() leaves its Leases held, as a SIGKILL would
  b->leases->stop();
  for (int s : b_shards) EXPECT_EQ(holder(s), "pod-b") << "a crash leaves the Lease held";
  ASSERT_TRUE(eventually([&] { return a->leases->held().size() == 4; }, std::chrono::seconds(6)));
  const auto waited = std::chrono::steady_clock::now() - crashed_at;
  EXPECT_GE(waited, milliseconds(1800)) << "took over before the lease (2 s) could have expired";
  EXPECT_LE(waited, milliseconds(2000 + 2 * 200 + 1000)) << "lease duration + 2 retry periods, and some slack";
  a->leases->stop();
  for (int s = 0; s < 4; ++s) EXPECT_EQ(holder(s), "") << "a graceful stop releases shard " << s;
}

TEST_F(KubeShardLeases, CutOffFromTheServerHoldsNothingPastTheRenewDeadline) {
  testsupport::TcpProxy proxy(server_port());
  auto a = replica("pod-a", 2, proxy.port());
  a->leases->start();
  ASSERT_TRUE(eventually([&] { return a->leases->holds(0) && a->leases->holds(1); }, std::chrono::seconds(5)));
  proxy.down();  // the server is gone as the replica sees it
  const auto t0 = std::chrono::steady_clock::now();
  while ((a->leases->holds(0) || a->leases->holds(1)) &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5))
    std::this_thread::sleep_for(milliseconds(5));
  EXPECT_LE(std::chrono::steady_clock::now() - t0, milliseconds(1500 + 50)) << "writes allowed past the renew deadline";
  ASSERT_TRUE(eventually(
      [&] {
        std::lock_guard lock(a->mu);
        return a->lost.size() == 2;
      },
      std::chrono::seconds(3)))
      << "on_lost for both shards";
  a->leases->stop();
}

// A release whose work did not end in time must not hand the shard over at once: the holder
// stays, and the next replica gets it only after the lease duration.
TEST_F(KubeShardLeases, AReleaseWithWorkStillRunningLeavesTheLeaseToExpire) {
  auto a = replica("pod-a", 2);
  a->leases->start();
  ASSERT_TRUE(eventually([&] { return a->leases->held().size() == 2; }, std::chrono::seconds(5)));
  a->work_done = false;
  auto b = replica("pod-b", 2);
  b->leases->start();
  ASSERT_TRUE(eventually(
      [&] {
        std::lock_guard lock(a->mu);
        return !a->lost.empty();
      },
      std::chrono::seconds(5)));
  const int released = [&] {
    std::lock_guard lock(a->mu);
    return a->lost.front();
  }();
  const auto released_at = std::chrono::steady_clock::now();
  EXPECT_EQ(holder(released), "pod-a") << "cleared although its work still ran";
  ASSERT_TRUE(eventually([&] { return b->leases->holds(released); }, std::chrono::seconds(6)));
  EXPECT_GE(std::chrono::steady_clock::now() - released_at, milliseconds(1500)) << "b took it before it expired";
  b->leases->stop();
  a->leases->stop();
}

TEST_F(KubeShardLeases, RejectsABadConfiguration) {
  ShardLeaseConfig c;
  c.lease_namespace = "kube-system";
  c.identity = "pod-a";
  c.shards = 0;
  EXPECT_THROW(ShardLeases(config_for(kAdmin), c), std::invalid_argument);
  c.shards = 2;
  c.renew_deadline = c.lease_duration;
  EXPECT_THROW(ShardLeases(config_for(kAdmin), c), std::invalid_argument);
}

}  // namespace
}  // namespace dha::kube::test
