// Round trips per second: dha_kube Client vs curl, same server, same requests.
//
//   kube_roundtrip_bench [requests=2000] [tls=0|1]
//
// Both sides send `requests` sequential requests over one keep-alive connection (curl: every
// URL in one invocation, read from a -K config file, so its process start is paid once).
// The embedded API server runs in this process on 127.0.0.1 with QPS limiting off.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <fmt/format.h>

#include "dha/kube/client.hpp"
#include "dha/kube/json.hpp"
#include "dha/testing/api_server.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Runs curl over every request in `config_path`; returns elapsed seconds, or a negative number
// on failure (curl missing or a non-2xx answer).
double run_curl(const std::string& config_path) {
  const std::string cmd = fmt::format("curl --silent --show-error --fail --http1.1 -K '{}' -o /dev/null", config_path);
  const auto t0 = Clock::now();
  const int rc = std::system(cmd.c_str());
  const double took = seconds_since(t0);
  return rc == 0 ? took : -1.0;
}

void write_curl_config(const std::string& path, const std::string& url, int n, const std::string& ca_file, bool patch, int first_value) {
  std::ofstream out(path);
  out << "header = \"Authorization: Bearer bench-token\"\n";
  out << "header = \"Accept: application/json\"\n";
  if (!ca_file.empty()) out << "cacert = \"" << ca_file << "\"\n";
  for (int i = 0; i < n; ++i) {
    out << "url = \"" << url << "\"\n";
    out << "output = \"/dev/null\"\n";
    if (patch) {
      // Options before --next apply to that URL; each request carries its own body.
      out << "request = \"PATCH\"\n";
      out << "header = \"Content-Type: application/merge-patch+json\"\n";
      out << "data = '{\"data\":{\"k\":\"" << (first_value + i) << "\"}}'\n";
    }
    if (i + 1 < n) out << "next\n";
    if (i + 1 < n) {
      out << "header = \"Authorization: Bearer bench-token\"\n";
      out << "header = \"Accept: application/json\"\n";
      if (!ca_file.empty()) out << "cacert = \"" << ca_file << "\"\n";
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2000;
  const bool tls = argc > 2 && std::string(argv[2]) == "1";
  if (n <= 0) {
    std::cerr << "usage: kube_roundtrip_bench [requests>0] [tls=0|1]\n";
    return 2;
  }
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("dha-kube-bench-{}", ::getpid());
  std::filesystem::create_directories(dir);

  dha::testing::ApiServerOptions opts;
  opts.tls = tls;
  opts.tokens["bench-token"] = {"bench", {"system:masters"}, "uid-bench"};
  dha::testing::ApiServer server(opts);
  server.start();
  const std::string kubeconfig = (dir / "kubeconfig").string();
  server.write_kubeconfig(kubeconfig, "bench-token");
  std::string ca_file;
  if (tls) {
    ca_file = (dir / "ca.pem").string();
    std::ofstream(ca_file) << server.ca_pem();
  }

  dha::kube::ConfigFlags flags;
  flags.kubeconfig = kubeconfig;
  flags.qps = 0;  // measure the client, not the limiter
  dha::kube::Client client(dha::kube::Config::load(flags));
  const dha::kube::ResourceRef cm{"", "v1", "configmaps", "default", "bench"};
  client.create(cm.collection(), dha::kube::parse_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bench"},"data":{"k":"0"}})"));
  const std::string url = server.url() + dha::kube::resource_path(cm);

  // Warm both paths (connection, TLS session) so neither side pays setup in the timing.
  for (int i = 0; i < 20; ++i) client.get(cm);

  auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) client.get(cm);
  const double ours_get = seconds_since(t0);

  t0 = Clock::now();
  for (int i = 0; i < n; ++i) client.merge_patch(cm, fmt::format(R"({{"data":{{"k":"{}"}}}})", i + 1));
  const double ours_patch = seconds_since(t0);

  const std::string get_cfg = (dir / "get.curl").string();
  const std::string patch_cfg = (dir / "patch.curl").string();
  write_curl_config(get_cfg, url, n, ca_file, false, 0);
  write_curl_config(patch_cfg, url, n, ca_file, true, n + 1);
  const double curl_get = run_curl(get_cfg);
  const double curl_patch = run_curl(patch_cfg);
  server.stop();
  std::filesystem::remove_all(dir);
  if (curl_get < 0 || curl_patch < 0) {
    std::cerr << "curl failed (is /usr/bin/curl installed?)\n";
    return 1;
  }

  auto row = [&](const char* what, double ours, double theirs) {
    const double ours_rps = n / ours;
    const double curl_rps = n / theirs;
    std::cout << fmt::format("{:<12} dha_kube {:>8.0f} req/s   curl {:>8.0f} req/s   ratio {:.2f}\n", what, ours_rps, curl_rps, ours_rps / curl_rps);
  };
  std::cout << fmt::format("{} sequential keep-alive requests per side, {} on 127.0.0.1\n", n, tls ? "HTTPS" : "HTTP");
  row("GET", ours_get, curl_get);
  row("merge PATCH", ours_patch, curl_patch);
  return 0;
}
