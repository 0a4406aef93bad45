#include "dha/testing/victoria_metrics.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rapidjson/document.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "dha/testing/child_process.hpp"

namespace dha::testing {

VictoriaMetrics::VictoriaMetrics() : VictoriaMetrics(Options{}) {}

VictoriaMetrics::VictoriaMetrics(Options options) : options_(std::move(options)) {
  data_dir_ = make_temp_dir("dha-vm");
  port_ = free_loopback_port();
  url_ = "http://127.0.0.1:" + std::to_string(port_) + options_.path_prefix;
  try {
    std::vector<std::string> argv{options_.binary, "-httpListenAddr=127.0.0.1:" + std::to_string(port_),
                                  "-storageDataPath=" + data_dir_ + "/data",
                                  "-retentionPeriod=" + options_.retention_period,
                                  // Fresh samples must be visible at once, and every query must see
                                  // the latest import rather than a cached answer.
                                  "-search.latencyOffset=0s", "-search.disableCache", "-loggerLevel=WARN",
                                  "-http.pathPrefix=" + options_.path_prefix};
    argv.insert(argv.end(), options_.extra_args.begin(), options_.extra_args.end());
    process_ = std::make_unique<ChildProcess>(argv, data_dir_ + "/victoria-metrics.log");
    const auto deadline = std::chrono::steady_clock::now() + options_.startup_timeout;
    while (true) {
      const HttpResult health = http_request("GET", url_ + "/health", {}, std::chrono::seconds(1));
      if (health.status == 200) break;
      if (!process_->running()) {
        throw std::runtime_error("victoria-metrics exited during startup: " + process_->log_tail());
      }
      if (std::chrono::steady_clock::now() > deadline) {
        throw std::runtime_error("victoria-metrics did not become healthy within " +
                                 std::to_string(options_.startup_timeout.count()) + " s: " + process_->log_tail());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  } catch (...) {
    process_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(data_dir_, ignored);
    throw;
  }
}

VictoriaMetrics::~VictoriaMetrics() {
  process_.reset();
  std::error_code ignored;
  std::filesystem::remove_all(data_dir_, ignored);
}

void VictoriaMetrics::stop() {
  if (process_) process_->stop();
}

bool VictoriaMetrics::running() { return process_ && process_->running(); }

std::string VictoriaMetrics::log_tail(size_t bytes) const {
  return process_ ? process_->log_tail(bytes) : std::string();
}

void VictoriaMetrics::import_prometheus(std::string_view exposition) {
  // Imported rows become searchable a moment after force_flush, so each import carries a marker
  // series of its own and returns only once the marker (and so the whole request) is visible.
  const std::string marker = "dha_testkit_import_marker{seq=\"" + std::to_string(++imports_) + "\"}";
  std::string body(exposition);
  if (!body.empty() && body.back() != '\n') body += '\n';
  body += marker + " 1\n";
  const HttpResult r = http_request("POST", url_ + "/api/v1/import/prometheus", body);
  if (r.status != 204 && r.status != 200) {
    throw std::runtime_error("import into victoria-metrics failed: HTTP " + std::to_string(r.status) + " " + r.error +
                             " " + r.body);
  }
  flush();
  if (!wait_for_result(marker, std::chrono::seconds(30))) {
    throw std::runtime_error("imported samples did not become searchable within 30 s");
  }
}

void VictoriaMetrics::flush() {
  const HttpResult r = http_request("GET", url_ + "/internal/force_flush");
  if (r.status != 200) throw std::runtime_error("victoria-metrics force_flush failed: " + r.error + " " + r.body);
}

std::string VictoriaMetrics::query(std::string_view promql) {
  std::string url = url_ + "/api/v1/query?query=";
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (unsigned char c : promql) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      url += static_cast<char>(c);
    } else {
      url += '%';
      url += kHex[c >> 4];
      url += kHex[c & 15];
    }
  }
  const HttpResult r = http_request("GET", url);
  if (r.status == 0) throw std::runtime_error("query to victoria-metrics failed: " + r.error);
  return r.body;
}

std::vector<VictoriaMetrics::Sample> VictoriaMetrics::query_vector(std::string_view promql) {
  const std::string body = query(promql);
  rapidjson::Document doc;
  doc.Parse(body.c_str());
  auto fail = [&](const char* why) {
    return std::runtime_error(std::string(why) + " for " + std::string(promql) + ": " + body);
  };
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("status") || !doc["status"].IsString())
    throw fail("not an API answer");
  if (std::string(doc["status"].GetString()) != "success") throw fail("query failed");
  const auto& data = doc["data"];
  const std::string type = data["resultType"].GetString();
  auto value_of = [&](const rapidjson::Value& pair) { return std::strtod(pair[1].GetString(), nullptr); };
  std::vector<Sample> out;
  if (type == "scalar") {
    out.push_back(Sample{{}, value_of(data["result"])});
    return out;
  }
  if (type != "vector") throw fail("not a vector");
  for (const auto& e : data["result"].GetArray()) {
    Sample s;
    for (auto it = e["metric"].MemberBegin(); it != e["metric"].MemberEnd(); ++it) {
      s.labels.emplace(it->name.GetString(), it->value.GetString());
    }
    s.value = value_of(e["value"]);
    out.push_back(std::move(s));
  }
  return out;
}

bool VictoriaMetrics::wait_for_result(std::string_view promql, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    flush();
    const std::string body = query(promql);
    if (body.find("\"result\":[]") == std::string::npos && body.find("\"status\":\"success\"") != std::string::npos) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

std::string fill_query_placeholders(std::string_view tmpl, std::string_view namespace_name, std::string_view name,
                                    std::string_view release) {
  auto escape = [](std::string_view v) {
    std::string out;
    for (char c : v) {
      if (c == '\\' || c == '"') out += '\\';
      if (c == '\n') {
        out += "\\n";
        continue;
      }
      out += c;
    }
    return out;
  };
  std::string out;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl.compare(i, 12, "${namespace}") == 0) {
      out += escape(namespace_name);
      i += 11;
    } else if (tmpl.compare(i, 7, "${name}") == 0) {
      out += escape(name);
      i += 6;
    } else if (tmpl.compare(i, 10, "${release}") == 0) {
      out += escape(release);
      i += 9;
    } else {
      out += tmpl[i];
    }
  }
  return out;
}

double query_one_value(VictoriaMetrics& vm, std::string_view query_template, std::string_view namespace_name,
                       std::string_view name, std::string_view release) {
  const std::string q = fill_query_placeholders(query_template, namespace_name, name, release);
  const auto samples = vm.query_vector(q);
  if (samples.size() != 1) {
    std::string got;
    for (const auto& s : samples) {
      got += got.empty() ? "{" : ", {";
      bool first = true;
      for (const auto& [k, v] : s.labels) {
        got += (first ? "" : ",") + k + "=\"" + v + "\"";
        first = false;
      }
      got += "} " + std::to_string(s.value);
    }
    throw std::runtime_error("query " + q + " returned " + std::to_string(samples.size()) +
                             " series, expected exactly one: [" + got + "]");
  }
  return samples.front().value;
}

int64_t unix_millis_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace dha::testing
