// metrics.*: a metric source against a live store holding known samples (metric_seed.hpp). The
// queries are scoped by the host's own renderer, as the operator sends them, with the tenant's
// namespace and monitoring namespace in the request: whatever the source makes of those (a URL,
// a header, a label) is its own business, but the answer must be the tenant's samples.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <cstddef>

#include <fmt/format.h>

#include "capability_checks.hpp"
#include "dha/sdk/sdk.hpp"
#include "metric_seed.hpp"
#include "plugin_calls.hpp"
#include "plugin_config.hpp"
#include "plugin_host/status_text.hpp"
#include "samples.hpp"
#include "tenancy/query_template.hpp"

namespace dha::plugin_check {

namespace {

using plugin_host::CallResult;
using plugin_host::PluginInstance;

void require_backend(const Options& options) {
  if (options.metrics_url.empty()) fail("no metrics store to check against: {}", options.metrics_problem);
}

std::string scoped(const Options& options, const std::string& selector_tail, const std::string& ns, bool sum) {
  const std::string selector =
      fmt::format("{}{{namespace=\"${{namespace}}\", run=\"{}\"{}}}", kSeedMetric, options.metrics_run, selector_tail);
  const auto q = tenancy::render_scoped_query(sum ? "sum(" + selector + ")" : selector, {ns, "db", "db"});
  if (!q.ok()) fail("the checker's own query was refused by the host's scoping: {}", q.refusal);
  return q.query;
}

sdk::InstantQuery instant(const std::string& query, const std::string& ns) {
  return {query, ns, ns + "-monitoring", 10};
}

CallResult instant_call(const PluginInstance& p, const sdk::InstantQuery& q) {
  return checked(p, p.call(p.metrics()->instant_query, q.to_json()), "instant_query");
}

sdk::Samples samples_of(const PluginInstance& p, const sdk::InstantQuery& q, const std::string& what) {
  const CallResult r = instant_call(p, q);
  if (!r.ok())
    fail("plugin \"{}\": instant_query of {} failed with {}: {}\n  query: {}", p.info().id, what,
         plugin_host::status_text(r.status), r.error, q.query);
  auto doc = parse_or_fail(p, r.output, "instant_query");
  try {
    return sdk::Samples::from_json(doc);
  } catch (const std::exception& e) {
    fail("plugin \"{}\": instant_query of {}: {}", p.info().id, what, e.what());
  }
}

bool near(double a, double b) { return std::fabs(a - b) < 1e-6 * std::max(1.0, std::fabs(b)); }

std::string describe(const sdk::Samples& s) {
  std::string out;
  for (const auto& sample : s.samples) {
    std::string labels;
    for (const auto& [k, v] : sample.labels) labels += (labels.empty() ? "" : ",") + k + "=" + v;
    out += fmt::format("{}{{{}}} {}", out.empty() ? "" : "; ", labels, sample.value);
  }
  return out.empty() ? "no samples" : out;
}

// A loopback URL nothing listens on: a port the kernel gave out and took back at once.
std::string dead_url() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  uint16_t port = 9;
  if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  if (fd >= 0) ::close(fd);
  return fmt::format("http://127.0.0.1:{}", port);
}

void expect_status(const PluginInstance& p, const CallResult& r, dha_status want, const std::string& what,
                   const std::string& meaning) {
  if (r.status == want && !r.error.empty()) return;
  if (r.status == want)
    fail("plugin \"{}\": {}: {} without a message", p.info().id, what, plugin_host::status_text(want));
  fail("plugin \"{}\": {}: expected {} ({}), got {}: {}", p.info().id, what, plugin_host::status_text(want), meaning,
       plugin_host::status_text(r.status), r.ok() ? r.output : r.error);
}

}  // namespace

CheckOutcome check_metrics_instant(const Options& options) {
  return for_each_instance(options, DHA_EXT_METRICS, [&](const PluginInstance& p) {
    require_backend(options);
    const auto total = samples_of(p, instant(scoped(options, "", kNamespace, true), kNamespace), "the tenant's sum");
    const double want = kTenantPods[0] + kTenantPods[1];
    if (total.samples.size() != 1 || !near(total.samples[0].value, want))
      fail("plugin \"{}\": the tenant's sum should be one sample of {} (pods db-0 {} and db-1 {}), got: {}",
           p.info().id, want, kTenantPods[0], kTenantPods[1], describe(total));
    const auto pods = samples_of(p, instant(scoped(options, "", kNamespace, false), kNamespace), "the tenant's series");
    if (pods.samples.size() != 2)
      fail("plugin \"{}\": the tenant has 2 series (db-0, db-1), got: {}", p.info().id, describe(pods));
    for (const auto& s : pods.samples) {
      const auto pod = s.labels.find("pod");
      const double expected = pod == s.labels.end()   ? -1
                              : pod->second == "db-0" ? kTenantPods[0]
                              : pod->second == "db-1" ? kTenantPods[1]
                                                      : -1;
      if (!near(s.value, expected))
        fail("plugin \"{}\": series labels must come back with their values (pod=db-0 {}, pod=db-1 {}), got: {}",
             p.info().id, kTenantPods[0], kTenantPods[1], describe(pods));
    }
    // The same store for another tenant: its own value, none of the first tenant's.
    const auto other =
        samples_of(p, instant(scoped(options, "", kOtherNamespace, true), kOtherNamespace), "another tenant's sum");
    if (other.samples.size() != 1 || !near(other.samples[0].value, kOtherTenantValue))
      fail("plugin \"{}\": namespace {} should read its own {}, got: {}", p.info().id, kOtherNamespace,
           kOtherTenantValue, describe(other));
    return fmt::format("{}: sums, series labels and a second tenant read back from {}", p.info().id,
                       options.metrics_url);
  });
}

CheckOutcome check_metrics_range(const Options& options) {
  return for_each_instance(options, DHA_EXT_METRICS, [&](const PluginInstance& p) -> std::string {
    require_backend(options);
    // Whole steps: a store that aligns a range to its step answers the same range as asked.
    const int64_t end = options.metrics_seeded_until - options.metrics_seeded_until % kSeedStepSeconds;
    const int64_t start = end - kSeedSpanSeconds + kSeedStepSeconds;
    sdk::RangeQuery q{scoped(options, "", kNamespace, true),
                      kNamespace,
                      std::string(kNamespace) + "-monitoring",
                      start,
                      end,
                      kSeedStepSeconds,
                      30};
    const dha_metrics* table = p.metrics();
    if (table->struct_size < offsetof(dha_metrics, range_query) + sizeof table->range_query ||
        table->range_query == nullptr)
      return fmt::format("{}: a 1.0 metric source, without range_query (the host answers UNIMPLEMENTED)", p.info().id);
    const CallResult r = checked(p, p.call(table->range_query, q.to_json()), "range_query");
    if (r.status == DHA_UNIMPLEMENTED)
      return fmt::format("{}: runs no range queries (UNIMPLEMENTED): predictive DHAs cannot read history through it",
                         p.info().id);
    if (!r.ok())
      fail("plugin \"{}\": range_query from {} to {} step {} failed with {}: {}", p.info().id, start, end,
           kSeedStepSeconds, plugin_host::status_text(r.status), r.error);
    auto doc = parse_or_fail(p, r.output, "range_query");
    sdk::RangeResult result;
    try {
      result = sdk::RangeResult::from_json(doc);
    } catch (const std::exception& e) {
      fail("plugin \"{}\": range_query: {}", p.info().id, e.what());
    }
    const double want = kTenantPods[0] + kTenantPods[1];
    if (result.series.size() != 1)
      fail("plugin \"{}\": range_query of the tenant's sum gave {} series, not 1", p.info().id, result.series.size());
    const auto& points = result.series[0].points;
    if (points.size() < static_cast<size_t>(q.points() / 2))
      fail("plugin \"{}\": range_query gave {} points of the {} steps the store has samples for", p.info().id,
           points.size(), q.points());
    for (const auto& [t, v] : points) {
      if (t < start || t > end)
        fail("plugin \"{}\": a point at {} is outside the range {}..{}", p.info().id, t, start, end);
      if (!near(v, want)) fail("plugin \"{}\": the point at {} is {}, the tenant's sum is {}", p.info().id, t, v, want);
    }
    return fmt::format("{}: {} points of {} steps, each {}", p.info().id, points.size(), q.points(), want);
  });
}

CheckOutcome check_metrics_errors(const Options& options) {
  auto unreachable = load_all(options, dead_url());
  return for_each_instance(options, DHA_EXT_METRICS, [&](const PluginInstance& p) -> std::string {
    require_backend(options);
    const std::string bad = fmt::format("sum({}{{namespace=\"{}\"}}", kSeedMetric, kNamespace);  // one ")" short
    expect_status(p, instant_call(p, instant(bad, kNamespace)), DHA_FAILED_PRECONDITION,
                  "instant_query of a query the store refuses (a missing parenthesis)",
                  "the API answered status \"error\"");
    const std::string empty =
        fmt::format("sum(dha_check_absent{{namespace=\"{}\", run=\"{}\"}})", kNamespace, options.metrics_run);
    expect_status(p, instant_call(p, instant(empty, kNamespace)), DHA_NOT_FOUND,
                  "instant_query of a series nobody writes",
                  "the result vector is empty, which is no reading, never 0");
    for (const auto& twin : unreachable->instances) {
      if (twin->info().id != p.info().id) continue;
      if (config_for(options, p.info(), "http://a") == config_for(options, p.info(), "http://b"))
        return fmt::format(
            "{}: a refused and an empty query named; an unreachable store not checked (its configuration "
            "does not use ${{metricsUrl}})",
            p.info().id);
      expect_status(*twin, instant_call(*twin, instant(scoped(options, "", kNamespace, true), kNamespace)),
                    DHA_UNAVAILABLE, "instant_query with the store's URL on a port nobody listens on", "no connection");
    }
    return fmt::format("{}: a refused query, an empty answer and an unreachable store each named by their status",
                       p.info().id);
  });
}

}  // namespace dha::plugin_check
