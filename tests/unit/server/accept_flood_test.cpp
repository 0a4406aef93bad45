// The server under a connection flood, on real sockets: it drains the listen backlog at
// accept speed instead of leaving a newcomer queued behind the flood, closes connections that
// never send anything (or, with deferred accept, never accepts them before they do), and keeps
// trusted peers' connections (configured or vouched for) out of the flood's reach.

#include "test_clients.hpp"

#include "dha/server/server.hpp"
#include "dha/server/standard_routes.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace dha::server {
namespace {

using namespace std::chrono_literals;
using testing_clients::HttpClient;
using testing_clients::RawConnection;
using Clock = std::chrono::steady_clock;

ServerOptions flood_options() {
  ServerOptions options;
  options.name = "flood";
  options.host = "127.0.0.1";
  options.header_timeout = 30s;  // only the policy under test may free a slot in time
  options.read_timeout = 30s;
  options.idle_timeout = 30s;
  options.first_byte_timeout = 30s;
  options.max_connections = 16;
  options.reserved_connections = 0;
  return options;
}

Router probes() {
  Router router;
  mount_health_probes(router);
  router.handle("/review", [](const Request&) {
    Response r = Response::text(200, "reviewed");
    r.vouches_for_peer = true;
    return r;
  });
  return router;
}

std::string url(const Server& server, const std::string& path) {
  return "http://127.0.0.1:" + std::to_string(server.port()) + path;
}

std::string source(int i) { return "127.0." + std::to_string(10 + i / 200) + "." + std::to_string(2 + i % 200); }

long raise_open_files(long wanted) {
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  limit.rlim_cur = std::min<rlim_t>(limit.rlim_max, static_cast<rlim_t>(wanted));
  setrlimit(RLIMIT_NOFILE, &limit);
  getrlimit(RLIMIT_NOFILE, &limit);
  return static_cast<long>(limit.rlim_cur);
}

bool eventually(const std::function<bool()>& done, std::chrono::milliseconds within = 3s) {
  const auto deadline = Clock::now() + within;
  while (!done()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(2ms);
  }
  return true;
}

TEST(AcceptFlood, ANewcomerIsAnsweredAtOnceWhileAFloodFillsTheSlotsAndTheBacklog) {
  if (raise_open_files(8192) < 2600) GTEST_SKIP() << "needs 2600 open files";
  auto options = flood_options();
  options.max_connections_per_peer = 16;
  Server server(options, probes());
  server.start();
  // 2000 silent connections from 100 addresses, all connected before the newcomer: 16 hold
  // the slots, the rest wait in the listen backlog (or were closed already).
  std::vector<std::unique_ptr<RawConnection>> flood;
  for (int i = 0; i < 2000; ++i) flood.push_back(std::make_unique<RawConnection>(server.port(), source(i % 100)));
  const auto started = Clock::now();
  const auto r = HttpClient().request("GET", url(server, "/healthz"), {}, {}, 5s);
  const auto took = Clock::now() - started;
  EXPECT_EQ(r.status, 200) << r.error;
  EXPECT_LT(took, 1s) << "the newcomer waited behind the flood: "
                      << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms";
  EXPECT_LE(server.active_connections(), 16u + 64u);  // slots, and those closing
}

TEST(AcceptFlood, AConnectionThatSendsNothingIsClosedAfterTheFirstByteTimeout) {
  auto options = flood_options();
  options.first_byte_timeout = 200ms;
  Server server(options, probes());
  server.start();
  const auto started = Clock::now();
  RawConnection silent(server.port(), "127.0.0.2");
  EXPECT_TRUE(silent.closed_within(2s));
  EXPECT_GE(Clock::now() - started, 150ms);
  // Once it has sent something, the header deadline applies instead.
  RawConnection talking(server.port(), "127.0.0.3");
  ASSERT_TRUE(talking.send_all("GET /healthz HTTP/1.1\r\n"));
  EXPECT_FALSE(talking.closed_within(500ms));
  ASSERT_TRUE(talking.send_all("Host: x\r\n\r\n"));
  EXPECT_NE(talking.receive(1s, "ok").find("200 OK"), std::string::npos);
}

TEST(AcceptFlood, WithDeferredAcceptASilentFloodNeverReachesTheSlots) {
  if (raise_open_files(8192) < 600) GTEST_SKIP() << "needs 600 open files";
  auto options = flood_options();
  options.defer_accept = 1s;
  options.first_byte_timeout = 200ms;
  Server server(options, probes());
  server.start();
  std::vector<std::unique_ptr<RawConnection>> flood;
  for (int i = 0; i < 300; ++i) flood.push_back(std::make_unique<RawConnection>(server.port(), source(i % 100)));
  std::this_thread::sleep_for(300ms);
  // Connected from the client's side, but still in the kernel's queue: no slot taken, none
  // accepted only to be closed.
  EXPECT_EQ(server.active_connections(), 0u);
  EXPECT_EQ(server.refused_connections(), 0u);
  EXPECT_EQ(server.evicted_connections(), 0u);
  const auto r = HttpClient().request("GET", url(server, "/healthz"), {}, {}, 5s);
  EXPECT_EQ(r.status, 200) << r.error;
  // Still silent once the period is over: accepted then, and closed at the first-byte timeout.
  EXPECT_TRUE(flood.front()->closed_within(5s));
}

// `configured`: 127.0.0.1 is in the trusted networks; else it sends a vouched-for request.
void trusted_connection_outlives_a_flood(bool configured) {
  auto options = flood_options();
  options.max_connections = 8;
  options.reserved_connections = 2;
  options.max_connections_per_peer = 4;
  if (configured) options.trusted_networks = {"127.0.0.1/32"};
  Server server(options, probes());
  server.start();
  if (!configured) {
    ASSERT_EQ(HttpClient().request("POST", url(server, "/review"), "{}").status, 200);
  }
  // The trusted peer's idle keep-alive connection is the oldest of all.
  RawConnection keep_alive(server.port(), "127.0.0.1");
  ASSERT_TRUE(eventually([&] { return server.active_connections() == 1; }));
  std::vector<std::unique_ptr<RawConnection>> flood;
  for (int i = 0; i < 40; ++i) flood.push_back(std::make_unique<RawConnection>(server.port(), source(i)));
  ASSERT_TRUE(eventually([&] { return server.evicted_connections() >= 10; })) << "the flood never filled the server";
  ASSERT_TRUE(keep_alive.send_all("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_NE(keep_alive.receive(1s, "ok").find("200 OK"), std::string::npos)
      << "the trusted peer's connection was closed for the flood";
  // And a new connection of the trusted peer takes a reserved slot, though untrusted
  // peers hold all theirs.
  EXPECT_EQ(HttpClient().request("GET", url(server, "/healthz"), {}, {}, 2s).status, 200);
}

TEST(AcceptFlood, AConfiguredTrustedPeersConnectionIsNeverClosedForTheFlood) {
  trusted_connection_outlives_a_flood(true);
}

TEST(AcceptFlood, APeerThatSentAVouchedForRequestIsTrustedLikeAConfiguredOne) {
  trusted_connection_outlives_a_flood(false);
}

}  // namespace
}  // namespace dha::server
