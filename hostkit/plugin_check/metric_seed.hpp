#pragma once

#include <cstdint>
#include <memory>
#include <string>

// The samples the metric-source checks read, written to the store before the checks run: a
// connections series for two pods of the checked tenant and one pod of another tenant, a point a
// minute for the last ten minutes, marked with the run's label so an old run's samples never answer.
namespace dha::testing {
class VictoriaMetrics;
}

namespace dha::plugin_check {

inline constexpr const char* kSeedMetric = "dha_check_connections";
inline constexpr const char* kOtherNamespace = "tenant-other";
inline constexpr double kTenantPods[] = {120, 80};  // db-0, db-1 of the checked tenant: sum 200
inline constexpr double kOtherTenantValue = 5000;   // db-0 of the other tenant
inline constexpr int64_t kSeedSpanSeconds = 600;
inline constexpr int64_t kSeedStepSeconds = 60;

// A store with the samples in it: a VictoriaMetrics started here (`vm_binary`), or the one at
// `url` (written through `import_url`, default <url>/api/v1/import/prometheus). Throws
// std::runtime_error saying what could not start or be written.
class MetricsBackend {
 public:
  MetricsBackend(const std::string& url, const std::string& import_url, const std::string& vm_binary, std::string run);
  ~MetricsBackend();
  const std::string& url() const { return url_; }
  const std::string& run() const { return run_; }
  int64_t seeded_until() const { return seeded_until_; }  // unix seconds of the newest point

 private:
  std::unique_ptr<testing::VictoriaMetrics> vm_;
  std::string url_;
  std::string run_;
  int64_t seeded_until_ = 0;
};

}  // namespace dha::plugin_check
