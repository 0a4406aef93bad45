// A fixture library whose plugins log through the host at every step (create and each call), at
// every level the operator prints by default: commands that print JSON must keep those lines off
// stdout. An AcmeDB engine adapter and a metric source that answers 42 without any I/O, so
// `db-autoscaler metrics` runs end to end without a metrics server.
#include <string>

#include "acmedb_fixture.hpp"
#include "dha/sdk/sdk.hpp"

namespace {

namespace sdk = dha::sdk;

// Every line this fixture logs starts with this, so a test can tell them from anything else.
constexpr const char* kMark = "chatty plugin says: ";

void chat(const sdk::Host& host, const std::string& what) {
  host.info(kMark + what);
  host.warning(kMark + what + " (a warning)");
  host.error(kMark + what + " (an error)");
}

class ChattyAdapter final : public sdk::EngineAdapter {
 public:
  static constexpr sdk::PluginInfo info{.id = "chatty-acmedb",
                                        .name = "AcmeDB adapter that logs at every call",
                                        .version = "0.1.0",
                                        .vendor = "db-autoscaler tests",
                                        .description = "Test fixture: logs through the host while it works",
                                        .config_schema = nullptr};
  ChattyAdapter(const sdk::Host& host, const sdk::json::Value&) : host_(host) { chat(host_, "created"); }

  std::vector<sdk::TargetKind> targets() const override {
    chat(host_, "targets");
    return {dha::testsupport::acmedb_target_kind()};
  }
  sdk::Topology topology(const sdk::ObjectView& target) const override {
    chat(host_, "topology");
    // Refused here rather than in acmedb_topology(): so dha-plugin-check's malformed-input probe
    // (a nameless object) passes for this fixture, while the other AcmeDB fixtures stay as they were.
    if (target.name().empty()) throw sdk::Error(DHA_INVALID_ARGUMENT, "target object has no metadata.name");
    return dha::testsupport::acmedb_topology(target);
  }
  sdk::Queries queries(const sdk::QueryRequest&) const override {
    chat(host_, "queries");
    sdk::Queries q;
    q.driver["ReadConnections"] = R"(sum(acmedb_client_connections{namespace="${namespace}", cluster="${name}"}))";
    return q;
  }
  sdk::Health health(const sdk::HealthRequest& request) const override {
    chat(host_, "health");
    return sdk::EngineAdapter::health(request);
  }

 private:
  sdk::Host host_;
};

class ChattyMetrics final : public sdk::MetricSource {
 public:
  static constexpr sdk::PluginInfo info{
      .id = "chatty-metrics",
      .name = "Metric source that logs at every call",
      .version = "0.1.0",
      .vendor = "db-autoscaler tests",
      .description = "Test fixture: answers every query with 42, logging through the host",
      .config_schema = R"({"keys": [{"name": "url", "type": "string", "default": "",
                           "description": "Accepted as db-autoscaler metrics passes it; never contacted"}]})"};
  ChattyMetrics(const sdk::Host& host, const sdk::json::Value&) : host_(host) { chat(host_, "created"); }

  sdk::Samples instant_query(const sdk::InstantQuery& query) const override {
    chat(host_, "instant_query");
    return {{{{{"namespace", query.namespace_name}}, 42}}};
  }

 private:
  sdk::Host host_;
};

}  // namespace

DHA_EXPORT_PLUGINS(ChattyAdapter, ChattyMetrics)
