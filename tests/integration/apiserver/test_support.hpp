#pragma once
// Shared helpers for the API server tests: a libcurl HTTP client, a kubectl runner, and a
// fixture that starts a TLS ApiServer with the kit's fixture CRDs on a random port.

#include "dha/testing/api_server.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <map>
#include <string>
#include <vector>

namespace dha::testing::test {

struct HttpResult {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names (last value wins)
  rapidjson::Document json() const;
};

struct HttpCall {
  std::string method = "GET";
  std::string url;
  std::string body;
  std::string content_type = "application/json";
  std::string token;
  std::string ca_pem;
  std::vector<std::string> extra_headers;
  long timeout_ms = 10000;
};

HttpResult http(const HttpCall& call);

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs a shell command line; output is stdout+stderr.
CommandResult run_command(const std::string& command_line);

std::string make_temp_dir();
std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);

// A TLS ApiServer with every fixture CRD and a kubectl bound to it.
class ApiServerTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Options may be adjusted by subclasses before SetUp() runs start().
  virtual void configure(ApiServerOptions& options) { (void)options; }

  // Runs kubectl with the test kubeconfig, an isolated HOME (discovery cache) and `args`.
  CommandResult kubectl(const std::string& args, const std::string& stdin_text = "");
  // Direct HTTP call to the server, as the anonymous admin unless `token` is set.
  HttpResult call(const std::string& method, const std::string& path, const std::string& body = "",
                  const std::string& content_type = "application/json", const std::string& token = "");

  std::unique_ptr<ApiServer> server;
  std::string dir;
  std::string kubeconfig;
};

// Path of the DHA CRD shipped in the chart.
std::string dha_crd_path();
std::string fixture_crds_dir();

}  // namespace dha::testing::test
