#include <dha/admission/admission_review.hpp>
#include <dha/admission/replicas_ownership_webhook.hpp>
#include <dha/telemetry/registry.hpp>

#include <chrono>
#include <memory>

namespace dha::admission {

namespace {

struct WebhookMetrics {
  telemetry::CounterFamily* requests = nullptr;
  std::shared_ptr<telemetry::Histogram> latency;
  std::shared_ptr<telemetry::Gauge> in_flight;
  telemetry::CounterFamily* admissions = nullptr;
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
  m.admissions = &registry.counter("db_autoscaler_webhook_admissions_total",
                                   "Admission reviews by outcome: allowed, denied, errored, bad_request.",
                                   {"webhook", "result"});
  return m;
}

} // namespace

void mount_replicas_ownership_webhook(server::Router& router, const ReplicasOwnershipWebhookOptions& options,
                                      telemetry::Registry* metrics) {
  auto decide = ownership_decision({options.operator_username, options.apps_api_username});
  std::shared_ptr<WebhookMetrics> recorded;
  if (metrics != nullptr) recorded = std::make_shared<WebhookMetrics>(register_metrics(*metrics, options.path));

  router.handle(options.path, [decide = std::move(decide), recorded, webhook = options.path](const server::Request& request) {
    const auto started = std::chrono::steady_clock::now();
    if (recorded) recorded->in_flight->add(1);
    ReviewReply reply = handle_admission_review(request.body, request.header("Content-Type"), decide);
    if (recorded) {
      recorded->in_flight->add(-1);
      recorded->latency->observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
      recorded->requests->with({webhook, std::to_string(reply.http_status)})->inc();
      recorded->admissions->with({webhook, std::string(to_string(reply.result))})->inc();
    }
    server::Response response;
    response.status = reply.http_status;
    response.content_type = std::move(reply.content_type);
    response.body = std::move(reply.body);
    return response;
  });
}

} // namespace dha::admission
