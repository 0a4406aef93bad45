// Plain-HTTP behaviour of the server against real sockets on 127.0.0.1.

#include "test_clients.hpp"

#include "dha/server/server.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <stdexcept>
#include <thread>

namespace dha::server {
namespace {

using namespace std::chrono_literals;
using testing_clients::HttpClient;
using testing_clients::RawConnection;

ServerOptions plain_options() {
  ServerOptions options;
  options.name = "test";
  options.host = "127.0.0.1";
  options.port = 0;
  options.read_timeout = 2s;
  options.idle_timeout = 2s;
  options.write_timeout = 2s;
  return options;
}

Router echo_router() {
  Router router;
  router.handle("/echo", [](const Request& r) {
    Response response = Response::text(200, r.method + " " + r.path + " q=" + r.query + " body=" + r.body);
    response.headers.emplace_back("X-Seen-Content-Type", std::string(r.header("content-type")));
    return response;
  });
  router.handle("/boom", [](const Request&) -> Response { throw std::runtime_error("handler exploded"); });
  router.handle("/status", [](const Request&) { return Response::text(1234, "bad status"); });
  return router;
}

std::string url(const Server& server, const std::string& path) {
  return "http://127.0.0.1:" + std::to_string(server.port()) + path;
}

TEST(Server, ServesRoutesAndKeepsTheConnectionAlive) {
  Server server(plain_options(), echo_router());
  server.start();
  HttpClient client;
  auto first = client.request("POST", url(server, "/echo?x=1"), "hello", {"Content-Type: application/json"});
  ASSERT_EQ(first.error, "");
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(first.body, "POST /echo q=x=1 body=hello");
  EXPECT_NE(first.headers.find("X-Seen-Content-Type: application/json"), std::string::npos) << first.headers;
  EXPECT_EQ(first.new_connections, 1);
  auto second = client.request("GET", url(server, "/echo"));
  EXPECT_EQ(second.status, 200);
  EXPECT_EQ(second.new_connections, 0) << "keep-alive connection was not reused";
  EXPECT_EQ(client.request("GET", url(server, "/nope")).status, 404);
  auto boom = client.request("GET", url(server, "/boom"));
  EXPECT_EQ(boom.status, 500);
  EXPECT_NE(boom.body.find("handler exploded"), std::string::npos);
  EXPECT_EQ(client.request("GET", url(server, "/status")).status, 500);
  // The connection survived the 404 and both 500s.
  EXPECT_EQ(client.request("GET", url(server, "/echo")).new_connections, 0);
}

TEST(Server, RefusesOversizedHeadersWith431) {
  auto options = plain_options();
  options.max_header_bytes = 1024;
  Server server(options, echo_router());
  server.start();
  HttpClient client;
  auto r = client.request("GET", url(server, "/echo"), {}, {"X-Big: " + std::string(4096, 'a')});
  EXPECT_EQ(r.status, 431);
}

TEST(Server, RefusesOversizedBodiesWith413) {
  auto options = plain_options();
  options.max_body_bytes = 1000;
  Server server(options, echo_router());
  server.start();
  HttpClient client;
  EXPECT_EQ(client.request("POST", url(server, "/echo"), std::string(999, 'x')).status, 200);
  EXPECT_EQ(client.request("POST", url(server, "/echo"), std::string(5000, 'x')).status, 413);

  // Chunked: the size is only known while reading.
  RawConnection raw(server.port());
  std::string chunk(600, 'y');
  ASSERT_TRUE(raw.send_all("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n258\r\n" + chunk +
                           "\r\n258\r\n" + chunk + "\r\n0\r\n\r\n"));
  EXPECT_NE(raw.receive(2s, "\r\n\r\n").find("HTTP/1.1 413"), std::string::npos);
}

TEST(Server, ClosesASlowClientAfterTheHeaderTimeout) {
  auto options = plain_options();
  options.header_timeout = 200ms;
  Server server(options, echo_router());
  server.start();
  RawConnection raw(server.port());
  ASSERT_TRUE(raw.send_all("GET /echo HTTP/1.1\r\nHost: x\r\n"));  // never finishes the headers
  const auto started = std::chrono::steady_clock::now();
  EXPECT_TRUE(raw.closed_within(3s));
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2s);
}

TEST(Server, ClosesAnIdleKeepAliveConnectionAfterTheIdleTimeout) {
  auto options = plain_options();
  options.idle_timeout = 200ms;
  Server server(options, echo_router());
  server.start();
  RawConnection raw(server.port());
  ASSERT_TRUE(raw.send_all("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_NE(raw.receive(2s, "body=").find("200 OK"), std::string::npos);
  EXPECT_TRUE(raw.closed_within(3s));
}

TEST(Server, HonoursExpect100Continue) {
  Server server(plain_options(), echo_router());
  server.start();
  RawConnection raw(server.port());
  ASSERT_TRUE(raw.send_all("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n"));
  EXPECT_NE(raw.receive(2s, "\r\n\r\n").find("100 Continue"), std::string::npos);
  ASSERT_TRUE(raw.send_all("hi"));
  EXPECT_NE(raw.receive(2s, "body=hi").find("body=hi"), std::string::npos);
}

// The server writes the response head itself; the framing must be exact and the server's.
TEST(Server, WritesExactResponseFraming) {
  Router router;
  router.handle("/plain", [](const Request&) { return Response::text(201, "abc"); });
  router.handle("/headers", [](const Request&) {
    Response r = Response::text(200, "{}");
    r.headers = {{"X-One", "1"},
                 {"content-type", "application/json"},
                 {"Content-Length", "999"},
                 {"Connection", "upgrade"},
                 {"X-Two", "2"}};
    return r;
  });
  router.handle("/no-content", [](const Request&) { return Response::text(204, ""); });
  router.handle("/no-content-with-body", [](const Request&) { return Response::text(204, "oops"); });
  router.handle("/split", [](const Request&) {
    Response r = Response::text(200, "x");
    r.headers = {{"X-Evil", "a\r\nSet-Cookie: b"}};
    return r;
  });
  struct Case {
    const char* request;
    std::string expected;
  };
  const Case cases[] = {
      {"GET /plain HTTP/1.1\r\nHost: x\r\n\r\n",
       "HTTP/1.1 201 Created\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 3\r\n\r\nabc"},
      {"GET /headers HTTP/1.1\r\nHost: x\r\n\r\n",
       "HTTP/1.1 200 OK\r\nX-One: 1\r\ncontent-type: application/json\r\nX-Two: 2\r\nContent-Length: 2\r\n\r\n{}"},
      {"GET /plain HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
       "HTTP/1.1 201 Created\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: "
       "3\r\n\r\nabc"},
      {"GET /plain HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
       "HTTP/1.0 201 Created\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: keep-alive\r\nContent-Length: "
       "3\r\n\r\nabc"},
      {"GET /no-content HTTP/1.1\r\nHost: x\r\n\r\n",
       "HTTP/1.1 204 No Content\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 0\r\n\r\n"},
      {"GET /no-content-with-body HTTP/1.1\r\nHost: x\r\n\r\n",
       "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 51\r\n\r\n"
       "internal error: a 204 response cannot carry a body\n"},
      {"GET /split HTTP/1.1\r\nHost: x\r\n\r\n",
       "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 40\r\n\r\n"
       "internal error: invalid response header\n"},
  };
  Server server(plain_options(), std::move(router));
  server.start();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.request);
    RawConnection raw(server.port());
    ASSERT_TRUE(raw.send_all(c.request));
    EXPECT_EQ(raw.receive(2s, c.expected), c.expected);
  }
}

TEST(Server, GarbageGetsTheConnectionClosedNotACrash) {
  Server server(plain_options(), echo_router());
  server.start();
  for (std::string junk : {std::string("\x16\x03\x01\x02\x00", 5), std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
                           std::string(70000, 'A'), std::string("GET / HTTP/9.9\r\n\r\n")}) {
    RawConnection raw(server.port());
    raw.send_all(junk);
    EXPECT_TRUE(raw.closed_within(3s));
  }
  HttpClient client;
  EXPECT_EQ(client.request("GET", url(server, "/echo")).status, 200);
}

TEST(Server, AuthorizerGuardsEveryRoute) {
  auto options = plain_options();
  options.authorizer = [](const Request& r) -> AuthorizationResult {
    if (r.bearer_token().empty()) return {false, 401, "Unauthorized: no bearer token"};
    if (r.bearer_token() != "good") return {false, 403, "Forbidden: user \"x\" cannot get path \"/echo\""};
    return {true, 200, ""};
  };
  Server server(options, echo_router());
  server.start();
  HttpClient client;
  EXPECT_EQ(client.request("GET", url(server, "/echo")).status, 401);
  auto forbidden = client.request("GET", url(server, "/echo"), {}, {"Authorization: Bearer bad"});
  EXPECT_EQ(forbidden.status, 403);
  EXPECT_NE(forbidden.body.find("cannot get path"), std::string::npos);
  EXPECT_EQ(client.request("GET", url(server, "/echo"), {}, {"Authorization: Bearer good"}).status, 200);
}

TEST(Server, AuthorizerExceptionIs500) {
  auto options = plain_options();
  options.authorizer = [](const Request&) -> AuthorizationResult { throw std::runtime_error("api server down"); };
  Server server(options, echo_router());
  server.start();
  HttpClient client;
  auto r = client.request("GET", url(server, "/echo"));
  EXPECT_EQ(r.status, 500);
  EXPECT_NE(r.body.find("api server down"), std::string::npos);
}

TEST(Server, GracefulStopFinishesInFlightRequests) {
  std::atomic<bool> entered{false};
  Router router = echo_router();
  router.handle("/slow", [&](const Request&) {
    entered = true;
    std::this_thread::sleep_for(400ms);
    return Response::text(200, "done");
  });
  Server server(plain_options(), std::move(router));
  server.start();
  const auto port = server.port();
  RawConnection idle(port);  // an idle keep-alive connection is closed at once
  auto in_flight = std::async(std::launch::async, [&] {
    HttpClient client;
    return client.request("GET", url(server, "/slow"));
  });
  while (!entered) std::this_thread::sleep_for(1ms);
  const auto started = std::chrono::steady_clock::now();
  server.stop(3s);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2s);
  auto r = in_flight.get();
  EXPECT_EQ(r.status, 200) << r.error;
  EXPECT_EQ(r.body, "done");
  EXPECT_NE(r.headers.find("Connection: close"), std::string::npos) << r.headers;
  EXPECT_TRUE(idle.closed_within(1s));
  EXPECT_EQ(server.active_connections(), 0u);
  EXPECT_THROW(RawConnection after(port), std::runtime_error);
  server.stop();  // idempotent
}

// Each thread runs its own event loop and connections are dealt out in turn: with two threads,
// a handler busy on one connection must not hold up the next connection.
TEST(Server, ThreadsServeConnectionsInParallel) {
  std::atomic<bool> entered{false};
  std::atomic<bool> released{false};
  Router router;
  router.handle("/wait", [&](const Request&) {
    entered = true;
    const auto deadline = std::chrono::steady_clock::now() + 3s;
    while (!released && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
    return Response::text(200, released ? "released" : "timed out waiting");
  });
  router.handle("/release", [&](const Request&) {
    released = true;
    return Response::text(200, "ok");
  });
  ServerOptions options = plain_options();
  options.threads = 2;
  Server server(options, std::move(router));
  server.start();
  RawConnection waiting(server.port());
  waiting.send_all("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n");
  while (!entered) std::this_thread::sleep_for(1ms);
  HttpClient other;
  auto r = other.request("GET", url(server, "/release"), {}, {}, 2s);
  EXPECT_EQ(r.status, 200) << r.error;
  EXPECT_NE(waiting.receive(3s, "released").find("released"), std::string::npos);
}

TEST(Server, StopCutsARequestThatOutlivesTheGracePeriod) {
  Router router;
  std::atomic<bool> entered{false};
  router.handle("/hang", [&](const Request&) {
    entered = true;
    std::this_thread::sleep_for(300ms);
    return Response::text(200, "late");
  });
  Server server(plain_options(), std::move(router));
  server.start();
  RawConnection raw(server.port());
  raw.send_all("GET /hang HTTP/1.1\r\nHost: x\r\n\r\n");
  while (!entered) std::this_thread::sleep_for(1ms);
  const auto started = std::chrono::steady_clock::now();
  server.stop(50ms);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2500ms);
}

TEST(Server, StartFailsClearlyWhenThePortIsTaken) {
  Server first(plain_options(), echo_router());
  first.start();
  auto options = plain_options();
  options.port = first.port();
  Server second(options, echo_router());
  try {
    second.start();
    FAIL() << "second bind succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("127.0.0.1:" + std::to_string(first.port())), std::string::npos) << e.what();
  }
}

TEST(Server, StartFailsClearlyOnABadHost) {
  auto options = plain_options();
  options.host = "not-an-ip";
  Server server(options, echo_router());
  EXPECT_THROW(server.start(), std::runtime_error);
}

}  // namespace
}  // namespace dha::server
