#include "test_support.hpp"

#include <curl/curl.h>

#include <sys/wait.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace dha::testing::test {

rapidjson::Document HttpResult::json() const {
  rapidjson::Document doc;
  doc.Parse(body.c_str());
  return doc;
}

namespace {

size_t collect_body(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

size_t collect_header(char* data, size_t size, size_t n, void* out) {
  std::string line(data, size * n);
  auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n')) value.pop_back();
    (*static_cast<std::map<std::string, std::string>*>(out))[name] = value;
  }
  return size * n;
}

}  // namespace

HttpResult http(const HttpCall& call) {
  HttpResult result;
  CURL* curl = curl_easy_init();
  struct curl_slist* headers = nullptr;
  if (!call.content_type.empty()) headers = curl_slist_append(headers, ("Content-Type: " + call.content_type).c_str());
  if (!call.token.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + call.token).c_str());
  for (const auto& h : call.extra_headers) headers = curl_slist_append(headers, h.c_str());
  curl_easy_setopt(curl, CURLOPT_URL, call.url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, call.method.c_str());
  if (!call.body.empty() || call.method == "POST" || call.method == "PUT" || call.method == "PATCH") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, call.body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(call.body.size()));
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &result.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, collect_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &result.headers);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, call.timeout_ms);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
  if (!call.ca_pem.empty()) {
    curl_blob blob{const_cast<char*>(call.ca_pem.data()), call.ca_pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &blob);
  }
  CURLcode code = curl_easy_perform(curl);
  if (code == CURLE_OK)
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result.status);
  else
    result.body = std::string("curl error: ") + curl_easy_strerror(code);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return result;
}

CommandResult run_command(const std::string& command_line) {
  CommandResult result;
  FILE* pipe = popen((command_line + " 2>&1").c_str(), "r");
  if (!pipe) return result;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string make_temp_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "dha-apiserver-test-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string fixture_crds_dir() { return DHA_TESTKIT_CRDS_DIR; }

std::string dha_crd_path() {
  return std::string(DHA_SOURCE_DIR) +
         "/charts/db-autoscaler/crds/autoscaling.cozystack.io_databasehorizontalautoscalers.yaml";
}

void ApiServerTest::SetUp() {
  ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl 1.32 must be installed at /usr/bin/kubectl";
  dir = make_temp_dir();
  ApiServerOptions options;
  options.tls = true;
  options.crd_dirs = {fixture_crds_dir()};
  configure(options);
  server = std::make_unique<ApiServer>(options);
  server->start();
  kubeconfig = dir + "/kubeconfig";
  server->write_kubeconfig(kubeconfig);
}

void ApiServerTest::TearDown() {
  if (server) server->stop();
  if (!dir.empty()) std::filesystem::remove_all(dir);
}

CommandResult ApiServerTest::kubectl(const std::string& args, const std::string& stdin_text) {
  std::string input;
  if (!stdin_text.empty()) {
    input = dir + "/stdin.yaml";
    write_file(input, stdin_text);
  }
  std::string line = "HOME=" + dir + " KUBECACHEDIR=" + dir + "/cache /usr/bin/kubectl --kubeconfig " + kubeconfig +
                     " --cache-dir " + dir + "/cache " + args + (input.empty() ? "" : " < " + input);
  return run_command(line);
}

HttpResult ApiServerTest::call(const std::string& method, const std::string& path, const std::string& body,
                               const std::string& content_type, const std::string& token) {
  HttpCall c;
  c.method = method;
  c.url = server->url() + path;
  c.body = body;
  c.content_type = content_type;
  c.token = token;
  c.ca_pem = server->ca_pem();
  return http(c);
}

}  // namespace dha::testing::test
