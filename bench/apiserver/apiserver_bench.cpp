// Requests per second the embedded API server sustains for the calls the operator makes
// most: GET of one object and a JSON merge PATCH of spec.replicas, over one keep-alive
// connection (plain HTTP and TLS), plus a LIST of 100 objects.

#include "dha/testing/api_server.hpp"

#include <benchmark/benchmark.h>
#include <curl/curl.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace {

size_t discard(char*, size_t size, size_t n, void*) { return size * n; }

class Client {
 public:
  explicit Client(const dha::testing::ApiServer& server) : base_(server.url()), ca_(server.ca_pem()) {
    curl_ = curl_easy_init();
    curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(curl_, CURLOPT_NOSIGNAL, 1L);
    if (!ca_.empty()) {
      curl_blob blob{ca_.data(), ca_.size(), CURL_BLOB_COPY};
      curl_easy_setopt(curl_, CURLOPT_CAINFO_BLOB, &blob);
    }
  }
  ~Client() {
    curl_easy_cleanup(curl_);
    curl_slist_free_all(headers_);
  }

  long send(const char* method, const std::string& path, const std::string& body, const char* content_type) {
    curl_slist_free_all(headers_);
    headers_ = content_type ? curl_slist_append(nullptr, content_type) : nullptr;
    curl_easy_setopt(curl_, CURLOPT_URL, (base_ + path).c_str());
    curl_easy_setopt(curl_, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, headers_);
    if (body.empty()) {
      curl_easy_setopt(curl_, CURLOPT_HTTPGET, 1L);
      curl_easy_setopt(curl_, CURLOPT_CUSTOMREQUEST, method);
    } else {
      curl_easy_setopt(curl_, CURLOPT_POSTFIELDS, body.c_str());
      curl_easy_setopt(curl_, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
    }
    if (curl_easy_perform(curl_) != CURLE_OK) throw std::runtime_error("request failed");
    long code = 0;
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &code);
    return code;
  }

 private:
  std::string base_, ca_;
  CURL* curl_ = nullptr;
  curl_slist* headers_ = nullptr;
};

const std::string kPgs = "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses";

std::unique_ptr<dha::testing::ApiServer> start_server(bool tls, int objects) {
  dha::testing::ApiServerOptions options;
  options.tls = tls;
  options.crd_dirs = {DHA_TESTKIT_CRDS_DIR};
  auto server = std::make_unique<dha::testing::ApiServer>(options);
  server->start();
  Client client(*server);
  for (int i = 0; i < objects; ++i) {
    std::string body = R"({"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Postgres","metadata":{"name":"db)" +
                       std::to_string(i) + R"("},"spec":{"replicas":2,"resources":{"cpu":"1"}}})";
    if (client.send("POST", kPgs, body, "Content-Type: application/json") != 201)
      throw std::runtime_error("seed failed");
  }
  return server;
}

void BM_Get(benchmark::State& state) {
  auto server = start_server(state.range(0) != 0, 1);
  Client client(*server);
  for (auto _ : state)
    if (client.send("GET", kPgs + "/db0", "", nullptr) != 200) state.SkipWithError("GET failed");
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(state.range(0) ? "https" : "http");
}

void BM_MergePatch(benchmark::State& state) {
  auto server = start_server(state.range(0) != 0, 1);
  Client client(*server);
  int replicas = 2;
  for (auto _ : state) {
    std::string body = R"({"spec":{"replicas":)" + std::to_string(++replicas % 50 + 2) + "}}";
    if (client.send("PATCH", kPgs + "/db0", body, "Content-Type: application/merge-patch+json") != 200)
      state.SkipWithError("PATCH failed");
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(state.range(0) ? "https" : "http");
}

void BM_List100(benchmark::State& state) {
  auto server = start_server(false, 100);
  Client client(*server);
  for (auto _ : state)
    if (client.send("GET", kPgs, "", nullptr) != 200) state.SkipWithError("LIST failed");
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_Get)->Arg(0)->Arg(1)->MinTime(2.0)->UseRealTime();
BENCHMARK(BM_MergePatch)->Arg(0)->Arg(1)->MinTime(2.0)->UseRealTime();
BENCHMARK(BM_List100)->MinTime(2.0)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
