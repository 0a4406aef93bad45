// The built-in kinds the server validates as kube-apiserver does: Events of both API groups
// and Leases. Each row is one write and what the real server answers it with.

#include "test_support.hpp"

namespace dha::testing::test {
namespace {

struct Case {
  std::string name;
  std::string path;
  std::string body;
  long status;
  std::string message;  // expected substring of the Status message ("" = don't check)
};

const std::string kCoreEvents = "/api/v1/namespaces/default/events";
const std::string kEvents = "/apis/events.k8s.io/v1/namespaces/default/events";
const std::string kLeases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";

std::string core_event(const std::string& name, const std::string& fields) {
  return R"({"apiVersion":"v1","kind":"Event","metadata":{"name":")" + name + R"("},)" + fields + "}";
}
std::string new_event(const std::string& name, const std::string& fields) {
  return R"({"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":")" + name + R"("},)" + fields + "}";
}
std::string lease(const std::string& name, const std::string& spec) {
  return R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":")" + name + R"("},"spec":)" +
         spec + "}";
}

const std::string kRegarding = R"("regarding":{"kind":"Postgres","namespace":"default","name":"db"})";
const std::string kComplete = kRegarding +
                              R"(,"eventTime":"2026-01-02T03:04:05.123456Z","type":"Normal",)"
                              R"("reason":"Scaled","action":"Scale","reportingController":"db-autoscaler",)"
                              R"("reportingInstance":"db-autoscaler-0","note":"2 to 3")";

std::vector<Case> cases() {
  return {
      {"core event for an object in this namespace", kCoreEvents,
       core_event(
           "ok",
           R"("involvedObject":{"kind":"Postgres","namespace":"default","name":"db"},"reason":"Scaled","type":"Normal","firstTimestamp":"2026-01-02T03:04:05Z")"),
       201, ""},
      {"core event naming another namespace", kCoreEvents,
       core_event("wrong-ns",
                  R"("involvedObject":{"kind":"Postgres","namespace":"tenant-a","name":"db"},"reason":"Scaled")"),
       422, "involvedObject.namespace: Invalid value: \"tenant-a\": does not match event.namespace"},
      {"core event with any type (not checked for core/v1)", kCoreEvents,
       core_event("odd-type", R"("involvedObject":{"namespace":"default","name":"db"},"type":"Odd")"), 201, ""},
      {"core event with eventTime needs the reporting fields", kCoreEvents,
       core_event("new-style",
                  R"("involvedObject":{"namespace":"default","name":"db"},"eventTime":"2026-01-02T03:04:05.000000Z")"),
       422, "reportingComponent: Required value"},
      {"core event with a bad lastTimestamp", kCoreEvents,
       core_event("bad-time", R"("involvedObject":{"namespace":"default"},"lastTimestamp":"yesterday")"), 400,
       "Event in version \"v1\" cannot be handled as a Event: parsing time \"yesterday\""},
      {"events.k8s.io event with every required field", kEvents, new_event("complete", kComplete), 201, ""},
      {"events.k8s.io event without eventTime", kEvents,
       new_event(
           "no-time",
           kRegarding +
               R"(,"type":"Normal","reason":"Scaled","action":"Scale","reportingController":"c","reportingInstance":"i")"),
       422, "eventTime: Required value"},
      {"events.k8s.io event without reportingController and action", kEvents,
       new_event(
           "no-reporter",
           kRegarding +
               R"(,"eventTime":"2026-01-02T03:04:05.000000Z","type":"Normal","reason":"Scaled","reportingInstance":"i")"),
       422, "reportingController: Required value"},
      {"events.k8s.io event without action", kEvents,
       new_event(
           "no-action",
           kRegarding +
               R"(,"eventTime":"2026-01-02T03:04:05.000000Z","type":"Normal","reason":"Scaled","reportingController":"c","reportingInstance":"i")"),
       422, "Event \"no-action\" is invalid: action: Required value"},
      {"events.k8s.io event with a type other than Normal or Warning", kEvents,
       new_event(
           "bad-type",
           kRegarding +
               R"(,"eventTime":"2026-01-02T03:04:05.000000Z","type":"Info","reason":"Scaled","action":"Scale","reportingController":"c","reportingInstance":"i")"),
       422, "type: Invalid value: \"\": has invalid value: Info"},
      {"events.k8s.io event with eventTime lacking microseconds", kEvents,
       new_event("no-micros", kRegarding + R"(,"eventTime":"2026-01-02T03:04:05Z","type":"Normal")"), 400,
       "parsing time \"2026-01-02T03:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\""},
      {"events.k8s.io event with a deprecated field set", kEvents,
       new_event("deprecated", kComplete + R"(,"deprecatedCount":3)"), 422,
       "count: Invalid value: \"\": needs to be unset"},
      {"lease as the operator writes it", kLeases,
       lease(
           "ok",
           R"({"holderIdentity":"a","leaseDurationSeconds":15,"acquireTime":"2026-01-02T03:04:05.000000Z","renewTime":"2026-01-02T03:04:05.123456Z","leaseTransitions":0})"),
       201, ""},
      {"lease with renewTime lacking microseconds", kLeases,
       lease("no-micros", R"({"holderIdentity":"a","renewTime":"2026-01-02T03:04:05Z"})"), 400,
       "Lease in version \"v1\" cannot be handled as a Lease: parsing time \"2026-01-02T03:04:05Z\""},
      {"lease with a zero duration", kLeases, lease("zero", R"({"leaseDurationSeconds":0})"), 422,
       "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"},
      {"lease with negative transitions", kLeases, lease("negative", R"({"leaseTransitions":-1})"), 422,
       "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0"},
      {"lease with a string duration", kLeases, lease("string", R"({"leaseDurationSeconds":"15"})"), 400,
       "cannot be handled as a Lease"},
  };
}

class BuiltinValidationTest : public ApiServerTest {};

TEST_F(BuiltinValidationTest, WritesAreAnsweredAsKubeAnswersThem) {
  for (const auto& c : cases()) {
    auto r = call("POST", c.path, c.body);
    EXPECT_EQ(r.status, c.status) << c.name << ": " << r.body;
    if (!c.message.empty()) {
      auto doc = r.json();
      std::string message = doc.IsObject() && doc.HasMember("message") ? doc["message"].GetString() : "";
      EXPECT_NE(message.find(c.message), std::string::npos) << c.name << ": " << r.body;
    }
  }
}

TEST_F(BuiltinValidationTest, UpdatesKeepTheRulesToo) {
  ASSERT_EQ(call("POST", kLeases, lease("l", R"({"holderIdentity":"a","leaseDurationSeconds":15})")).status, 201);
  auto bad = call("PATCH", kLeases + "/l", R"({"spec":{"renewTime":"now"}})", "application/merge-patch+json");
  EXPECT_EQ(bad.status, 400) << bad.body;
  auto good = call("PATCH", kLeases + "/l", R"({"spec":{"renewTime":"2026-01-02T03:04:05.000001Z"}})",
                   "application/merge-patch+json");
  EXPECT_EQ(good.status, 200) << good.body;
}

}  // namespace
}  // namespace dha::testing::test
