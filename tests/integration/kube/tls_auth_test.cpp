// TLS verification and bearer-token identities, through kubeconfig files as the operator loads them.
#include <fstream>

#include "kube_fixture.hpp"
#include "tcp_proxy.hpp"

namespace dha::kube::test {
namespace {

using KubeTlsAuth = KubeTest;

TEST_F(KubeTlsAuth, RightCaIsAcceptedWrongCaIsRefused) {
  EXPECT_NO_THROW(client_->get_path("/version"));

  // A second server has its own self-signed CA; trusting only that one must refuse ours.
  dha::testing::ApiServerOptions other_options;
  other_options.tls = true;
  dha::testing::ApiServer other(other_options);
  other.start();
  ASSERT_NE(other.ca_pem(), cluster_->ca_pem());
  Config wrong = config_for(kAdmin);
  wrong.ca_pem = other.ca_pem();
  Client refused(wrong);
  try {
    refused.get_path("/version");
    FAIL() << "a server not signed by the configured CA was accepted";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.reason(), Reason::Transport) << e.what();
  }
  cluster_->clear_audit();
  EXPECT_THROW(refused.get(configmaps().named("x")), ApiError);
  EXPECT_TRUE(cluster_->audit().empty()) << "no request may be sent over an unverified connection";

  // Garbage CA material is an error too, never a silent fallback to the system store.
  Config garbage = config_for(kAdmin);
  garbage.ca_pem = "-----BEGIN CERTIFICATE-----\nnot a cert\n-----END CERTIFICATE-----\n";
  EXPECT_THROW(Client(garbage).get_path("/version"), ApiError);
  other.stop();
}

TEST_F(KubeTlsAuth, InsecureKubeconfigIsRefusedUnlessAllowed) {
  const auto path = dir_.path() / "insecure";
  {
    std::ofstream out(path);
    out << "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        << "clusters:\n- name: s\n  cluster:\n    server: " << cluster_->url()
        << "\n    insecure-skip-tls-verify: true\n"
        << "contexts:\n- name: c\n  context: {cluster: s, user: u}\n"
        << "users:\n- name: u\n  user: {token: " << cluster_->token(kAdmin) << "}\n";
  }
  ConfigFlags flags;
  flags.kubeconfig = path.string();
  EXPECT_THROW(Config::load(flags), ConfigError);
  flags.allow_insecure = true;
  Client insecure(Config::load(flags));
  EXPECT_NO_THROW(insecure.get_path("/version")) << "explicitly allowed: connects without verification";
}

TEST_F(KubeTlsAuth, TokensCarryIdentities) {
  Client alice(config_for(kAlice));
  cluster_->clear_audit();
  client_->create(configmaps(), configmap("by-admin"));
  try {
    alice.create(configmaps(), configmap("by-alice"));
  } catch (const ApiError& e) {
    // The server may deny alice; either way the request must carry her identity.
    EXPECT_EQ(e.reason(), Reason::Forbidden) << e.what();
  }
  std::vector<std::string> users;
  for (const auto& a : cluster_->audit())
    if (a.method == "POST") users.push_back(a.username);
  EXPECT_EQ(users, (std::vector<std::string>{"admin", "alice"}));

  Client nobody(config_for_token("wrong-token"));
  try {
    nobody.get(configmaps().named("by-admin"));
    FAIL() << "unknown token accepted";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.reason(), Reason::Unauthorized);
    EXPECT_EQ(e.http_status(), 401);
  }
}

TEST_F(KubeTlsAuth, RotatedTokenFileIsPickedUp) {
  const auto token_path = dir_.path() / "token";
  { std::ofstream(token_path) << "wrong-token"; }
  Config cfg = config_for(kAdmin);
  cfg.token = std::make_shared<FileToken>(token_path);
  Client c(cfg);
  EXPECT_THROW(c.get_path("/api/v1/namespaces"), ApiError);
  { std::ofstream(token_path, std::ios::trunc) << cluster_->token(kAdmin); }
  std::filesystem::last_write_time(token_path, std::filesystem::last_write_time(token_path) + std::chrono::seconds(2));
  EXPECT_NO_THROW(c.get_path("/api/v1/namespaces"));
}

TEST_F(KubeTlsAuth, UnreachableServerIsATransportErrorWithinTheConnectTimeout) {
  testsupport::TcpProxy proxy(server_port());
  Config cfg = config_via(proxy.port());
  proxy.down();  // nothing listens there any more
  cfg.connect_timeout = std::chrono::milliseconds(500);
  Client c(cfg);
  const auto start = std::chrono::steady_clock::now();
  try {
    c.get_path("/version");
    FAIL();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.reason(), Reason::Transport) << e.what();
    EXPECT_TRUE(e.retryable());
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

}  // namespace
}  // namespace dha::kube::test
