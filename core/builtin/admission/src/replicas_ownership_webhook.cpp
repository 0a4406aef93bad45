#include "dha/admission/replicas_ownership_webhook.hpp"
#include "dha/admission/admission_review.hpp"
#include "dha/admission/admission_route.hpp"
#include "dha/telemetry/registry.hpp"

#include <chrono>
#include <memory>

namespace dha::admission {

namespace {

struct WebhookMetrics {
  telemetry::CounterFamily* requests = nullptr;
  std::shared_ptr<telemetry::Histogram> latency;
  std::shared_ptr<telemetry::Gauge> in_flight;
  // One cell per outcome and for the two status codes the handler produces, looked up once
  // here instead of by label values on every request.
  std::shared_ptr<telemetry::Counter> by_result[4];
  std::shared_ptr<telemetry::Counter> code_200;
  std::shared_ptr<telemetry::Counter> code_400;

  telemetry::Counter& code(int status, const std::string& webhook) const {
    if (status == 200) return *code_200;
    if (status == 400) return *code_400;
    return *requests->with({webhook, std::to_string(status)});
  }
};

WebhookMetrics register_metrics(telemetry::Registry& registry, const std::string& webhook) {
  WebhookMetrics m;
  m.requests = &registry.counter("controller_runtime_webhook_requests_total",
                                 "Total number of admission requests by HTTP status code.", {"webhook", "code"});
  m.latency = registry
                  .histogram("controller_runtime_webhook_latency_seconds",
                             "Histogram of the latency of processing admission requests", {"webhook"})
                  .with({webhook});
  m.in_flight = registry
                    .gauge("controller_runtime_webhook_requests_in_flight",
                           "Current number of admission requests being served.", {"webhook"})
                    .with({webhook});
  auto& admissions =
      registry.counter("db_autoscaler_webhook_admissions_total",
                       "Admission reviews by outcome: allowed, denied, errored, bad_request.", {"webhook", "result"});
  for (auto result : {ReviewResult::allowed, ReviewResult::denied, ReviewResult::errored, ReviewResult::bad_request})
    m.by_result[static_cast<int>(result)] = admissions.with({webhook, std::string(to_string(result))});
  m.code_200 = m.requests->with({webhook, "200"});
  m.code_400 = m.requests->with({webhook, "400"});
  return m;
}

}  // namespace

void mount_replicas_ownership_webhook(server::Router& router, const ReplicasOwnershipWebhookOptions& options,
                                      telemetry::Registry* metrics) {
  mount_admission_review(router, options.path, ownership_decision({options.apps_api_username}), metrics);
}

void mount_admission_review(server::Router& router, const std::string& path, Decision decide,
                            telemetry::Registry* metrics, ReviewBudget budget) {
  std::shared_ptr<WebhookMetrics> recorded;
  if (metrics != nullptr) recorded = std::make_shared<WebhookMetrics>(register_metrics(*metrics, path));

  router.handle(path, [decide = std::move(decide), recorded, webhook = path,
                       budget = std::move(budget)](const server::Request& request) {
    if (budget && !budget(request)) {
      if (recorded) recorded->code(429, webhook).inc();
      auto refused = server::Response::text(429, "too many reviews from this address; retry\n");
      refused.headers.emplace_back("Retry-After", "1");
      return refused;
    }
    const auto started = std::chrono::steady_clock::now();
    if (recorded) recorded->in_flight->add(1);
    ReviewReply reply = handle_admission_review(request.body, request.header("Content-Type"), decide);
    if (recorded) {
      recorded->in_flight->add(-1);
      recorded->latency->observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
      recorded->code(reply.http_status, webhook).inc();
      recorded->by_result[static_cast<int>(reply.result)]->inc();
    }
    server::Response response;
    response.status = reply.http_status;
    response.content_type = std::move(reply.content_type);
    response.body = std::move(reply.body);
    // A well-formed review is what the API server sends: the server may keep slots for its peer.
    response.vouches_for_peer = reply.result != ReviewResult::bad_request;
    return response;
  });
}

}  // namespace dha::admission
