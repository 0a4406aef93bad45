// The target webhook's per-peer budget, on a real TLS server: anyone who reaches the port can
// post reviews, so one address may have only so many decided (a large body costs more); past
// that it is answered 429 before its review is parsed or the claims are read, on the same
// connection. Peers in the configured trusted networks (the API server's CIDRs) are not counted.

#include "test_clients.hpp"
#include "test_pki.hpp"

#include "dha/admission/one_dha_per_target_webhook.hpp"
#include "dha/server/server.hpp"

#include <gtest/gtest.h>

#include <atomic>

namespace dha::admission {
namespace {

using testing_clients::HttpClient;

// A CREATE of DHA `name` in tenant-a claiming Postgres/db; `pad` bytes of annotation.
std::string review(const std::string& name, std::size_t pad = 0) {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":")" + name +
         R"(","operation":"CREATE","object":{"metadata":{"name":")" + name +
         R"(","namespace":"tenant-a","annotations":{"pad":")" + std::string(pad, 'x') +
         R"("}},"spec":{"targetRef":{"kind":"Postgres","name":"db"}}}}})";
}

class TargetWebhookBudget : public ::testing::Test {
 protected:
  void SetUp() override {
    testing_pki::write_cert_dir(dir_.path(), pki_.serving);
    server::ServerOptions options;
    options.host = "127.0.0.1";
    options.tls = server::TlsOptions{dir_.path()};
    options.trusted_networks = {"127.0.0.9"};
    server::Router router;
    OneDhaPerTargetWebhookOptions webhook;
    webhook.per_peer_per_second = 0.01;  // no refill to speak of while the test runs
    webhook.per_peer_burst = 20;
    mount_one_dha_per_target_webhook(router, webhook, [this](const std::string&) {
      ++claims_read_;
      return std::vector<TargetClaim>{{"reads", "apps.cozystack.io", "Postgres", "db", false}};
    });
    server_ = std::make_unique<server::Server>(options, std::move(router));
    server_->start();
  }
  std::string url() const { return "https://localhost:" + std::to_string(server_->port()) + "/validate-dha-target"; }

  struct Counts {
    int denied = 0;     // decided: another DHA holds the target
    int throttled = 0;  // 429
    int other = 0;
    long new_connections = 0;
  };
  Counts send(const std::string& source, int reviews, std::size_t pad = 0) {
    HttpClient client(pki_.ca.cert, source);
    Counts counts;
    for (int i = 0; i < reviews; ++i) {
      const auto r = client.request("POST", url(), review("reads-too", pad), {"Content-Type: application/json"});
      counts.new_connections += r.new_connections;
      if (r.status == 200 && r.body.find("\"allowed\":false") != std::string::npos) {
        ++counts.denied;
      } else if (r.status == 429) {
        ++counts.throttled;
        EXPECT_NE(r.headers.find("Retry-After: 1"), std::string::npos) << r.headers;
      } else {
        ++counts.other;
        ADD_FAILURE() << r.status << " " << r.body << r.error;
      }
    }
    return counts;
  }

  testing_pki::TempDir dir_;
  testing_pki::Pki pki_ = testing_pki::make_pki();
  std::atomic<int> claims_read_{0};
  std::unique_ptr<server::Server> server_;
};

TEST_F(TargetWebhookBudget, OnePeerPastItsBudgetIsAnswered429WithoutItsReviewBeingDecided) {
  const Counts flood = send("127.0.0.2", 60);
  EXPECT_EQ(flood.denied, 20) << "the burst, then nothing more decided";
  EXPECT_EQ(flood.throttled, 40);
  EXPECT_EQ(claims_read_, 20) << "a throttled review must not read the claims";
  EXPECT_EQ(flood.new_connections, 1) << "a 429 keeps the connection";

  // Another address has a budget of its own.
  const Counts other = send("127.0.0.3", 1);
  EXPECT_EQ(other.denied, 1);
  EXPECT_EQ(other.throttled, 0);
}

TEST_F(TargetWebhookBudget, ALargeReviewCostsMoreThanASmallOne) {
  // 1 + 640 KiB / 64 KiB = 11 of the 20: one passes, the second does not.
  const Counts large = send("127.0.0.4", 2, 640 * 1024);
  EXPECT_EQ(large.denied, 1);
  EXPECT_EQ(large.throttled, 1);
}

TEST_F(TargetWebhookBudget, APeerInTheTrustedNetworksIsNotCounted) {
  const Counts api_server = send("127.0.0.9", 60);
  EXPECT_EQ(api_server.denied, 60);
  EXPECT_EQ(api_server.throttled, 0);
}

}  // namespace
}  // namespace dha::admission
