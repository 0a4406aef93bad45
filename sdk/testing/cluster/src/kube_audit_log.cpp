#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <ctime>
#include <fstream>
#include <map>

#include "cluster_backends.hpp"

namespace dha::testing::detail {
namespace {

std::string member(const rapidjson::Value& v, const char* name) {
  auto it = v.FindMember(name);
  return it != v.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString()) : std::string();
}

// "2026-12-01T09:20:00.123456Z" (what kube-apiserver writes: UTC, microseconds).
std::chrono::system_clock::time_point parse_time(const std::string& text) {
  std::tm tm{};
  int micros = 0;
  char fraction[16] = {0};
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%15[.0-9]", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, fraction) < 6)
    return {};
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  if (fraction[0] == '.') {
    std::string digits = std::string(fraction + 1).substr(0, 6);
    digits.resize(6, '0');
    micros = std::stoi(digits);
  }
  return std::chrono::system_clock::from_time_t(timegm(&tm)) + std::chrono::microseconds(micros);
}

std::string method_of(const std::string& verb) {
  static const std::map<std::string, std::string> methods{
      {"create", "POST"}, {"update", "PUT"}, {"patch", "PATCH"}, {"delete", "DELETE"}, {"deletecollection", "DELETE"}};
  auto it = methods.find(verb);
  return it == methods.end() ? "GET" : it->second;
}

}  // namespace

std::vector<AuditEntry> read_kube_audit_log(const std::string& path) {
  std::vector<AuditEntry> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    rapidjson::Document e;
    e.Parse(line.c_str());
    if (!e.IsObject()) continue;  // a torn last line
    // A watch is recorded when its response starts, so a test sees the watches still open;
    // everything else when it completes.
    const std::string stage = member(e, "stage");
    const bool watch = member(e, "verb") == "watch";
    if (stage != (watch ? "ResponseStarted" : "ResponseComplete")) continue;
    AuditEntry a;
    a.method = method_of(member(e, "verb"));
    const std::string uri = member(e, "requestURI");
    const auto q = uri.find('?');
    a.path = uri.substr(0, q);
    a.query = q == std::string::npos ? "" : uri.substr(q + 1);
    if (e.HasMember("user") && e["user"].IsObject()) a.username = member(e["user"], "username");
    if (e.HasMember("responseStatus") && e["responseStatus"].IsObject() && e["responseStatus"].HasMember("code") &&
        e["responseStatus"]["code"].IsInt())
      a.status = e["responseStatus"]["code"].GetInt();
    if (e.HasMember("requestObject")) {
      rapidjson::StringBuffer buffer;
      rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
      e["requestObject"].Accept(writer);
      a.body = buffer.GetString();
    }
    a.received = parse_time(member(e, "requestReceivedTimestamp"));
    a.time = parse_time(member(e, "stageTimestamp"));
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace dha::testing::detail
