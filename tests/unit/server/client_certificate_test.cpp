// A TLS server told a client CA: who gets through the handshake (a client certificate from
// that CA, with an allowed name when names are given) and who does not (no certificate,
// another CA's, one for servers only), the CA file re-read like the certificate, clear errors
// for a bad file at start, and trust for a verified peer's connections.

#include "test_clients.hpp"
#include "test_pki.hpp"

#include "dha/server/server.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace dha::server {
namespace {

using namespace std::chrono_literals;
using testing_clients::HttpClient;
using testing_clients::RawConnection;
using testing_pki::issue_client;
using testing_pki::make_pki;
using testing_pki::Pem;
using testing_pki::TempDir;
using testing_pki::write_cert_dir;
using testing_pki::write_file;

bool eventually(const std::function<bool()>& done, std::chrono::milliseconds within = 5s) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

// A server whose clients must present a certificate from `clients` (the CA file ca.pem).
struct MutualTlsServer {
  TempDir dir;
  testing_pki::Pki serving = make_pki("webhook");
  testing_pki::Pki clients = make_pki("unused");
  std::atomic<int> answered{0};
  std::unique_ptr<Server> server;

  explicit MutualTlsServer(std::vector<std::string> names = {}, ServerOptions options = {}) {
    write_cert_dir(dir.path(), serving.serving);
    write_file(ca_file(), clients.ca.cert);
    options.host = "127.0.0.1";
    options.tls = TlsOptions{dir.path(), "tls.crt", "tls.key", 50ms, ca_file(), std::move(names)};
    Router router;
    router.handle("/ping", [this](const Request&) {
      ++answered;
      return Response::text(200, "pong");
    });
    server = std::make_unique<Server>(options, std::move(router));
    server->start();
  }
  std::filesystem::path ca_file() const { return dir.path() / "ca.pem"; }
  std::string url() const { return "https://localhost:" + std::to_string(server->port()) + "/ping"; }

  // One request from a new client presenting `cert` (none when empty).
  testing_clients::HttpResult ping(const Pem& cert = {}) {
    HttpClient client(serving.ca.cert);
    if (!cert.cert.empty()) client.set_client_certificate(cert.cert, cert.key);
    return client.request("GET", url());
  }
};

TEST(ClientCertificate, AClientWithACertificateFromTheClientCaIsAnswered) {
  MutualTlsServer s;
  const auto r = s.ping(issue_client(s.clients.ca, "kube-apiserver"));
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "pong");
}

TEST(ClientCertificate, AClientWithoutACertificateIsRefusedAtTheHandshake) {
  MutualTlsServer s;
  const auto r = s.ping();
  EXPECT_NE(r.error, "");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(s.answered.load(), 0) << "the request reached its route";
}

TEST(ClientCertificate, AClientWithAnotherCasCertificateIsRefusedAtTheHandshake) {
  MutualTlsServer s;
  const auto other = make_pki("other");
  const auto r = s.ping(issue_client(other.ca, "kube-apiserver"));
  EXPECT_NE(r.error, "");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(s.answered.load(), 0) << "the request reached its route";
}

TEST(ClientCertificate, ACertificateTheCaIssuedForServersOnlyIsRefused) {
  MutualTlsServer s;
  // Same CA, but its extended key usage is serverAuth: it may not authenticate a client.
  const auto r = s.ping(s.clients.serving);
  EXPECT_NE(r.error, "");
  EXPECT_EQ(s.answered.load(), 0);
}

TEST(ClientCertificate, GivenNamesOnlyACertificateCarryingOneOfThemPasses) {
  MutualTlsServer s({"kube-apiserver", "apiserver.example"});
  EXPECT_EQ(s.ping(issue_client(s.clients.ca, "kube-apiserver")).status, 200);
  EXPECT_EQ(s.ping(issue_client(s.clients.ca, "someone", "apiserver.example")).status, 200) << "by its DNS name";
  const auto refused = s.ping(issue_client(s.clients.ca, "someone", "someone.example"));
  EXPECT_NE(refused.error, "");
  EXPECT_EQ(refused.status, 0);
  EXPECT_EQ(s.answered.load(), 2);
}

TEST(ClientCertificate, WithoutAClientCaNoCertificateIsAskedFor) {
  TempDir dir;
  const auto pki = make_pki("webhook");
  write_cert_dir(dir.path(), pki.serving);
  ServerOptions options;
  options.host = "127.0.0.1";
  options.tls = TlsOptions{dir.path()};
  Router router;
  router.handle("/ping", [](const Request&) { return Response::text(200, "pong"); });
  Server server(options, std::move(router));
  server.start();
  const auto r = HttpClient(pki.ca.cert).request("GET", "https://localhost:" + std::to_string(server.port()) + "/ping");
  EXPECT_EQ(r.status, 200) << r.error;
}

TEST(ClientCertificate, TheClientCaFileIsReReadWhenItChanges) {
  MutualTlsServer s;
  const auto next = make_pki("next");
  const auto old_client = issue_client(s.clients.ca, "kube-apiserver");
  const auto new_client = issue_client(next.ca, "kube-apiserver");
  ASSERT_EQ(s.ping(old_client).status, 200);
  ASSERT_EQ(s.ping(new_client).status, 0);

  write_file(s.ca_file(), next.ca.cert);
  ASSERT_TRUE(eventually([&] { return s.server->certificate_reloads() >= 1; })) << "the CA file was not re-read";
  EXPECT_EQ(s.ping(new_client).status, 200);
  EXPECT_EQ(s.ping(old_client).status, 0) << "the replaced CA is still trusted";

  // A bundle holding both CAs lets both through (a CA rotation's overlap).
  write_file(s.ca_file(), s.clients.ca.cert + next.ca.cert);
  ASSERT_TRUE(eventually([&] { return s.server->certificate_reloads() >= 2; }));
  EXPECT_EQ(s.ping(new_client).status, 200);
  EXPECT_EQ(s.ping(old_client).status, 200);

  // A broken CA file is ignored: the last good one stays, it never means "no verification".
  write_file(s.ca_file(), "");
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(s.server->certificate_reloads(), 2u);
  EXPECT_EQ(s.ping().status, 0);
  EXPECT_EQ(s.ping(old_client).status, 200);
}

// start() with this client CA file text (or no file when nullopt) fails; its message.
std::string start_error(const std::optional<std::string>& ca_text) {
  TempDir dir;
  write_cert_dir(dir.path(), make_pki("webhook").serving);
  if (ca_text) write_file(dir.path() / "ca.pem", *ca_text);
  ServerOptions options;
  options.name = "webhook";
  options.host = "127.0.0.1";
  options.tls = TlsOptions{dir.path(), "tls.crt", "tls.key", 1s, dir.path() / "ca.pem"};
  Server server(options, Router{});
  try {
    server.start();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(ClientCertificate, StartFailsClearlyWithABadClientCaFile) {
  const std::string missing = start_error(std::nullopt);
  EXPECT_NE(missing.find("cannot read"), std::string::npos) << missing;
  EXPECT_NE(missing.find("ca.pem"), std::string::npos) << missing;
  for (const char* text : {"", "not a certificate\n"}) {
    const std::string e = start_error(text);
    EXPECT_NE(e.find("client CA"), std::string::npos) << e;
    EXPECT_NE(e.find("ca.pem"), std::string::npos) << e;
    EXPECT_NE(e.find("no PEM certificate"), std::string::npos) << e;
  }
  const std::string corrupt =
      start_error("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n");
  EXPECT_NE(corrupt.find("invalid client CA bundle"), std::string::npos) << corrupt;
}

TEST(ClientCertificate, AVerifiedPeersKeepAliveConnectionIsNeverClosedForAFlood) {
  // As a peer that sent a vouched-for request is trusted (accept_flood_test.cpp): here it
  // sends only a request its route does not vouch for; its certificate is what vouches.
  ServerOptions options;
  options.header_timeout = 30s;
  options.idle_timeout = 30s;
  options.first_byte_timeout = 30s;
  options.max_connections = 8;
  options.reserved_connections = 2;
  options.max_connections_per_peer = 4;
  MutualTlsServer s({}, options);
  const auto cert = issue_client(s.clients.ca, "kube-apiserver");
  // Its first connection's handshake makes the peer trusted; the slots of its later ones are
  // taken as a trusted peer's.
  {
    HttpClient first(s.serving.ca.cert);
    first.set_client_certificate(cert.cert, cert.key);
    ASSERT_EQ(first.request("GET", s.url()).status, 200);
  }
  ASSERT_TRUE(eventually([&] { return s.server->active_connections() == 0; }));
  HttpClient verified(s.serving.ca.cert);
  verified.set_client_certificate(cert.cert, cert.key);
  ASSERT_EQ(verified.request("GET", s.url()).status, 200);
  ASSERT_TRUE(eventually([&] { return s.server->active_connections() == 1; }));
  std::vector<std::unique_ptr<RawConnection>> flood;
  for (int i = 0; i < 40; ++i)
    flood.push_back(std::make_unique<RawConnection>(s.server->port(), "127.0.1." + std::to_string(2 + i)));
  ASSERT_TRUE(eventually([&] { return s.server->evicted_connections() >= 10; })) << "the flood never filled the server";
  const auto again = verified.request("GET", s.url());
  EXPECT_EQ(again.status, 200) << again.error;
  EXPECT_EQ(again.new_connections, 0) << "the verified peer's connection was closed for the flood";
}

}  // namespace
}  // namespace dha::server
