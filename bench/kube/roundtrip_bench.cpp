// Round trips per second: dha_kube Client vs curl, same server, same requests.
//
//   kube_roundtrip_bench [requests=2000] [tls=0|1] [rounds=5]
//
// The embedded API server runs as its own process (dha-apiserver), so both clients are in
// another process than the server and pay the same scheduling costs. Both send `requests`
// sequential requests over one keep-alive connection (curl: every URL in one invocation, read
// from a -K config file, so its process start is paid once per round). The sides take turns
// for `rounds` rounds and the medians are compared, because the machine is shared and the
// server's latency wanders. Client-side QPS limiting is off. A third column is a bare libcurl
// loop (one easy handle, no JSON): the floor under any libcurl-based client.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <curl/curl.h>
#include <fmt/format.h>

#include "dha/kube/client.hpp"
#include "dha/kube/json.hpp"

#ifndef DHA_APISERVER_BINARY
#error "DHA_APISERVER_BINARY must name the dha-apiserver executable"
#endif

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The server as a child process; stopped (SIGTERM, then waited for) on scope exit.
class ServerProcess {
 public:
  ServerProcess(const fs::path& dir, bool tls) : kubeconfig_(dir / "kubeconfig") {
    const fs::path tokens = dir / "tokens.csv";
    std::ofstream(tokens) << "bench-token,bench,uid-bench,\"system:masters\"\n";
    std::vector<std::string> args{DHA_APISERVER_BINARY, "--listen",           "127.0.0.1:0",
                                  "--kubeconfig-out",   kubeconfig_.string(), "--tokens",
                                  tokens.string(),      "--kubeconfig-token", "bench-token"};
    if (tls) args.emplace_back("--tls");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), environ) != 0)
      throw std::runtime_error(fmt::format("cannot start {}", DHA_APISERVER_BINARY));
    for (int i = 0; i < 500 && !fs::exists(kubeconfig_); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the file is written in one go; let it land
    if (!fs::exists(kubeconfig_)) throw std::runtime_error("dha-apiserver did not write its kubeconfig within 5 s");
  }
  ~ServerProcess() {
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  const fs::path& kubeconfig() const { return kubeconfig_; }

 private:
  fs::path kubeconfig_;
  pid_t pid_ = -1;
};

// Runs curl over every request in `config_path`; elapsed seconds, or negative when curl is
// missing or any request did not get a 2xx answer (--fail).
double run_curl(const std::string& config_path) {
  const std::string cmd = fmt::format("curl --silent --show-error --fail --http1.1 -K '{}'", config_path);
  const auto t0 = Clock::now();
  const int rc = std::system(cmd.c_str());
  const double took = seconds_since(t0);
  return rc == 0 ? took : -1.0;
}

void write_curl_config(const std::string& path, const std::string& url, int n, const std::string& ca_file, bool patch,
                       int first_value) {
  std::ofstream out(path);
  for (int i = 0; i < n; ++i) {
    // Each request is its own group (options reset at "next"); the connection is still reused.
    out << "header = \"Authorization: Bearer bench-token\"\n";
    out << "header = \"Accept: application/json\"\n";
    if (!ca_file.empty()) out << "cacert = \"" << ca_file << "\"\n";
    out << "url = \"" << url << "\"\n";
    out << "output = \"/dev/null\"\n";
    if (patch) {
      out << "request = \"PATCH\"\n";
      out << "header = \"Content-Type: application/merge-patch+json\"\n";
      // Config-file strings are double-quoted with backslash escapes.
      out << "data = \"{\\\"data\\\":{\\\"k\\\":\\\"" << (first_value + i) << "\\\"}}\"\n";
    }
    if (i + 1 < n) out << "next\n";
  }
}

// The floor under any libcurl client: one easy handle, same headers, body discarded, no JSON.
// Returns requests per second.
double raw_libcurl(const dha::kube::Config& config, const std::string& url, int n, bool patch, int first_value) {
  CURL* c = curl_easy_init();
  if (c == nullptr) throw std::runtime_error("curl_easy_init failed");
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_HTTP_VERSION, long(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(
      c, CURLOPT_WRITEFUNCTION, +[](char*, size_t size, size_t count, void*) { return size * count; });
  curl_blob ca{const_cast<char*>(config.ca_pem.data()), config.ca_pem.size(), CURL_BLOB_COPY};
  if (!config.ca_pem.empty()) curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Authorization: Bearer bench-token");
  headers = curl_slist_append(headers, "Accept: application/json");
  if (patch) {
    headers = curl_slist_append(headers, "Content-Type: application/merge-patch+json");
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "PATCH");
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_perform(c);  // connect outside the timing
  bool ok = true;
  const auto t0 = Clock::now();
  for (int i = 0; i < n && ok; ++i) {
    std::string body;
    if (patch) {
      body = fmt::format(R"({{"data":{{"k":"{}"}}}})", first_value + i);
      curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
    }
    long code = 0;
    ok = curl_easy_perform(c) == CURLE_OK && curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK &&
         code / 100 == 2;
  }
  const double took = seconds_since(t0);
  curl_slist_free_all(headers);
  curl_easy_cleanup(c);
  if (!ok) throw std::runtime_error("raw libcurl: a request failed");
  return n / took;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2000;
  const bool tls = argc > 2 && std::string(argv[2]) == "1";
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 5;
  if (n <= 0 || rounds <= 0) {
    std::cerr << "usage: kube_roundtrip_bench [requests>0] [tls=0|1] [rounds>0]\n";
    return 2;
  }
  const fs::path dir = fs::temp_directory_path() / fmt::format("dha-kube-bench-{}", ::getpid());
  fs::create_directories(dir);
  int rc = 0;
  try {
    ServerProcess server(dir, tls);
    dha::kube::ConfigFlags flags;
    flags.kubeconfig = server.kubeconfig().string();
    flags.qps = 0;  // measure the client, not the limiter
    const dha::kube::Config config = dha::kube::Config::load(flags);
    std::string ca_file;
    if (tls) {
      ca_file = (dir / "ca.pem").string();
      std::ofstream(ca_file) << config.ca_pem;
    }
    dha::kube::Client client(config);
    const dha::kube::ResourceRef cm{"", "v1", "configmaps", "default", "bench"};
    client.create(cm.collection(),
                  dha::kube::parse_json(
                      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bench"},"data":{"k":"0"}})"));
    const std::string url = config.server + dha::kube::resource_path(cm);
    const std::string get_cfg = (dir / "get.curl").string();
    const std::string patch_cfg = (dir / "patch.curl").string();

    for (int i = 0; i < 20; ++i) client.get(cm);  // warm: connection, TLS session

    std::vector<double> ours_get, ours_patch, curl_get, curl_patch, raw_get, raw_patch;
    int value = 0;
    for (int round = 0; round < rounds; ++round) {
      auto t0 = Clock::now();
      for (int i = 0; i < n; ++i) client.get(cm);
      ours_get.push_back(n / seconds_since(t0));

      write_curl_config(get_cfg, url, n, ca_file, false, 0);
      const double cg = run_curl(get_cfg);

      t0 = Clock::now();
      for (int i = 0; i < n; ++i) client.merge_patch(cm, fmt::format(R"({{"data":{{"k":"{}"}}}})", ++value));
      ours_patch.push_back(n / seconds_since(t0));

      // curl's patches must land too: the object ends with its last value.
      write_curl_config(patch_cfg, url, n, ca_file, true, value + 1);
      value += n;
      const double cp = run_curl(patch_cfg);
      const std::string last = dha::kube::string_at(client.get(cm), {"data", "k"});
      if (cg < 0 || cp < 0 || last != std::to_string(value)) {
        std::cerr << fmt::format("curl side failed (curl missing or a non-2xx answer; last value '{}', want '{}')\n",
                                 last, value);
        rc = 1;
        break;
      }
      curl_get.push_back(n / cg);
      curl_patch.push_back(n / cp);
      raw_get.push_back(raw_libcurl(config, url, n, false, 0));
      raw_patch.push_back(raw_libcurl(config, url, n, true, value + 1));
      value += n;
    }
    if (rc == 0) {
      auto row = [&](const char* what, const std::vector<double>& ours, const std::vector<double>& theirs,
                     const std::vector<double>& raw) {
        const double o = median(ours);
        const double c = median(theirs);
        const double r = median(raw);
        std::cout << fmt::format(
            "{:<12} dha_kube {:>7.0f} req/s | curl {:>7.0f} req/s, ratio {:.2f} | raw libcurl {:>7.0f} req/s, ratio "
            "{:.2f}\n",
            what, o, c, o / c, r, o / r);
      };
      std::cout << fmt::format("{} rounds x {} sequential keep-alive requests per side, {} on 127.0.0.1 (medians)\n",
                               rounds, n, tls ? "HTTPS" : "HTTP");
      row("GET", ours_get, curl_get, raw_get);
      row("merge PATCH", ours_patch, curl_patch, raw_patch);
    }
  } catch (const std::exception& e) {
    std::cerr << "kube_roundtrip_bench: " << e.what() << "\n";
    rc = 1;
  }
  fs::remove_all(dir);
  return rc;
}
