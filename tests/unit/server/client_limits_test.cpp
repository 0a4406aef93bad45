// What one client may hold of a server: connections per peer, room made by closing the
// heaviest peer's waiting connections, deadlines counted from accept, body limits per route
// checked from the header, the authorizer before the body, and the body budget.

#include "test_clients.hpp"

#include "dha/server/server.hpp"
#include "dha/server/standard_routes.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace dha::server {
namespace {

using namespace std::chrono_literals;
using testing_clients::HttpClient;
using testing_clients::RawConnection;

ServerOptions options_for_test() {
  ServerOptions options;
  options.name = "test";
  options.host = "127.0.0.1";
  options.header_timeout = 2s;
  options.read_timeout = 2s;
  options.idle_timeout = 2s;
  options.write_timeout = 2s;
  options.reserved_connections = 0;  // these tests count every slot
  return options;
}

Router router_with(std::size_t small_limit) {
  Router router;
  router.handle("/echo", [](const Request& r) { return Response::text(200, "body=" + r.body); });
  router.handle(
      "/small", [](const Request& r) { return Response::text(200, "body=" + r.body); }, small_limit);
  mount_health_probes(router);
  return router;
}

std::string url(const Server& server, const std::string& path) {
  return "http://127.0.0.1:" + std::to_string(server.port()) + path;
}

bool eventually(const std::function<bool()>& done, std::chrono::milliseconds within = 2s) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(2ms);
  }
  return true;
}

TEST(ClientLimits, APeerBeyondItsShareIsClosedAtOnce) {
  auto options = options_for_test();
  options.max_connections_per_peer = 3;
  Server server(options, router_with(10));
  server.start();
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 0; i < 3; ++i) held.push_back(std::make_unique<RawConnection>(server.port(), "127.0.0.2"));
  ASSERT_TRUE(eventually([&] { return server.active_connections() == 3; }));
  RawConnection fourth(server.port(), "127.0.0.2");
  EXPECT_TRUE(fourth.closed_within(1s));
  EXPECT_EQ(server.refused_connections(), 1u);
  EXPECT_EQ(server.active_connections(), 3u);

  // Another peer is not affected, and the held ones still work.
  HttpClient other;
  EXPECT_EQ(other.request("GET", url(server, "/healthz")).status, 200);
  ASSERT_TRUE(held[0]->send_all("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_NE(held[0]->receive(1s, "ok").find("200 OK"), std::string::npos);
}

TEST(ClientLimits, AFullServerClosesTheHeaviestPeersOldestWaitingConnection) {
  auto options = options_for_test();
  options.max_connections = 4;
  options.header_timeout = 30s;  // only eviction can free a slot in time
  options.read_timeout = 30s;
  options.first_byte_timeout = 30s;
  Server server(options, router_with(10));
  server.start();
  std::vector<std::unique_ptr<RawConnection>> hog;
  for (int i = 0; i < 3; ++i) hog.push_back(std::make_unique<RawConnection>(server.port(), "127.0.0.2"));
  RawConnection light(server.port(), "127.0.0.3");
  ASSERT_TRUE(eventually([&] { return server.active_connections() == 4; }));

  HttpClient legitimate;
  const auto started = std::chrono::steady_clock::now();
  auto r = legitimate.request("GET", url(server, "/healthz"), {}, {}, 2s);
  EXPECT_EQ(r.status, 200) << r.error;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 500ms);
  EXPECT_GE(server.evicted_connections(), 1u);
  // One of the heaviest peer's connections went (the oldest as the server registered them).
  int hog_closed = 0;
  for (auto& c : hog) hog_closed += c->closed_within(300ms) ? 1 : 0;
  EXPECT_GE(hog_closed, 1) << "the heaviest peer kept all its connections";
  // The peer with one connection kept it.
  ASSERT_TRUE(light.send_all("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_NE(light.receive(1s, "ok").find("200 OK"), std::string::npos);
}

TEST(ClientLimits, ConnectionsInAHandlerAreNotClosedToMakeRoom) {
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  int entered = 0;
  Router router;
  router.handle("/block", [&](const Request&) {
    std::unique_lock lock(mu);
    ++entered;
    cv.notify_all();
    cv.wait(lock, [&] { return release; });
    return Response::text(200, "done");
  });
  mount_health_probes(router);
  auto options = options_for_test();
  options.max_connections = 2;
  Server server(options, std::move(router));
  server.start();
  auto busy = [&] {
    return std::async(std::launch::async, [&] { return HttpClient().request("GET", url(server, "/block")); });
  };
  auto a = busy();
  auto b = busy();
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, 2s, [&] { return entered == 2; }));
  }
  HttpClient waiting;
  EXPECT_NE(waiting.request("GET", url(server, "/healthz"), {}, {}, 300ms).error, "")
      << "a third connection was served while two were busy";
  EXPECT_EQ(server.evicted_connections(), 0u);
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  EXPECT_EQ(a.get().status, 200);
  EXPECT_EQ(b.get().status, 200);
  EXPECT_EQ(HttpClient().request("GET", url(server, "/healthz"), {}, {}, 2s).status, 200);
}

TEST(ClientLimits, TheHeaderDeadlineCountsFromAcceptNotFromEachByte) {
  auto options = options_for_test();
  options.header_timeout = 300ms;
  options.read_timeout = 10s;
  Server server(options, router_with(10));
  server.start();
  RawConnection slow(server.port());
  const auto started = std::chrono::steady_clock::now();
  const std::string header = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: aaaaaaaaaaaaaaaaaaaa";
  bool closed = false;
  for (char c : header) {
    if (!slow.send_all(std::string(1, c))) {
      closed = true;
      break;
    }
    std::this_thread::sleep_for(40ms);
    if (std::chrono::steady_clock::now() - started > 2s) break;
  }
  EXPECT_TRUE(closed || slow.closed_within(1s));
  EXPECT_LT(std::chrono::steady_clock::now() - started, 1500ms);
}

TEST(ClientLimits, AKeepAliveRequestsDeadlineStartsAtItsFirstByte) {
  auto options = options_for_test();
  options.header_timeout = 300ms;
  options.idle_timeout = 3s;
  Server server(options, router_with(10));
  server.start();
  RawConnection raw(server.port());
  ASSERT_TRUE(raw.send_all("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_NE(raw.receive(1s, "ok").find("200 OK"), std::string::npos);
  std::this_thread::sleep_for(600ms);  // idle longer than the header deadline, within idle_timeout
  ASSERT_TRUE(raw.send_all("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_NE(raw.receive(1s, "ok").find("200 OK"), std::string::npos);
}

TEST(ClientLimits, BodyLimitsArePerRouteAndCheckedFromTheHeader) {
  Server server(options_for_test(), router_with(10));
  server.start();
  HttpClient client;
  EXPECT_EQ(client.request("POST", url(server, "/small"), "0123456789").status, 200);
  EXPECT_EQ(client.request("POST", url(server, "/small"), "0123456789a").status, 413);
  EXPECT_EQ(client.request("POST", url(server, "/echo"), std::string(5000, 'x')).status, 200);

  // Probes take no body; an unknown path neither. The refusal comes before any body byte.
  for (const char* path : {"/healthz", "/readyz", "/nowhere"}) {
    RawConnection raw(server.port());
    ASSERT_TRUE(raw.send_all(std::string("POST ") + path + " HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n"));
    const auto answer = raw.receive(1s, "\r\n\r\n");
    EXPECT_NE(answer.find("HTTP/1.1 413"), std::string::npos) << path << ": " << answer;
  }
  // Chunked: counted while reading.
  RawConnection raw(server.port());
  ASSERT_TRUE(
      raw.send_all("POST /small HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n01234567\r\n"
                   "8\r\n01234567\r\n0\r\n\r\n"));
  EXPECT_NE(raw.receive(1s, "\r\n\r\n").find("HTTP/1.1 413"), std::string::npos);
}

TEST(ClientLimits, TheAuthorizerRunsBeforeTheBodyIsRead) {
  auto options = options_for_test();
  options.authorizer = [](const Request& r) -> AuthorizationResult {
    if (r.bearer_token() != "good") return {false, 401, "Unauthorized"};
    return {true, 200, ""};
  };
  Server server(options, router_with(10));
  server.start();
  RawConnection raw(server.port());
  ASSERT_TRUE(raw.send_all("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\n\r\n"));
  EXPECT_NE(raw.receive(1s, "\r\n\r\n").find("HTTP/1.1 401"), std::string::npos);
  HttpClient client;
  EXPECT_EQ(client.request("POST", url(server, "/echo"), "hi", {"Authorization: Bearer good"}).body, "body=hi");
}

TEST(ClientLimits, BodiesInFlightStayWithinTheBudget) {
  auto options = options_for_test();
  options.max_body_bytes_in_flight_per_peer = 1000;
  options.max_body_bytes_in_flight = 1500;
  Server server(options, router_with(10));
  server.start();
  // A client holds 800 bytes of budget with a body it never finishes.
  RawConnection holder(server.port(), "127.0.0.2");
  ASSERT_TRUE(holder.send_all("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 800\r\n\r\nabc"));
  std::this_thread::sleep_for(100ms);
  // Its next body does not fit its own share.
  RawConnection again(server.port(), "127.0.0.2");
  ASSERT_TRUE(again.send_all("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 800\r\n\r\n"));
  EXPECT_NE(again.receive(1s, "\r\n\r\n").find("HTTP/1.1 503"), std::string::npos);
  // Small bodies of others still fit.
  HttpClient client;
  EXPECT_EQ(client.request("POST", url(server, "/echo"), std::string(100, 'x')).status, 200);
}

TEST(ClientLimits, WhenBodiesFillTheBudgetTheClientHoldingMostLosesOne) {
  auto options = options_for_test();
  options.max_body_bytes_in_flight_per_peer = 1000;
  options.max_body_bytes_in_flight = 1500;
  Server server(options, router_with(10));
  server.start();
  RawConnection hog(server.port(), "127.0.0.2");
  ASSERT_TRUE(hog.send_all("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 900\r\n\r\nabc"));
  RawConnection small(server.port(), "127.0.0.3");
  ASSERT_TRUE(small.send_all("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\nabc"));
  std::this_thread::sleep_for(100ms);
  // 900 + 500 + 200 is over the total: the hog's body is cut, the newcomer served.
  HttpClient client;
  const auto r = client.request("POST", url(server, "/echo"), std::string(200, 'x'));
  EXPECT_EQ(r.status, 200) << r.error << r.body;
  EXPECT_TRUE(hog.closed_within(1s));
  EXPECT_GE(server.evicted_connections(), 1u);
  // The peer holding less kept its upload.
  ASSERT_TRUE(small.send_all(std::string(497, 'y')));
  EXPECT_NE(small.receive(1s, "yyy").find("200 OK"), std::string::npos);
}

TEST(HealthProbes, HealthzFailsWithTheReasonWhileSomethingIsUnhealthy) {
  std::string reason;
  Router router;
  mount_health_probes(router, {}, [&reason] { return reason; });
  Server server(options_for_test(), std::move(router));
  server.start();
  HttpClient client;
  EXPECT_EQ(client.request("GET", url(server, "/healthz")).status, 200);
  reason = "a call into plugin x has not returned for 130 s";
  const auto r = client.request("GET", url(server, "/healthz"));
  EXPECT_EQ(r.status, 500);
  EXPECT_NE(r.body.find("plugin x has not returned"), std::string::npos) << r.body;
  EXPECT_EQ(client.request("GET", url(server, "/readyz")).status, 200);
}

}  // namespace
}  // namespace dha::server
