#include "metric_seed.hpp"

#include <chrono>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "dha/testing/victoria_metrics.hpp"
#include "samples.hpp"

namespace dha::plugin_check {

namespace {

std::string exposition(const std::string& run, int64_t until) {
  std::string out;
  for (int64_t t = until - kSeedSpanSeconds; t <= until; t += kSeedStepSeconds) {
    for (size_t pod = 0; pod < std::size(kTenantPods); ++pod)
      out += fmt::format("{}{{namespace=\"{}\",pod=\"db-{}\",run=\"{}\"}} {} {}\n", kSeedMetric, kNamespace, pod, run,
                         kTenantPods[pod], t * 1000);
    out += fmt::format("{}{{namespace=\"{}\",pod=\"db-0\",run=\"{}\"}} {} {}\n", kSeedMetric, kOtherNamespace, run,
                       kOtherTenantValue, t * 1000);
  }
  return out;
}

}  // namespace

MetricsBackend::MetricsBackend(const std::string& url, const std::string& import_url, const std::string& vm_binary,
                               std::string run)
    : run_(std::move(run)) {
  seeded_until_ = testing::unix_millis_now() / 1000;
  const std::string body = exposition(run_, seeded_until_);
  if (url.empty()) {
    testing::VictoriaMetrics::Options o;
    o.binary = vm_binary;
    vm_ = std::make_unique<testing::VictoriaMetrics>(o);
    url_ = vm_->url();
    vm_->import_prometheus(body);
  } else {
    url_ = url;
    while (!url_.empty() && url_.back() == '/') url_.pop_back();
    const std::string target = import_url.empty() ? url_ + "/api/v1/import/prometheus" : import_url;
    const auto r = testing::http_request("POST", target, body);
    if (r.status < 200 || r.status > 299)
      throw std::runtime_error(fmt::format("cannot write the check's samples to {}: {} {}", target,
                                           r.status ? "HTTP " + std::to_string(r.status) : r.error, r.body));
    testing::http_request("GET", url_ + "/internal/force_flush");  // VictoriaMetrics; others ignore it
  }
  // Readable before any check asks: the samples of this run, straight from the store.
  const std::string probe = url_ + "/api/v1/query?query=" + kSeedMetric + "%7Brun%3D%22" + run_ + "%22%7D";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;;) {
    const auto r = testing::http_request("GET", probe);
    if (r.status == 200 && r.body.find(kSeedMetric) != std::string::npos) return;
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error(
          fmt::format("the check's samples did not become readable at {} within 30 s (last answer: {} {})", url_,
                      r.status, r.body.substr(0, 200)));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

MetricsBackend::~MetricsBackend() = default;

}  // namespace dha::plugin_check
