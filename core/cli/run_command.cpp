#include <signal.h>

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "commands.hpp"
#include "exit.hpp"
#include "host/logging.hpp"
#include "install_paths.hpp"
#include "operator/operator.hpp"

namespace dha::cli {
namespace {

// Go-style durations as the chart writes them: "60s", "1m", "1m30s", "500ms", "2h", at least
// `min`.
std::chrono::milliseconds parse_duration(const std::string& flag, const std::string& text,
                                         std::chrono::milliseconds min) {
  static const std::regex part("([0-9]+)(ms|s|m|h)");
  if (text.empty()) throw Exit(kExitBadInput, flag + ": empty duration");
  std::int64_t millis = 0;
  auto it = std::sregex_iterator(text.begin(), text.end(), part);
  std::size_t consumed = 0;
  for (; it != std::sregex_iterator(); ++it) {
    if (static_cast<std::size_t>(it->position()) != consumed) break;
    const std::int64_t n = std::stoll((*it)[1].str());
    const std::string unit = (*it)[2].str();
    millis += unit == "ms" ? n : unit == "s" ? n * 1000 : unit == "m" ? n * 60000 : n * 3600000;
    consumed += static_cast<std::size_t>(it->length());
  }
  if (consumed != text.size() || text.size() > 20)
    throw Exit(kExitBadInput, flag + ": \"" + text + "\" is not a duration like 60s, 1m or 1m30s");
  if (millis < min.count())
    throw Exit(kExitBadInput, flag + ": must be at least " + std::to_string(min.count()) + "ms, got \"" + text + "\"");
  return std::chrono::milliseconds(millis);
}

// Whole seconds at least 1: the sync period is a requeue interval, not a busy loop.
std::chrono::seconds parse_sync_period(const std::string& text) {
  const auto period = parse_duration("--sync-period", text, std::chrono::seconds(1));
  return std::chrono::duration_cast<std::chrono::seconds>(period);
}

// A duration the operator counts in whole seconds (0 allowed), refused rather than truncated.
std::chrono::seconds parse_whole_seconds(const std::string& flag, const std::string& text) {
  const auto d = parse_duration(flag, text, std::chrono::milliseconds(0));
  if (d.count() % 1000 != 0) throw Exit(kExitBadInput, flag + ": \"" + text + "\" is not whole seconds");
  return std::chrono::duration_cast<std::chrono::seconds>(d);
}

// The Lease timings, with client-go's rule that a leader gives up (renew deadline) before a
// follower may take over (lease duration), and retries more than once within the deadline.
void apply_lease_timings(const std::string& lease, const std::string& renew, const std::string& retry,
                         op::OperatorOptions& o) {
  o.lease_duration = parse_duration("--leader-elect-lease-duration", lease, std::chrono::seconds(1));
  o.renew_deadline = parse_duration("--leader-elect-renew-deadline", renew, std::chrono::milliseconds(100));
  o.retry_period = parse_duration("--leader-elect-retry-period", retry, std::chrono::milliseconds(100));
  if (o.renew_deadline >= o.lease_duration)
    throw Exit(kExitBadInput, "--leader-elect-renew-deadline (" + renew +
                                  ") must be shorter than --leader-elect-lease-duration (" + lease + ")");
  if (o.retry_period >= o.renew_deadline)
    throw Exit(kExitBadInput, "--leader-elect-retry-period (" + retry +
                                  ") must be shorter than --leader-elect-renew-deadline (" + renew + ")");
}

struct RunFlags {
  op::OperatorOptions options;
  std::string sync_period = "60s";
  std::string grouped_query_max_age = "10s";
  std::string shard_key = "namespace-name";
  std::string log_level = "info";
  std::string log_format = "json";
  bool zap_devel = false;
  // Not controller-runtime's error: an error here is about the cluster or the input, not a bug
  // whose stack would help; --zap-stacktrace-level=error asks for them.
  std::string zap_stacktrace_level = "panic";
  // Not controller-runtime's epoch: these logs have always carried ISO 8601 strings.
  std::string zap_time_encoding = "iso8601";
  bool enable_http2 = false;
  std::string lease_duration = "15s";
  std::string renew_deadline = "10s";
  std::string retry_period = "2s";
  std::vector<std::string> plugin_dirs;
};

// Blocks SIGTERM/SIGINT in every thread (the operator's threads inherit the mask) and waits
// for one on the main thread, checking the operator for a fatal condition in between.
int serve(op::Operator& op) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  op.start();
  int code = kExitOk;
  const timespec poll{0, 200 * 1000 * 1000};
  while (true) {
    const int sig = sigtimedwait(&signals, nullptr, &poll);
    if (sig == SIGTERM || sig == SIGINT) {
      spdlog::info("received {}, shutting down", sig == SIGTERM ? "SIGTERM" : "SIGINT");
      break;
    }
    if (op.failed()) {
      spdlog::error("stopping: {}", op.failure());
      code = kExitFailure;
      break;
    }
  }
  op.stop();
  if (const int left = op.abandoned_reconciles(); left > 0) {
    // Their threads still use the operator: end the process here, before any destructor runs.
    spdlog::error("exiting with {} reconcile(s) still blocked in a plugin call", left);
    spdlog::default_logger()->flush();
    std::_Exit(code == kExitOk ? kExitFailure : code);
  }
  spdlog::info("stopped");
  return code;
}

// --leader-elect and the Lease flags, --shards and --shard-key.
void add_lease_options(CLI::App& run, RunFlags& f) {
  auto& o = f.options;
  run.add_flag("--leader-elect", o.leader_elect, "Hold the Lease " + o.leader_election_id + " before reconciling");
  run.add_option("--leader-election-id", o.leader_election_id, "Name of the leader Lease (shard i: <id>-shard-<i>)")
      ->capture_default_str();
  run.add_option("--leader-election-namespace", o.leader_election_namespace,
                 "Namespace of the leader Lease (default: the pod's namespace)");
  run.add_option("--leader-elect-lease-duration", f.lease_duration,
                 "How long followers wait after the last renewal before taking the Lease")
      ->capture_default_str();
  run.add_option("--leader-elect-renew-deadline", f.renew_deadline,
                 "How long the leader keeps trying to renew before it stops leading")
      ->capture_default_str();
  run.add_option("--leader-elect-retry-period", f.retry_period, "Interval between acquire and renew attempts")
      ->capture_default_str();
  run.add_option("--shards", o.shards,
                 "Split the DHAs into this many shards, each on its own Lease, spread over the replicas "
                 "(needs --leader-elect); 1 = one leader reconciles everything")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  run.add_option("--shard-key", f.shard_key,
                 "What is hashed into a DHA's shard: namespace-name (a tenant's DHAs spread over the shards) or "
                 "namespace (they stay on one replica, which then sends the tenant's grouped metric queries "
                 "alone); every replica must use the same")
      ->check(CLI::IsMember({"namespace-name", "namespace"}))
      ->capture_default_str();
}

void add_plugin_options(CLI::App& run, RunFlags& f) {
  auto& o = f.options;
  run.add_option("--plugin-dir", f.plugin_dirs, plugin_dir_help());
  run.add_option("--plugins", o.plugins, "Plugins to load, comma-separated (file <name>.so in a plugin dir)")
      ->delimiter(',');
  run.add_option("--plugin-config", o.plugin_config, "JSON file {\"<plugin>\": {configuration}, ...}");
}

// The metrics, probe and webhook servers.
void add_server_options(CLI::App& run, RunFlags& f) {
  auto& o = f.options;
  run.add_option("--metrics-bind-address", o.metrics_bind_address, "Metrics address, e.g. :8443; \"0\" disables")
      ->capture_default_str();
  run.add_option("--metrics-secure", o.metrics_secure,
                 "Serve metrics over HTTPS with TokenReview + SubjectAccessReview authorization")
      ->capture_default_str();
  run.add_option("--health-probe-bind-address", o.health_probe_bind_address,
                 "Address of /healthz and /readyz (plain HTTP); \"0\" disables")
      ->capture_default_str();
  run.add_option("--webhook-port", o.webhook_port, "Port of the admission webhook (HTTPS)")->capture_default_str();
  run.add_option("--webhook-host", o.webhook_host,
                 "Address the webhook listens on: loopback unless set (the chart passes the Pod's IP); empty "
                 "= every interface")
      ->capture_default_str();
  run.add_option("--webhook-trusted-cidrs", o.webhook_trusted_networks,
                 "Comma-separated networks the API server calls the webhook from (e.g. the control-plane "
                 "node CIDR): connection slots are reserved for them and never given to a flood; empty = "
                 "trust the few addresses that send well-formed reviews")
      ->delimiter(',');
  run.add_option("--webhook-client-ca", o.webhook_client_ca,
                 "PEM file of CAs: the webhook then refuses, at the TLS handshake, every caller without a client "
                 "certificate signed by one of them (the API server presents one when its admission configuration "
                 "names it); re-read when it changes. Empty: no client certificate is asked for");
  run.add_option("--webhook-client-names", o.webhook_client_names,
                 "Comma-separated names: with --webhook-client-ca, the client certificate's subject CN or one of "
                 "its DNS SANs must be one of them")
      ->delimiter(',');
  run.add_option("--cert-dir", o.cert_dir, "Directory with tls.crt and tls.key for the webhook and metrics")
      ->capture_default_str();
  run.add_option("--enable-webhook", o.enable_webhook,
                 "Serve the admission webhooks (HelmRelease replicas ownership, one DHA per target)")
      ->capture_default_str();
  run.add_option("--operator-username", o.operator_username,
                 "Ignored: the operator never writes HelmReleases, so the webhook allows it nothing")
      ->capture_default_str();
  run.add_option("--apps-api-username", o.apps_api_username, "Apps API identity allowed to change managed replicas")
      ->capture_default_str();
}

// How often each DHA is reconciled, how many at once, and how fast the API may be called.
void add_pacing_options(CLI::App& run, RunFlags& f) {
  auto& o = f.options;
  run.add_option("--sync-period", f.sync_period, "Requeue interval of every DHA, e.g. 60s, 1m30s")
      ->capture_default_str();
  run.add_option("--grouped-query-max-age", f.grouped_query_max_age,
                 "How long one grouped metric answer serves a namespace's DHAs (at most the sync period); "
                 "0s: each DHA asks its own")
      ->capture_default_str();
  // Sizing (bench/scale): 8 workers and 500 requests/s keep 10 000 DHAs within a 60 s period.
  run.add_option("--workers", o.workers, "Reconciles running at once")->check(CLI::Range(1, 64))->capture_default_str();
  run.add_option("--kube-api-qps", o.kube_api_qps, "Client-side limit of API requests per second")
      ->check(CLI::Range(1.0, 100000.0))
      ->capture_default_str();
  run.add_option("--kube-api-burst", o.kube_api_burst, "Requests allowed at once above --kube-api-qps")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
}

struct LogOptions {
  const CLI::Option* level;
  const CLI::Option* format;
};

LogOptions add_logging_options(CLI::App& run, RunFlags& f) {
  // controller-runtime's zap flags are accepted under their names too, so manifests written for
  // other operators (and KEDA-style extraArgs) work unchanged.
  const CLI::Option* level =
      run.add_option("--log-level,--zap-log-level", f.log_level,
                     "trace, debug, info, warn, error, or a verbosity 0 (info), 1 (debug), 2+ (trace)")
          ->capture_default_str();
  const CLI::Option* format =
      run.add_option("--log-format,--zap-encoder", f.log_format, "json or text (console)")->capture_default_str();
  run.add_flag("--zap-devel", f.zap_devel,
               "Development defaults: text lines at debug level (an explicit --log-level/--log-format wins)");
  // controller-runtime's zap flags with their meaning. Every server here speaks HTTP/1.1 only
  // (what --enable-http2=false, the default, asks for; true is refused rather than ignored).
  run.add_option("--zap-stacktrace-level", f.zap_stacktrace_level,
                 "Log records at or above this level carry the stack of the logging call: info, error, or panic "
                 "(none: nothing logs at panic)")
      ->capture_default_str();
  run.add_option("--zap-time-encoding", f.zap_time_encoding,
                 "Timestamps of the log lines: epoch, millis, nano (numbers since the epoch), iso8601, rfc3339, "
                 "rfc3339nano (UTC strings)")
      ->capture_default_str();
  run.add_option(
         "--enable-http2", f.enable_http2,
         "Accepted as false for controller-runtime manifests; the servers speak HTTP/1.1 only, so true is refused")
      ->capture_default_str();
  return {level, format};
}

// The flags checked and turned into the operator's options, logging installed, and the operator
// run until a signal or its failure.
void run_operator(RunFlags& f, const LogOptions& log) {
  const CLI::Option& level = *log.level;
  const CLI::Option& format = *log.format;
  auto& o = f.options;
  if (o.leader_election_id.empty())
    throw Exit(kExitBadInput, "--leader-election-id must not be empty: it names the leader Lease");
  if (f.zap_devel) {
    if (level.count() == 0) f.log_level = "debug";
    if (format.count() == 0) f.log_format = "text";
  }
  if (f.enable_http2)
    throw Exit(
        kExitBadInput,
        "--enable-http2=true: the webhook, metrics and probe servers speak HTTP/1.1 only (HTTP/2 is not "
        "implemented); leave it false, as controller-runtime does by default since the HTTP/2 rapid-reset attacks");
  try {
    op::install_logging(op::parse_log_format(f.log_format), op::parse_log_level(f.log_level),
                        op::parse_time_encoding(f.zap_time_encoding),
                        op::parse_stacktrace_level(f.zap_stacktrace_level));
  } catch (const std::invalid_argument& e) {
    throw Exit(kExitBadInput, e.what());
  }
  o.version = DHA_VERSION;
  o.sync_period = parse_sync_period(f.sync_period);
  o.grouped_query_max_age = parse_whole_seconds("--grouped-query-max-age", f.grouped_query_max_age);
  apply_lease_timings(f.lease_duration, f.renew_deadline, f.retry_period, o);
  o.shard_key = *kube::parse_shard_key(f.shard_key);  // checked by the option
  if (o.shards > 1 && !o.leader_elect)
    throw Exit(kExitBadInput, "--shards " + std::to_string(o.shards) +
                                  " needs --leader-elect: each shard is held through its own Lease");
  o.plugin_dirs = plugin_search_dirs(f.plugin_dirs);
  // Block the shutdown signals before any thread exists, so that only sigtimedwait sees them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  op::Operator op(o);
  int code = kExitOk;
  try {
    code = serve(op);
  } catch (const std::exception& e) {
    spdlog::error("cannot start: {}", e.what());
    op.stop();
    throw Exit(kExitFailure, e.what());
  }
  if (code != kExitOk) throw Exit(code, op.failure());
}

}  // namespace

void add_run_command(CLI::App& app) {
  static RunFlags f;
  auto& o = f.options;
  auto* run = app.add_subcommand("run", "Run the operator: watch DHAs and scale their targets");
  run->add_option("--kubeconfig", o.kubeconfig,
                  "Path to a kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  add_lease_options(*run, f);
  add_plugin_options(*run, f);
  add_server_options(*run, f);
  add_pacing_options(*run, f);
  const LogOptions log = add_logging_options(*run, f);
  run->callback([log] { run_operator(f, log); });
}

}  // namespace dha::cli
