// TLS behaviour: protocol floor, ALPN, certificate rotation without dropped connections.

#include "test_clients.hpp"
#include "test_pki.hpp"

#include "dha/server/server.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <csignal>

#include <string>
#include <thread>
#include <vector>

namespace dha::server {
namespace {

using namespace std::chrono_literals;
using testing_clients::HttpClient;
using testing_clients::probe_tls;
using testing_pki::make_pki;
using testing_pki::TempDir;
using testing_pki::write_cert_dir;

struct TlsServer {
  TempDir dir;
  testing_pki::Pki pki = make_pki("first");
  std::unique_ptr<Server> server;

  explicit TlsServer(std::chrono::milliseconds reload = 50ms, ServerOptions options = {}) {
    write_cert_dir(dir.path(), pki.serving);
    options.host = "127.0.0.1";
    options.tls = TlsOptions{dir.path(), "tls.crt", "tls.key", reload};
    Router router;
    router.handle("/ping", [](const Request& r) { return Response::text(200, r.secure ? "secure" : "plain"); });
    router.handle("/big", [](const Request&) { return Response::text(200, std::string(64 * 1024 * 1024, 'x')); });
    server = std::make_unique<Server>(options, std::move(router));
    server->start();
  }
  std::string url() const { return "https://localhost:" + std::to_string(server->port()) + "/ping"; }

  bool wait_for_reloads(std::uint64_t n) {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (server->certificate_reloads() < n && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(10ms);
    return server->certificate_reloads() >= n;
  }
};

TEST(TlsServer, ServesHttpsVerifiedAgainstTheCa) {
  TlsServer s;
  HttpClient client(s.pki.ca.cert);
  auto r = client.request("GET", s.url());
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "secure");
  EXPECT_NE(r.peer_subject.find("first"), std::string::npos) << r.peer_subject;
  EXPECT_EQ(client.request("GET", s.url()).new_connections, 0) << "TLS keep-alive not reused";
}

TEST(TlsServer, UntrustedClientFailsVerification) {
  TlsServer s;
  HttpClient client(make_pki("other").ca.cert);
  EXPECT_NE(client.request("GET", s.url()).error, "");
}

TEST(TlsServer, RefusesProtocolsOlderThanTls12) {
  TlsServer s;
  EXPECT_FALSE(probe_tls(s.server->port(), TLS1_1_VERSION, "").handshake_ok);
  EXPECT_FALSE(probe_tls(s.server->port(), TLS1_VERSION, "").handshake_ok);
  auto tls12 = probe_tls(s.server->port(), TLS1_2_VERSION, "");
  EXPECT_TRUE(tls12.handshake_ok);
  EXPECT_EQ(tls12.protocol, "TLSv1.2");
  EXPECT_TRUE(probe_tls(s.server->port(), 0, "").handshake_ok);
}

TEST(TlsServer, AlpnNeverSelectsHttp2) {
  TlsServer s;
  const std::string h2("\x02h2", 3);
  const std::string http11("\x08http/1.1", 9);
  EXPECT_EQ(probe_tls(s.server->port(), 0, h2 + http11).alpn, "http/1.1");
  auto only_h2 = probe_tls(s.server->port(), 0, h2);
  EXPECT_TRUE(only_h2.handshake_ok);
  EXPECT_EQ(only_h2.alpn, "");
  EXPECT_EQ(probe_tls(s.server->port(), 0, "").alpn, "");
}

TEST(TlsServer, PlainHttpOnTheTlsPortIsClosed) {
  TlsServer s;
  testing_clients::RawConnection raw(s.server->port());
  raw.send_all("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_TRUE(raw.closed_within(3s));
}

// TLS is driven on the socket directly; its deadlines are the connection's own.
TEST(TlsServer, ClientThatNeverHandshakesIsClosedAfterTheHandshakeTimeout) {
  ServerOptions options;
  options.handshake_timeout = 200ms;
  TlsServer s(50ms, options);
  testing_clients::RawConnection raw(s.server->port());
  const auto started = std::chrono::steady_clock::now();
  EXPECT_TRUE(raw.closed_within(3s));
  EXPECT_GE(std::chrono::steady_clock::now() - started, 150ms);
}

TEST(TlsServer, StalledRequestIsClosedAfterTheReadTimeoutAndTheServerKeepsServing) {
  ServerOptions options;
  options.read_timeout = 200ms;
  TlsServer s(50ms, options);
  // A client that aborts a 64 MiB response half way: the server's writes then fail (EPIPE,
  // not a SIGPIPE that would end this test process).
  HttpClient impatient(s.pki.ca.cert);
  auto cut = impatient.request("GET", "https://localhost:" + std::to_string(s.server->port()) + "/big", {}, {}, 100ms);
  EXPECT_NE(cut.error, "");
  // The first request never completes: its header arrives in part.
  HttpClient client(s.pki.ca.cert);
  const auto started = std::chrono::steady_clock::now();
  auto r = client.request("POST", s.url(), "body", {"Content-Length: 100"}, 3s);
  EXPECT_NE(r.error, "") << "a request with a missing body was answered";
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2500ms);
  HttpClient after(s.pki.ca.cert);
  EXPECT_EQ(after.request("GET", s.url()).status, 200);
}

// Two requests in two TLS records sent back to back: OpenSSL reads ahead, so the second one
// waits in its buffer, not in the socket; it must be answered without further input.
std::string pipelined_over_tls(std::uint16_t port, const std::vector<std::string>& requests) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval timeout{3, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  std::string received;
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL* ssl = SSL_new(ctx);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 && SSL_set_fd(ssl, fd) == 1 &&
      SSL_connect(ssl) == 1) {
    // Corked, so that all the records reach the server in one segment.
    int on = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_CORK, &on, sizeof on);
    for (const auto& request : requests) SSL_write(ssl, request.data(), static_cast<int>(request.size()));
    int off = 0;
    ::setsockopt(fd, IPPROTO_TCP, TCP_CORK, &off, sizeof off);
    char chunk[4096];
    for (int n; (n = SSL_read(ssl, chunk, sizeof chunk)) > 0;) received.append(chunk, static_cast<std::size_t>(n));
  }
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  ::close(fd);
  return received;
}

TEST(TlsServer, AnswersRequestsPipelinedInSeparateRecords) {
  TlsServer s;
  const std::string reply = pipelined_over_tls(
      s.server->port(),
      {"GET /ping HTTP/1.1\r\nHost: x\r\n\r\n", "GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"});
  const auto first = reply.find("HTTP/1.1 200 OK");
  ASSERT_NE(first, std::string::npos) << reply;
  EXPECT_NE(reply.find("HTTP/1.1 200 OK", first + 1), std::string::npos) << reply;
  EXPECT_EQ(reply.substr(reply.size() - 6), "secure") << reply;
}

TEST(TlsServer, RotatedCertificateServesNewConnectionsWithoutDroppingOpenOnes) {
  TlsServer s;
  HttpClient old_client(s.pki.ca.cert);
  auto before = old_client.request("GET", s.url());
  ASSERT_EQ(before.status, 200) << before.error;
  EXPECT_NE(before.peer_subject.find("first"), std::string::npos);

  write_cert_dir(s.dir.path(), testing_pki::issue_serving(s.pki.ca, "second"));
  ASSERT_TRUE(s.wait_for_reloads(1));

  HttpClient new_client(s.pki.ca.cert);
  auto fresh = new_client.request("GET", s.url());
  EXPECT_EQ(fresh.status, 200) << fresh.error;
  EXPECT_NE(fresh.peer_subject.find("second"), std::string::npos) << fresh.peer_subject;

  auto kept = old_client.request("GET", s.url());
  EXPECT_EQ(kept.status, 200) << kept.error;
  EXPECT_EQ(kept.new_connections, 0) << "the open connection was dropped by the rotation";
}

TEST(TlsServer, MismatchedOrMissingPairIsIgnoredUntilAValidOneAppears) {
  TlsServer s;
  auto next = testing_pki::issue_serving(s.pki.ca, "third");
  // Half-way through a rotation: new certificate, old key.
  testing_pki::write_file(s.dir.path() / "tls.crt", next.cert);
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(s.server->certificate_reloads(), 0u);
  HttpClient client(s.pki.ca.cert);
  auto during = client.request("GET", s.url());
  EXPECT_EQ(during.status, 200) << during.error;
  EXPECT_NE(during.peer_subject.find("first"), std::string::npos);

  std::filesystem::remove(s.dir.path() / "tls.key");
  std::this_thread::sleep_for(200ms);
  HttpClient client2(s.pki.ca.cert);
  EXPECT_EQ(client2.request("GET", s.url()).status, 200);

  testing_pki::write_file(s.dir.path() / "tls.key", next.key);
  ASSERT_TRUE(s.wait_for_reloads(1));
  HttpClient client3(s.pki.ca.cert);
  EXPECT_NE(client3.request("GET", s.url()).peer_subject.find("third"), std::string::npos);
}

TEST(TlsServer, StartFailsClearlyWithoutACertificate) {
  TempDir empty;
  ServerOptions options;
  options.host = "127.0.0.1";
  options.tls = TlsOptions{empty.path() / "missing"};
  Server server(options, Router{});
  try {
    server.start();
    FAIL() << "started without a certificate";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("tls.crt"), std::string::npos) << e.what();
  }
}

TEST(TlsServer, StartFailsClearlyWithAMismatchedKey) {
  TempDir dir;
  auto a = make_pki("a");
  auto b = make_pki("b");
  testing_pki::write_file(dir.path() / "tls.crt", a.serving.cert);
  testing_pki::write_file(dir.path() / "tls.key", b.serving.key);
  ServerOptions options;
  options.host = "127.0.0.1";
  options.tls = TlsOptions{dir.path()};
  Server server(options, Router{});
  try {
    server.start();
    FAIL() << "started with a mismatched key";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("does not match"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace dha::server

namespace dha::server {
namespace {

// The header deadline counts from accept over TLS as well: a client that handshakes and then
// sends its header one byte at a time is cut when it runs out.
TEST(TlsServer, ASlowHeaderIsCutAtTheHeaderDeadline) {
  ServerOptions options;
  options.header_timeout = 400ms;
  TlsServer s(50ms, options);
  std::signal(SIGPIPE, SIG_IGN);  // the write after the cut must fail, not end the test
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  testing_clients::RawConnection raw(s.server->port());
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, raw.native_handle());
  ASSERT_EQ(SSL_connect(ssl), 1);
  const auto started = std::chrono::steady_clock::now();
  const std::string header = "GET /ping HTTP/1.1\r\nHost: x\r\nX-Pad: " + std::string(200, 'a');
  bool cut = false;
  for (char c : header) {
    if (SSL_write(ssl, &c, 1) <= 0) {
      cut = true;
      break;
    }
    std::this_thread::sleep_for(20ms);
  }
  const auto took = std::chrono::steady_clock::now() - started;
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  EXPECT_TRUE(cut || raw.closed_within(1s));
  EXPECT_LT(took, 2s) << "the slow header was not cut";
}

}  // namespace
}  // namespace dha::server
