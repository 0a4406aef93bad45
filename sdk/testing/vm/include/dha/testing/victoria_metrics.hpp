#pragma once

// Test kit: a real VictoriaMetrics (and vmagent) on loopback, for plugin authors and our own
// tests. Both are started by the fixture and stopped by its destructor; data lives in a fresh
// temporary directory that is removed afterwards. A missing binary is an error with a clear
// message (std::runtime_error), never a silent skip.
//
//   dha::testing::VictoriaMetrics vm;                       // starts /usr/bin/victoria-metrics
//   vm.import_prometheus("up{namespace=\"a\",pod=\"p\"} 1\n");  // exposition format, then flush
//   std::string body = vm.query("sum(up{namespace=\"a\"})");  // raw /api/v1/query JSON

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dha::testing {

// A loopback port nobody listens on at the moment of the call.
uint16_t free_loopback_port();

class ChildProcess;  // dha/testing/child_process.hpp

class VictoriaMetrics {
 public:
  struct Options {
    std::string binary = "/usr/bin/victoria-metrics";
    std::string retention_period = "100y";  // imported samples may carry old timestamps
    std::chrono::seconds startup_timeout{30};
    // Serve every path under this prefix, e.g. "/select/0/prometheus" to look like a vmselect
    // (cluster) endpoint to the client; url() includes it.
    std::string path_prefix;
    // More command-line flags, e.g. "-search.maxQueryDuration=5s".
    std::vector<std::string> extra_args;
  };

  VictoriaMetrics();
  explicit VictoriaMetrics(Options options);
  ~VictoriaMetrics();
  VictoriaMetrics(const VictoriaMetrics&) = delete;
  VictoriaMetrics& operator=(const VictoriaMetrics&) = delete;

  // http://127.0.0.1:<port>[<path_prefix>]: the base for /api/v1/query.
  const std::string& url() const { return url_; }
  uint16_t port() const { return port_; }

  // Loads samples in Prometheus exposition format (optionally with millisecond timestamps at the
  // end of each line) through /api/v1/import/prometheus, then flushes so they are queryable.
  void import_prometheus(std::string_view exposition);
  // Makes everything received so far visible to queries.
  void flush();
  // Raw JSON answer of an instant query at the current time.
  std::string query(std::string_view promql);
  // The instant vector of `promql`, parsed: one entry per series (a scalar is one entry without
  // labels). Throws std::runtime_error when the query fails; NaN and Inf come back as such.
  struct Sample {
    std::map<std::string, std::string> labels;
    double value = 0;
  };
  std::vector<Sample> query_vector(std::string_view promql);
  // Polls `promql` until it returns a non-empty vector; false after `timeout`.
  bool wait_for_result(std::string_view promql, std::chrono::milliseconds timeout);

  // Stops the server now (for "metrics backend down" tests). Idempotent.
  void stop();
  // Whether the server process is still alive (false after stop() or a crash).
  bool running();
  // The end of the server's log, e.g. the panic that ended it.
  std::string log_tail(size_t bytes = 4000) const;

 private:
  Options options_;
  std::string data_dir_;
  uint16_t port_ = 0;
  std::string url_;
  int imports_ = 0;
  std::unique_ptr<ChildProcess> process_;
};

// vmagent scraping real exporters into a VictoriaMetrics, adding the labels a Kubernetes scrape
// would add (namespace, pod, ...) as static target labels.
class VmAgent {
 public:
  struct Target {
    std::string job;
    std::string address;                        // host:port of the exporter
    std::map<std::string, std::string> labels;  // e.g. {{"namespace","tenant-a"},{"pod","db-0"}}
  };

  VmAgent(const VictoriaMetrics& vm, const std::vector<Target>& targets,
          std::chrono::milliseconds scrape_interval = std::chrono::seconds(1), std::string binary = "/usr/bin/vmagent");
  ~VmAgent();
  VmAgent(const VmAgent&) = delete;
  VmAgent& operator=(const VmAgent&) = delete;

 private:
  std::string work_dir_;
  std::unique_ptr<ChildProcess> process_;
};

// Fills ${namespace}, ${name} and ${release} in a plugin's query template the way the host does
// for well-formed values (backslash, double quote and newline escaped). For tests only: the host
// also checks the namespace scope of the result (core/tenancy).
std::string fill_query_placeholders(std::string_view query_template, std::string_view namespace_name,
                                    std::string_view name, std::string_view release);

// The one value a plugin's query template gives for a target: placeholders filled as above,
// queried at the current time. Throws std::runtime_error quoting the query and the series it got
// unless exactly one series answers — a query that leaks another replica, application or
// namespace into a sum usually shows up as a second series or a wrong value.
double query_one_value(VictoriaMetrics& vm, std::string_view query_template, std::string_view namespace_name,
                       std::string_view name, std::string_view release);

// Milliseconds since the epoch, the timestamp unit of import_prometheus().
int64_t unix_millis_now();

// Blocking HTTP helpers the fixtures use, exposed for tests that poke exporters directly.
struct HttpResult {
  long status = 0;  // 0 when no HTTP answer came
  std::string body;
  std::string error;
};
HttpResult http_request(const std::string& method, const std::string& url, std::string_view body = {},
                        std::chrono::milliseconds timeout = std::chrono::seconds(10));

}  // namespace dha::testing
