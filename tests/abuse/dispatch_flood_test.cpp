// Connection floods against the webhook as the API server meets them: the API server
// dispatches the chart's own webhooks (failurePolicy Ignore, the chart's timeout) to the real
// operator, opening a new connection for each review, while the floods hold the webhook's
// (and the probes') connections: thousands of idle ones from 100, 3000 and 90 x 50 loopback
// addresses, slow headers, slow bodies, parallel large uploads, and forged reviews posted to
// the target webhook as fast as 8 clients go. Asserted in each: every
// tenant patch of a managed release's replicas is denied (under Ignore, a review that times
// out admits it), and the probes answer within the kubelet's 1 s. Reviews sent directly on
// new connections give the latency figures of bench/abuse. Bounded: about 3 s per attack.

#include <curl/curl.h>
#include <fmt/format.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <thread>

#include "abuse_clients.hpp"
#include "chart_rbac.hpp"
#include "chart_webhooks.hpp"
#include "dha/kube/json.hpp"
#include "dha/testing/test_certificates.hpp"
#include "operator_world.hpp"
#include "review_flood.hpp"
#include "sanitized_build.hpp"

namespace dha::optest {
namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kReleases = "/apis/helm.toolkit.fluxcd.io/v2/namespaces/tenant-a/helmreleases";

double ms_since(Clock::time_point started) {
  return std::chrono::duration<double, std::milli>(Clock::now() - started).count();
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

size_t collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// Where a request's time went, in ms from its start: TCP connected, TLS done, first byte in.
struct Phases {
  double connected = 0, tls_done = 0, first_byte = 0;
};

// One request on a connection of its own, from `source`; the status, 0 when none came in time.
long fresh_request(const std::string& url, const std::string& body, const std::string& ca_file,
                   const std::string& source, long timeout_ms, std::string& out, Phases* phases = nullptr) {
  CURL* curl = curl_easy_init();
  out.clear();
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  if (!ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, ca_file.c_str());
  curl_easy_setopt(curl, CURLOPT_INTERFACE, ("host!" + source).c_str());
  curl_easy_setopt(curl, CURLOPT_FRESH_CONNECT, 1L);
  curl_easy_setopt(curl, CURLOPT_FORBID_REUSE, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  if (!body.empty()) curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &out);
  long status = 0;
  if (curl_easy_perform(curl) == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  if (phases != nullptr) {
    curl_off_t connected = 0, tls_done = 0, first_byte = 0;  // microseconds
    curl_easy_getinfo(curl, CURLINFO_CONNECT_TIME_T, &connected);
    curl_easy_getinfo(curl, CURLINFO_APPCONNECT_TIME_T, &tls_done);
    curl_easy_getinfo(curl, CURLINFO_STARTTRANSFER_TIME_T, &first_byte);
    *phases = {static_cast<double>(connected) / 1000, static_cast<double>(tls_done) / 1000,
               static_cast<double>(first_byte) / 1000};
  }
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return status;
}

std::string review(const std::string& uid) {
  const std::string old_hr =
      R"({"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease","metadata":{"name":"postgres-db","namespace":"tenant-a",)"
      R"("annotations":{"apps.cozystack.io-autoscaling.cozystack.io/managed-by":"db"}},"spec":{"values":{"replicas":3}}})";
  std::string new_hr = old_hr;
  new_hr.replace(new_hr.find("\"replicas\":3"), 12, "\"replicas\":9");
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":")" + uid +
         R"(","kind":{"group":"helm.toolkit.fluxcd.io","version":"v2","kind":"HelmRelease"},"operation":"UPDATE",)"
         R"("userInfo":{"username":"tenant-user"},"object":)" +
         new_hr + R"(,"oldObject":)" + old_hr + "}}";
}

// A forged CREATE of a DHA carrying a 200 KB annotation, as anyone who reaches the port can post.
std::string forged_target_review() {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"forged",)"
         R"("kind":{"group":"autoscaling.cozystack.io","version":"v1alpha1","kind":"DatabaseHorizontalAutoscaler"},)"
         R"("operation":"CREATE","userInfo":{"username":"mallory"},"object":{"metadata":{"name":"probe",)"
         R"("namespace":"tenant-b","annotations":{"pad":")" +
         std::string(200000, 'x') + R"("}},"spec":{"targetRef":{"kind":"Postgres","name":"billing-prod"}}}}})";
}

// One attack: started by `start`, kept up by `tick` every 50 ms on a thread of its own.
struct Attack {
  std::string name;
  std::function<void()> start;
  std::function<void()> tick;
  std::function<std::string()> summary;
};

struct Figures {
  std::vector<double> review_ms;                            // direct reviews on new connections
  std::vector<double> connect_ms, handshake_ms, answer_ms;  // their phases: TCP, TLS, request to first byte
  int review_failed = 0;
  std::vector<double> probe_ms;
  int probe_failed = 0;
  int patches = 0, denied = 0, admitted = 0;
};

class DispatchFlood : public OperatorWorld {};

TEST_F(DispatchFlood, EveryTenantPatchOfAManagedReleaseIsDeniedDuringEachFlood) {
  if (cluster_->backend() != testing::KubeBackend::embedded)
    GTEST_SKIP() << "the embedded API server opens a connection per review, as measured here";
  std::signal(SIGPIPE, SIG_IGN);
  const long fd_limit = abuse::raise_open_file_limit(20000);  // inherited by the operator
  ASSERT_GE(fd_limit, 14000) << "the floods need 6000 sockets on each side";

  const auto cert = testing::issue_test_certificate({"localhost"}, {"127.0.0.1"});
  const std::string certs = dir_ + "/certs";
  std::filesystem::create_directories(certs);
  std::ofstream(certs + "/tls.crt") << cert.cert_pem;
  std::ofstream(certs + "/tls.key") << cert.key_pem;
  std::ofstream(dir_ + "/ca.crt") << cert.ca_pem;
  const std::string ca = dir_ + "/ca.crt";

  const auto webhook_port = testing::free_loopback_port();
  const auto probe_port = testing::free_loopback_port();
  start_operator('a', {{"--cert-dir", certs},
                       {"--enable-webhook", "true"},
                       {"--webhook-port", std::to_string(webhook_port)},
                       {"--webhook-host", "127.0.0.1"},
                       {"--health-probe-bind-address", fmt::format("127.0.0.1:{}", probe_port)},
                       {"--log-level", "info"}});
  const std::string webhook = fmt::format("https://127.0.0.1:{}/validate-helmrelease-replicas", webhook_port);
  const std::string readyz = fmt::format("http://127.0.0.1:{}/readyz", probe_port);
  std::string out;
  ASSERT_TRUE(eventually([&] { return fresh_request(readyz, {}, {}, "127.0.0.1", 1000, out) == 200; }, 30s))
      << "the operator never became ready";

  const auto created = cluster_->request(
      "admin", "POST", kReleases,
      R"({"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease","metadata":{"name":"postgres-db",)"
      R"("namespace":"tenant-a","annotations":{"apps.cozystack.io-autoscaling.cozystack.io/managed-by":"db"}},)"
      R"("spec":{"interval":"5m","chart":{"spec":{"chart":"postgres"}},"values":{"replicas":3,"size":"10Gi"}}})");
  ASSERT_EQ(created.status, 201) << created.body;
  const auto configured =
      cluster_->request("admin", "POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
                        chart_webhooks_on_loopback(render_chart(), webhook_port, cert.ca_pem));
  ASSERT_EQ(configured.status, 201) << configured.body;

  const std::string release = std::string(kReleases) + "/postgres-db";
  int replicas = 10;
  // A tenant's patch: denied by the webhook (403 naming it), or admitted (200).
  auto tenant_patch = [&] {
    const auto r = cluster_->request("tenant", "PATCH", release,
                                     fmt::format(R"({{"spec":{{"values":{{"replicas":{}}}}}}})", ++replicas),
                                     "application/merge-patch+json", 20s);
    return r.status;
  };
  ASSERT_TRUE(eventually([&] { return tenant_patch() == 403; }, 10s)) << "the webhook never denied a patch";

  // The attacks, each from loopback addresses of its own.
  using abuse::IdleConnections;
  using abuse::SlowTlsSenders;
  std::unique_ptr<IdleConnections> idle, idle_probes;
  std::unique_ptr<SlowTlsSenders> slow;
  std::unique_ptr<abuse::ReviewFlood> forged;
  const std::string post_head =
      "POST /validate-helmrelease-replicas HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";
  auto idle_attack = [&](std::string name, int b, int sources, int per_source) {
    return Attack{
        std::move(name),
        [&, b, sources, per_source] {
          idle = std::make_unique<IdleConnections>(webhook_port, abuse::loopback_sources(b, sources), per_source);
          idle_probes = std::make_unique<IdleConnections>(probe_port, abuse::loopback_sources(b + 100, 200), 8);
        },
        [&] {
          idle->maintain();
          idle_probes->maintain();
        },
        [&] {
          return fmt::format("{} opened, {} closed by the server; probes: {} opened, {} closed", idle->opened(),
                             idle->closed_by_server(), idle_probes->opened(), idle_probes->closed_by_server());
        }};
  };
  auto slow_attack = [&](std::string name, int b, int senders, std::string request, std::size_t chunk) {
    return Attack{
        std::move(name),
        [&, b, senders, request, chunk] {
          slow = std::make_unique<SlowTlsSenders>(webhook_port, abuse::loopback_sources(b, senders), request, chunk);
        },
        [&] { slow->tick(); },
        [&] { return fmt::format("{} opened, {} cut by the server", slow->opened(), slow->cut_by_server()); }};
  };
  std::vector<Attack> attacks;
  attacks.push_back(idle_attack("6000 idle connections from 100 addresses", 10, 100, 60));
  attacks.push_back(idle_attack("3000 idle connections from 3000 addresses", 20, 3000, 1));
  attacks.push_back(idle_attack("4500 idle connections from 90 x 50", 30, 90, 50));
  attacks.push_back(
      slow_attack("300 slow headers, 1 byte per tick", 40, 300, post_head + "X-Pad: " + std::string(4000, 'a'), 1));
  attacks.push_back(slow_attack("40 slow 7 MB bodies, 2 KB per tick", 50, 40,
                                post_head + "Content-Length: 7000000\r\n\r\n" + std::string(7000000, ' '), 2048));
  attacks.push_back(slow_attack("20 parallel 7 MB uploads, 512 KB per tick", 60, 20,
                                post_head + "Content-Length: 7000000\r\n\r\n" + std::string(7000000, ' '), 512 * 1024));
  const std::string target_webhook = fmt::format("https://127.0.0.1:{}/validate-dha-target", webhook_port);
  attacks.push_back(Attack{"forged 200 KB target reviews from 8 addresses, keep-alive, as fast as they go",
                           [&] {
                             forged = std::make_unique<abuse::ReviewFlood>(
                                 target_webhook, ca, abuse::loopback_sources(70, 8), forged_target_review());
                           },
                           [] {},
                           [&] {
                             return fmt::format("{} sent on {} connections: {} decided, {} answered 429",
                                                forged->sent(), forged->connections(), forged->answered(),
                                                forged->throttled());
                           }});

  // DHA_DISPATCH_FLOOD_ATTACKS=n runs only the first n, DHA_DISPATCH_FLOOD_ATTACK=text only those
  // whose name contains the text (a quick check against an old build).
  if (const char* n = std::getenv("DHA_DISPATCH_FLOOD_ATTACKS"))
    attacks.resize(std::min<std::size_t>(attacks.size(), static_cast<std::size_t>(std::atoi(n))));
  if (const char* only = std::getenv("DHA_DISPATCH_FLOOD_ATTACK"))
    std::erase_if(attacks, [only](const Attack& a) { return a.name.find(only) == std::string::npos; });
  constexpr auto attack_length = 3s;
  std::vector<std::string> report;
  Figures all;
  for (auto& attack : attacks) {
    SCOPED_TRACE(attack.name);
    attack.start();
    std::atomic<bool> stop{false};
    std::thread attacker([&] {
      while (!stop) {
        attack.tick();
        std::this_thread::sleep_for(50ms);
      }
    });
    std::this_thread::sleep_for(500ms);  // let it build up
    Figures f;
    // The tenant's patches go through the API server; meanwhile direct reviews and probes,
    // each on a new connection.
    std::thread patcher([&] {
      const auto started = Clock::now();
      while (Clock::now() - started < attack_length) {
        const long status = tenant_patch();
        ++f.patches;
        f.denied += status == 403;
        f.admitted += status == 200;
        std::this_thread::sleep_for(200ms);
      }
    });
    std::thread prober([&] {
      const auto started = Clock::now();
      std::string body;
      while (Clock::now() - started < attack_length) {
        const auto sent = Clock::now();
        if (fresh_request(readyz, {}, {}, "127.0.0.1", 1000, body) == 200) {
          f.probe_ms.push_back(ms_since(sent));
        } else {
          ++f.probe_failed;
        }
        std::this_thread::sleep_for(100ms);
      }
    });
    const auto started = Clock::now();
    std::string body;
    for (int i = 0; Clock::now() - started < attack_length; ++i) {
      const auto sent = Clock::now();
      Phases phases;
      const long status =
          fresh_request(webhook, review(fmt::format("direct-{}", i)), ca, "127.0.0.1", 5000, body, &phases);
      if (status == 200 && body.find("\"allowed\":false") != std::string::npos) {
        f.review_ms.push_back(ms_since(sent));
        f.connect_ms.push_back(phases.connected);
        f.handshake_ms.push_back(phases.tls_done - phases.connected);
        f.answer_ms.push_back(phases.first_byte - phases.tls_done);
      } else {
        ++f.review_failed;
      }
      std::this_thread::sleep_for(20ms);
    }
    patcher.join();
    prober.join();
    stop = true;
    attacker.join();
    report.push_back(
        fmt::format("  {}: {}\n    reviews on new connections: {} answered, p50 {:.1f} ms, p99 {:.1f} ms, "
                    "max {:.1f} ms, {} failed (p50 / p99 ms: TCP connect {:.1f} / {:.1f}, TLS handshake "
                    "{:.1f} / {:.1f}, request to answer {:.1f} / {:.1f}); tenant patches: {} of {} denied, "
                    "{} admitted; probes: {} answered, max {:.1f} ms, {} failed",
                    attack.name, attack.summary(), f.review_ms.size(), percentile(f.review_ms, 0.5),
                    percentile(f.review_ms, 0.99), percentile(f.review_ms, 1.0), f.review_failed,
                    percentile(f.connect_ms, 0.5), percentile(f.connect_ms, 0.99), percentile(f.handshake_ms, 0.5),
                    percentile(f.handshake_ms, 0.99), percentile(f.answer_ms, 0.5), percentile(f.answer_ms, 0.99),
                    f.denied, f.patches, f.admitted, f.probe_ms.size(), percentile(f.probe_ms, 1.0), f.probe_failed));
    EXPECT_GT(f.patches, 0);
    EXPECT_EQ(f.denied, f.patches) << "tenant patches admitted (by timeout, failurePolicy Ignore) or failed";
    EXPECT_EQ(f.admitted, 0);
    EXPECT_EQ(f.review_failed, 0);
    EXPECT_EQ(f.probe_failed, 0) << "a probe took longer than the kubelet's 1 s";
    // The latency target (p99 under 50 ms) is bench/abuse's figure: on a shared CI machine a
    // TLS handshake per review is not that steady. Asserted: each review is decided well within
    // the API server's 5 s timeout.
    EXPECT_LT(percentile(f.review_ms, 1.0), 2500.0);
    std::printf("%s\n", report.back().c_str());
    std::fflush(stdout);
    idle.reset();
    idle_probes.reset();
    slow.reset();
    forged.reset();
  }
  std::printf("dispatch flood figures (%lld s per attack, open-file limit %ld):\n",
              static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(attack_length).count()),
              fd_limit);
  for (const auto& line : report) std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

}  // namespace
}  // namespace dha::optest
