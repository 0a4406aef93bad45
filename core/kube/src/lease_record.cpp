#include "dha/kube/lease_record.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "dha/kube/json.hpp"

namespace dha::kube::lease {

LeaseRecord read_record(const rapidjson::Value& lease) {
  LeaseRecord r;
  r.holder = string_at(lease, {"spec", "holderIdentity"});
  r.acquire_time = string_at(lease, {"spec", "acquireTime"});
  r.renew_time = string_at(lease, {"spec", "renewTime"});
  if (const auto* d = find_path(lease, {"spec", "leaseDurationSeconds"}); d != nullptr && d->IsInt())
    r.lease_duration_seconds = d->GetInt();
  if (const auto* t = find_path(lease, {"spec", "leaseTransitions"}); t != nullptr && t->IsInt())
    r.transitions = t->GetInt();
  return r;
}

void write_spec(rapidjson::Document& lease, const LeaseRecord& r) {
  auto& a = lease.GetAllocator();
  if (!lease.HasMember("spec") || !lease["spec"].IsObject()) {
    lease.RemoveMember("spec");
    lease.AddMember("spec", rapidjson::Value(rapidjson::kObjectType), a);
  }
  rapidjson::Value& spec = lease["spec"];
  auto set = [&](const char* key, rapidjson::Value v) {
    spec.RemoveMember(key);
    spec.AddMember(rapidjson::Value(key, a), v, a);
  };
  set("holderIdentity", rapidjson::Value(r.holder, a));
  set("leaseDurationSeconds", rapidjson::Value(r.lease_duration_seconds));
  set("acquireTime", rapidjson::Value(r.acquire_time, a));
  set("renewTime", rapidjson::Value(r.renew_time, a));
  set("leaseTransitions", rapidjson::Value(r.transitions));
}

int whole_seconds_up(Duration d) {
  const double s = std::chrono::duration<double>(d).count();
  return std::max(1, int(std::ceil(s)));
}

rapidjson::Document new_lease(const std::string& namespace_, const std::string& name, const LeaseRecord& r) {
  rapidjson::Document lease = parse_json(R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{}})");
  auto& a = lease.GetAllocator();
  lease["metadata"].AddMember("name", rapidjson::Value(name, a), a);
  lease["metadata"].AddMember("namespace", rapidjson::Value(namespace_, a), a);
  write_spec(lease, r);
  return lease;
}

void check_timings(const char* who, Duration lease_duration, Duration renew_deadline, Duration retry_period) {
  if (renew_deadline >= lease_duration)
    throw std::invalid_argument(std::string(who) + ": renew deadline must be shorter than the lease duration");
  if (retry_period >= renew_deadline)
    throw std::invalid_argument(std::string(who) + ": retry period must be shorter than the renew deadline");
}

Config client_config(const Config& shared, Duration retry_period) {
  Config own = shared;
  own.qps = 0;
  own.request_timeout =
      std::max(std::chrono::milliseconds(100), std::chrono::duration_cast<std::chrono::milliseconds>(retry_period));
  own.connect_timeout = std::min(own.connect_timeout, own.request_timeout);
  return own;
}

}  // namespace dha::kube::lease
